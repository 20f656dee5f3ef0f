/**
 * GitHub (github.com and GitHub Enterprise): `X-GitHub-Event` push, pull_request and ping, signed
 * with `X-Hub-Signature-256` (HMAC-SHA256 under `webhook.github.secret`). Both of GitHub's content
 * types are read: `application/json`, and `application/x-www-form-urlencoded` with the JSON in its
 * `payload` field (the signature covers the raw body either way). Gitea's payloads have the same
 * repository shape, so its module reuses {@link githubLikeRepo}.
 */
import { z } from "zod";
import { pushedRef, hostsOf } from "../repourl.js";
import { checkHmac } from "../verify.js";
import type { EventRepo, WebhookEvent, WebhookRequest } from "../types.js";
import { decodeJson, MalformedPayload, present, type ProviderSpec } from "./common.js";

const ownerSchema = z.looseObject({ login: z.string().optional(), username: z.string().optional(), name: z.string().nullish() });

/** The repository object of GitHub's (and Gitea's) push and pull_request payloads. */
export const githubRepoSchema = z.looseObject({
  name: z.string(),
  full_name: z.string().optional(),
  owner: ownerSchema,
  html_url: z.string(),
  url: z.string().optional(),
  clone_url: z.string().optional(),
  ssh_url: z.string().optional(),
  git_url: z.string().optional(),
  default_branch: z.string().optional(),
});

const pushSchema = z.looseObject({ ref: z.string(), repository: githubRepoSchema });
const pullRequestSchema = z.looseObject({ action: z.string(), repository: githubRepoSchema });

/** The event repository of a GitHub-shaped repository object. */
export function githubLikeRepo(r: z.infer<typeof githubRepoSchema>): EventRepo {
  const owner = r.owner.login ?? r.owner.username ?? r.owner.name ?? r.full_name?.split("/")[0] ?? "";
  const urls = present(r.html_url, r.clone_url, r.ssh_url, r.git_url);
  return { urls, hosts: hostsOf(present(r.html_url, r.url)), owner, name: r.name };
}

/**
 * Pull request actions that can change a Pull Request generator's output: Argo CD's list (opened,
 * closed, synchronize, labeled, reopened, unlabeled) plus `edited`, which changes the title and
 * the base branch that `titleMatch` and `targetBranchMatch` filter on.
 */
export const GITHUB_PR_ACTIONS: ReadonlySet<string> = new Set([
  "opened",
  "closed",
  "synchronize",
  "labeled",
  "reopened",
  "unlabeled",
  "edited",
]);

/** The JSON text of a GitHub body in either content type. */
function jsonText(req: WebhookRequest): string {
  const text = req.body.toString("utf8");
  if (!(req.headers["content-type"] ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) return text;
  const payload = new URLSearchParams(text).get("payload");
  if (payload === null) throw new MalformedPayload("the form-encoded GitHub payload has no payload field");
  return payload;
}

/** What {@link githubLikeEvent} reads. */
export interface GithubLikeInput {
  readonly provider: "github" | "gitea";
  /** Product name for messages. */
  readonly label: string;
  /** The event header's value. */
  readonly event: string;
  /** The JSON body. */
  readonly text: string;
  /** Pull request actions that refresh. */
  readonly actions: ReadonlySet<string>;
}

/** A GitHub-shaped push, pull_request or other event (GitHub and Gitea). */
export function githubLikeEvent(input: GithubLikeInput): WebhookEvent {
  const { provider, label, event, text } = input;
  if (event === "push") {
    const p = decodeJson(text, pushSchema, `${label} push event`);
    return { kind: "push", provider, repo: githubLikeRepo(p.repository), refs: [pushedRef(p.ref, p.repository.default_branch)] };
  }
  if (event === "pull_request") {
    const p = decodeJson(text, pullRequestSchema, `${label} pull_request event`);
    if (!input.actions.has(p.action)) return { kind: "ignored", provider, reason: `pull request action ${p.action}` };
    return { kind: "pull-request", provider, repo: githubLikeRepo(p.repository), action: p.action };
  }
  decodeJson(text, z.looseObject({}), `${label} ${event} event`);
  return { kind: "ignored", provider, reason: `event ${event}` };
}

/** GitHub's webhook dialect. */
export const github: ProviderSpec = {
  name: "github",
  detect: (h) => h["x-github-event"] !== undefined,
  verify: (req, secrets) =>
    checkHmac({
      secret: secrets.github,
      value: req.headers["x-hub-signature-256"],
      body: req.body,
      header: "X-Hub-Signature-256",
      prefix: "sha256=",
    }),
  parse: (req) =>
    githubLikeEvent({
      provider: "github",
      label: "GitHub",
      event: req.headers["x-github-event"] ?? "",
      text: jsonText(req),
      actions: GITHUB_PR_ACTIONS,
    }),
};
