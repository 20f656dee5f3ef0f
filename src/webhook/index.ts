/**
 * The webhook server: verifies Git provider events and refreshes the ApplicationSets they can affect.
 *
 * The pure part reads a request (method, headers, raw body) and the configured secrets and gives a
 * verdict (receive.ts, verify.ts, providers/), then matches an accepted event against each
 * ApplicationSet's generators (match.ts, repourl.ts). The shell (server.ts, queue.ts, process.ts,
 * kube.ts, start.ts) is the I/O boundary: an HTTP listener on `--webhook-addr`, reads of
 * `argocd-secret`, `argocd-cm` and ApplicationSets, and merge patches of the refresh annotation.
 */
export { affectedGenerator, revisionFollows } from "./match.js";
export { receive, PROVIDER_SPECS, UNKNOWN_EVENT } from "./receive.js";
export { ARGOCD_CM, ARGOCD_SECRET, MAX_PAYLOAD_KEY, SECRET_KEYS, cachedSettings, settingsFrom, type WebhookSettings } from "./secrets.js";
export { startWebhookServer, WEBHOOK_PATH, type WebhookServer, type WebhookServerOptions } from "./server.js";
export { DEFAULT_WEBHOOK_LIMITS, type WebhookLimits } from "./limits.js";
export { startControllerWebhook, type ControllerWebhookOptions } from "./start.js";
export type { EventRepo, ProviderName, PushedRef, Verdict, WebhookEvent, WebhookRequest, WebhookSecrets } from "./types.js";
