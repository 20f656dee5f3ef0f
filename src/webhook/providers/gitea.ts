/**
 * Gitea (which Argo CD's ApplicationSet webhook lacks): `X-Gitea-Event` push and pull_request,
 * signed with `X-Gitea-Signature` (hex HMAC-SHA256, no prefix) under `webhook.gitea.secret` (or
 * Argo CD's `webhook.gogs.secret`). Gitea also sends `X-GitHub-Event`, so it is recognised first;
 * its payloads have GitHub's repository shape.
 */
import { checkHmac } from "../verify.js";
import type { ProviderSpec } from "./common.js";
import { githubLikeEvent } from "./github.js";

/** Gitea pull request actions that can change a Pull Request generator's output. */
export const GITEA_PR_ACTIONS: ReadonlySet<string> = new Set([
  "opened",
  "closed",
  "reopened",
  "synchronized",
  "edited",
  "label_updated",
  "label_cleared",
]);

/** Gitea's webhook dialect. */
export const gitea: ProviderSpec = {
  name: "gitea",
  detect: (h) => h["x-gitea-event"] !== undefined,
  verify: (req, secrets) =>
    checkHmac({ secret: secrets.gitea, value: req.headers["x-gitea-signature"], body: req.body, header: "X-Gitea-Signature", prefix: "" }),
  parse: (req) =>
    githubLikeEvent({
      provider: "gitea",
      label: "Gitea",
      event: req.headers["x-gitea-event"] ?? "",
      text: req.body.toString("utf8"),
      actions: GITEA_PR_ACTIONS,
    }),
};
