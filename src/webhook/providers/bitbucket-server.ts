/**
 * Bitbucket Server / Data Center (which Argo CD's ApplicationSet webhook lacks): `X-Event-Key`
 * `repo:refs_changed` and the pull request events, signed with `X-Hub-Signature` (`sha256=` + hex
 * HMAC-SHA256 under `webhook.bitbucketserver.secret`). The payload does not name the default
 * branch, so a push may have moved it (a Git generator on `HEAD` is refreshed by any branch push).
 */
import { z } from "zod";
import { hostsOf, stripRef } from "../repourl.js";
import { checkHmac } from "../verify.js";
import type { EventRepo, PushedRef, WebhookEvent, WebhookRequest } from "../types.js";
import { decodeJson, type ProviderSpec } from "./common.js";

const linkSchema = z.looseObject({ href: z.string(), name: z.string().optional() });
const repositorySchema = z.looseObject({
  slug: z.string(),
  project: z.looseObject({ key: z.string() }),
  links: z.looseObject({ clone: z.array(linkSchema).optional(), self: z.array(linkSchema).optional() }).optional(),
});
const refSchema = z.looseObject({ id: z.string(), type: z.string().optional() });
const pushSchema = z.looseObject({
  repository: repositorySchema,
  changes: z.array(z.looseObject({ ref: refSchema.optional(), refId: z.string().optional() })),
});
const pullRequestSchema = z.looseObject({ pullRequest: z.looseObject({ toRef: z.looseObject({ repository: repositorySchema }) }) });

/** Pull request event keys that can change a Pull Request generator's output. */
export const BITBUCKET_SERVER_PR_EVENTS: ReadonlySet<string> = new Set([
  "pr:opened",
  "pr:from_ref_updated",
  "pr:modified",
  "pr:merged",
  "pr:declined",
  "pr:deleted",
]);

function repoOf(r: z.infer<typeof repositorySchema>): EventRepo {
  const clone = (r.links?.clone ?? []).map((l) => l.href);
  const self = (r.links?.self ?? []).map((l) => l.href);
  return { urls: clone, hosts: hostsOf([...clone.filter((u) => /^https?:/i.test(u)), ...self]), owner: r.project.key, name: r.slug };
}

function refOf(change: z.infer<typeof pushSchema>["changes"][number]): PushedRef | undefined {
  const id = change.ref?.id ?? change.refId;
  if (id === undefined) return undefined;
  const tag = change.ref?.type === "TAG" || id.startsWith("refs/tags/");
  return { revision: stripRef(id), tag, touchedHead: tag ? false : undefined };
}

function parse(req: WebhookRequest): WebhookEvent {
  const event = req.headers["x-event-key"] ?? "";
  if (event === "repo:refs_changed") {
    const p = decodeJson(req.body, pushSchema, "Bitbucket Server repo:refs_changed event");
    return { kind: "push", provider: "bitbucketserver", repo: repoOf(p.repository), refs: p.changes.flatMap((c) => refOf(c) ?? []) };
  }
  if (BITBUCKET_SERVER_PR_EVENTS.has(event)) {
    const p = decodeJson(req.body, pullRequestSchema, `Bitbucket Server ${event} event`);
    return { kind: "pull-request", provider: "bitbucketserver", repo: repoOf(p.pullRequest.toRef.repository), action: event };
  }
  decodeJson(req.body, z.looseObject({}), `Bitbucket Server ${event} event`);
  return { kind: "ignored", provider: "bitbucketserver", reason: `event ${event}` };
}

/** Bitbucket Server's webhook dialect (after Bitbucket Cloud, which also sends `X-Event-Key`). */
export const bitbucketServer: ProviderSpec = {
  name: "bitbucketserver",
  detect: (h) => h["x-event-key"] !== undefined,
  verify: (req, secrets) =>
    checkHmac({
      secret: secrets.bitbucketServer,
      value: req.headers["x-hub-signature"],
      body: req.body,
      header: "X-Hub-Signature",
      prefix: "sha256=",
    }),
  parse,
};
