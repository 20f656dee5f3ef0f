/**
 * GitLab: `X-Gitlab-Event` Push Hook, Tag Push Hook and Merge Request Hook, authenticated by the
 * `X-Gitlab-Token` header equal to `webhook.gitlab.secret`. Unlike Argo CD, a tag push is read
 * (a Git generator can follow a tag), and a merge request's project also matches a generator that
 * names it by path (`group/project`), not only by numeric id. System hooks change nothing here.
 */
import { z } from "zod";
import { hostsOf, pushedRef } from "../repourl.js";
import { checkToken } from "../verify.js";
import type { EventRepo, WebhookEvent, WebhookRequest } from "../types.js";
import { decodeJson, present, type ProviderSpec } from "./common.js";

const projectSchema = z.looseObject({
  id: z.number(),
  web_url: z.string(),
  path_with_namespace: z.string(),
  default_branch: z.string().nullish(),
  git_ssh_url: z.string().nullish(),
  git_http_url: z.string().nullish(),
});

const pushSchema = z.looseObject({ ref: z.string(), project: projectSchema });
const mergeRequestSchema = z.looseObject({
  project: projectSchema,
  object_attributes: z.looseObject({ action: z.string().optional(), target_project_id: z.number().optional() }),
});

/** Merge request actions that refresh (Argo CD's list). */
export const GITLAB_MR_ACTIONS: ReadonlySet<string> = new Set(["open", "close", "reopen", "update", "merge"]);

function repoOf(p: z.infer<typeof projectSchema>, projectId: number): EventRepo {
  const path = p.path_with_namespace;
  const slash = path.lastIndexOf("/");
  return {
    urls: present(p.web_url, p.git_http_url, p.git_ssh_url),
    hosts: hostsOf([p.web_url]),
    owner: slash < 0 ? "" : path.slice(0, slash),
    name: slash < 0 ? path : path.slice(slash + 1),
    projectId: String(projectId),
  };
}

function parse(req: WebhookRequest): WebhookEvent {
  const event = req.headers["x-gitlab-event"] ?? "";
  if (event === "Push Hook" || event === "Tag Push Hook") {
    const p = decodeJson(req.body, pushSchema, `GitLab ${event}`);
    return {
      kind: "push",
      provider: "gitlab",
      repo: repoOf(p.project, p.project.id),
      refs: [pushedRef(p.ref, p.project.default_branch ?? undefined)],
    };
  }
  if (event === "Merge Request Hook") {
    const p = decodeJson(req.body, mergeRequestSchema, "GitLab Merge Request Hook");
    const action = p.object_attributes.action ?? "";
    if (!GITLAB_MR_ACTIONS.has(action)) return { kind: "ignored", provider: "gitlab", reason: `merge request action ${action}` };
    return {
      kind: "pull-request",
      provider: "gitlab",
      repo: repoOf(p.project, p.object_attributes.target_project_id ?? p.project.id),
      action,
    };
  }
  decodeJson(req.body, z.looseObject({}), `GitLab ${event}`);
  return { kind: "ignored", provider: "gitlab", reason: `event ${event}` };
}

/** GitLab's webhook dialect. */
export const gitlab: ProviderSpec = {
  name: "gitlab",
  detect: (h) => h["x-gitlab-event"] !== undefined,
  verify: (req, secrets) => checkToken({ secret: secrets.gitlab, value: req.headers["x-gitlab-token"], header: "X-Gitlab-Token" }),
  parse,
};
