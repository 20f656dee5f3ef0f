/**
 * The pure front door: a request (method, headers, raw body) and the configured secrets in, a
 * verdict out. The provider is chosen by header (Gitea before GitHub, since Gitea also sends
 * `X-GitHub-Event`, and GitHub's container registry's `package` events before GitHub's others;
 * Bitbucket Cloud's `X-Hook-UUID` before Bitbucket Server's `X-Event-Key`), the
 * request is authenticated on its raw bytes, and only then is the body parsed.
 *
 * Statuses: 405 for a method other than POST, 400 for a request no provider recognises ("Unknown
 * webhook event", as Argo CD) or a malformed body, 401 for a missing or wrong signature, token or
 * password, 403 when the provider has no secret configured. (Argo CD answers 400 to all of these
 * and accepts unsigned events when no secret is set.)
 */
import { MalformedPayload, type ProviderSpec } from "./providers/common.js";
import { azureDevOps } from "./providers/azuredevops.js";
import { bitbucketCloud } from "./providers/bitbucket-cloud.js";
import { bitbucketServer } from "./providers/bitbucket-server.js";
import { ghcr } from "./providers/ghcr.js";
import { gitea } from "./providers/gitea.js";
import { github } from "./providers/github.js";
import { gitlab } from "./providers/gitlab.js";
import type { Verdict, WebhookRequest, WebhookSecrets } from "./types.js";

/** The providers in the order their headers are tried. */
export const PROVIDER_SPECS: readonly ProviderSpec[] = [gitea, ghcr, github, gitlab, azureDevOps, bitbucketCloud, bitbucketServer];

/** Argo CD's answer to a request no provider recognises. */
export const UNKNOWN_EVENT = "Unknown webhook event";

/** Checks and parses one request. */
export function receive(req: WebhookRequest, secrets: WebhookSecrets): Verdict {
  const spec = PROVIDER_SPECS.find((p) => p.detect(req.headers));
  if (req.method !== "POST")
    return { ok: false, status: 405, message: `method ${req.method} is not allowed, use POST`, ...(spec ? { provider: spec.name } : {}) };
  if (spec === undefined) return { ok: false, status: 400, message: UNKNOWN_EVENT };
  const check = spec.verify(req, secrets);
  if (!check.ok) return { ok: false, status: check.status, message: check.message, provider: spec.name };
  try {
    return { ok: true, provider: spec.name, event: spec.parse(req) };
  } catch (err) {
    if (err instanceof MalformedPayload) return { ok: false, status: 400, message: err.message, provider: spec.name };
    throw err;
  }
}
