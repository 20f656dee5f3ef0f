/**
 * Bitbucket Cloud (which Argo CD's ApplicationSet webhook lacks): requests carrying `X-Hook-UUID`
 * or one of Bitbucket Cloud's own event keys, with `X-Event-Key` `repo:push` or a pull request event. Argo CD's API server trusts the hook
 * UUID (`webhook.bitbucket.uuid`); Bitbucket Cloud can now also sign with a secret
 * (`X-Hub-Signature`, `sha256=` + hex HMAC-SHA256), checked when `webhook.bitbucket.secret` is set.
 * Whichever are configured must all pass; with neither, the requests are refused.
 */
import { z } from "zod";
import { hostsOf } from "../repourl.js";
import { allOf, checkHmac, checkToken, type CheckResult } from "../verify.js";
import type { EventRepo, PushedRef, WebhookEvent, WebhookRequest, WebhookSecrets } from "../types.js";
import { decodeJson, present, type ProviderSpec } from "./common.js";

const repositorySchema = z.looseObject({
  full_name: z.string().regex(/^[^/]+\/[^/]+$/, "expected workspace/repository"),
  links: z.looseObject({ html: z.looseObject({ href: z.string() }).optional() }).optional(),
  mainbranch: z.looseObject({ name: z.string() }).nullish(),
});
const refSchema = z.looseObject({ type: z.string(), name: z.string() }).nullish();
const pushSchema = z.looseObject({
  repository: repositorySchema,
  push: z.looseObject({ changes: z.array(z.looseObject({ new: refSchema, old: refSchema })) }),
});
const pullRequestSchema = z.looseObject({ repository: repositorySchema, pullrequest: z.looseObject({}) });

/** Pull request event keys that can change a Pull Request generator's output. */
export const BITBUCKET_CLOUD_PR_EVENTS: ReadonlySet<string> = new Set([
  "pullrequest:created",
  "pullrequest:updated",
  "pullrequest:fulfilled",
  "pullrequest:rejected",
]);

function repoOf(r: z.infer<typeof repositorySchema>): EventRepo {
  const [owner = "", name = ""] = r.full_name.split("/");
  const html = r.links?.html?.href;
  const urls = present(html, `https://bitbucket.org/${r.full_name}`, `git@bitbucket.org:${r.full_name}.git`);
  return { urls, hosts: hostsOf(present(html ?? "https://bitbucket.org/")), owner, name };
}

function refsOf(p: z.infer<typeof pushSchema>): PushedRef[] {
  const head = p.repository.mainbranch?.name;
  return p.push.changes.flatMap((c) => {
    const ref = c.new ?? c.old;
    if (ref === null || ref === undefined) return [];
    const tag = ref.type === "tag";
    return [{ revision: ref.name, tag, touchedHead: tag ? false : head === undefined ? undefined : head === ref.name }];
  });
}

function parse(req: WebhookRequest): WebhookEvent {
  const event = req.headers["x-event-key"] ?? "";
  if (event === "repo:push") {
    const p = decodeJson(req.body, pushSchema, "Bitbucket repo:push event");
    return { kind: "push", provider: "bitbucket", repo: repoOf(p.repository), refs: refsOf(p) };
  }
  if (BITBUCKET_CLOUD_PR_EVENTS.has(event)) {
    const p = decodeJson(req.body, pullRequestSchema, `Bitbucket ${event} event`);
    return { kind: "pull-request", provider: "bitbucket", repo: repoOf(p.repository), action: event };
  }
  decodeJson(req.body, z.looseObject({}), `Bitbucket ${event} event`);
  return { kind: "ignored", provider: "bitbucket", reason: `event ${event}` };
}

function verify(req: WebhookRequest, secrets: WebhookSecrets): CheckResult {
  const checks: CheckResult[] = [];
  if (secrets.bitbucketUuid !== undefined)
    checks.push(checkToken({ secret: secrets.bitbucketUuid, value: req.headers["x-hook-uuid"], header: "X-Hook-UUID" }));
  if (secrets.bitbucketSecret !== undefined) {
    checks.push(
      checkHmac({
        secret: secrets.bitbucketSecret,
        value: req.headers["x-hub-signature"],
        body: req.body,
        header: "X-Hub-Signature",
        prefix: "sha256=",
      }),
    );
  }
  return allOf(checks, "Bitbucket webhook UUID or secret");
}

/** Bitbucket Cloud's webhook dialect. */
export const bitbucketCloud: ProviderSpec = {
  name: "bitbucket",
  detect: (h) => h["x-hook-uuid"] !== undefined || /^(repo:push|pullrequest:|issue:)/.test(h["x-event-key"] ?? ""),
  verify,
  parse,
};
