/**
 * The webhook secrets, read from Argo CD's `argocd-secret` in the controller namespace under Argo
 * CD's keys (`webhook.github.secret`, `webhook.gitlab.secret`, `webhook.azuredevops.username` and
 * `.password`, `webhook.bitbucketserver.secret`, `webhook.bitbucket.uuid`, `webhook.gogs.secret`)
 * plus `webhook.bitbucket.secret` and `webhook.gitea.secret`, and the body size limit from
 * `argocd-cm`'s `webhook.maxPayloadSizeMB` (Argo CD's API server setting, default 50). Argo CD reads
 * its webhook secrets once at start-up; here the settings are re-read at most once a minute, so a
 * rotated secret applies without a restart and unauthenticated requests cannot make the controller
 * call the API more often than that.
 */
import { secretValue, type Secret } from "../api/index.js";
import type { Clock } from "../clock/index.js";
import type { WebhookSecrets } from "./types.js";

/** The Secret Argo CD keeps its webhook secrets in. */
export const ARGOCD_SECRET = "argocd-secret";
/** The ConfigMap Argo CD keeps its settings in. */
export const ARGOCD_CM = "argocd-cm";
/** The `argocd-cm` key of the largest webhook body, in MiB. */
export const MAX_PAYLOAD_KEY = "webhook.maxPayloadSizeMB";
/** Argo CD's default for {@link MAX_PAYLOAD_KEY}. */
export const DEFAULT_MAX_PAYLOAD_MB = 50;

/** Everything the webhook server reads from the cluster. */
export interface WebhookSettings {
  readonly secrets: WebhookSecrets;
  /** Largest body accepted, in bytes. */
  readonly maxPayloadBytes: number;
}

/** What one reading returns: the two objects, each undefined when it does not exist. */
export interface SettingsObjects {
  readonly secret?: Secret | undefined;
  readonly configMapData?: Readonly<Record<string, string>> | undefined;
}

/** The body limit of `argocd-cm`'s data (Argo CD's default when absent or not a positive integer). */
export function maxPayloadBytes(data: Readonly<Record<string, string>> | undefined): number {
  const text = data?.[MAX_PAYLOAD_KEY]?.trim() ?? "";
  const mb = /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : DEFAULT_MAX_PAYLOAD_MB;
  return mb * 1024 * 1024;
}

/** The settings held by the two objects. */
export function settingsFrom(objects: SettingsObjects): WebhookSettings {
  return { secrets: secretsFrom(objects.secret), maxPayloadBytes: maxPayloadBytes(objects.configMapData) };
}

/** The `argocd-secret` keys, by field of {@link WebhookSecrets}. */
export const SECRET_KEYS = {
  github: "webhook.github.secret",
  gitlab: "webhook.gitlab.secret",
  azureUsername: "webhook.azuredevops.username",
  azurePassword: "webhook.azuredevops.password",
  bitbucketServer: "webhook.bitbucketserver.secret",
  bitbucketUuid: "webhook.bitbucket.uuid",
  bitbucketSecret: "webhook.bitbucket.secret",
  gitea: "webhook.gitea.secret",
  gogs: "webhook.gogs.secret",
} as const;

/** The webhook secrets held by `secret` (absent or empty keys are not configured). */
export function secretsFrom(secret: Secret | undefined): WebhookSecrets {
  const get = (key: string): string | undefined => {
    const v = secret === undefined ? undefined : secretValue(secret, key)?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const username = get(SECRET_KEYS.azureUsername);
  const password = get(SECRET_KEYS.azurePassword);
  const entries: Array<[keyof WebhookSecrets, WebhookSecrets[keyof WebhookSecrets]]> = [
    ["github", get(SECRET_KEYS.github)],
    ["gitlab", get(SECRET_KEYS.gitlab)],
    ["azureDevOps", username === undefined && password === undefined ? undefined : { username: username ?? "", password: password ?? "" }],
    ["bitbucketServer", get(SECRET_KEYS.bitbucketServer)],
    ["bitbucketUuid", get(SECRET_KEYS.bitbucketUuid)],
    ["bitbucketSecret", get(SECRET_KEYS.bitbucketSecret)],
    ["gitea", get(SECRET_KEYS.gitea) ?? get(SECRET_KEYS.gogs)],
  ];
  const out: WebhookSecrets = Object.fromEntries(entries.filter(([, v]) => v !== undefined));
  return out;
}

/** Options of {@link cachedSettings}. */
export interface CachedSettingsOptions {
  /** Reads `argocd-secret` and `argocd-cm`. */
  read: () => Promise<SettingsObjects>;
  clock: Clock;
  /** How long a reading is used (default 60 s). */
  ttlMs?: number;
  /** Called when a read fails; the previous reading (or the defaults) stays in use. */
  onError?: (err: unknown) => void;
}

/** The settings, read through `read` at most once per `ttlMs`; a failed read keeps the last good one. */
export function cachedSettings(opts: CachedSettingsOptions): () => Promise<WebhookSettings> {
  const ttl = opts.ttlMs ?? 60_000;
  let value: WebhookSettings = settingsFrom({});
  let readAt: number | undefined;
  let inflight: Promise<WebhookSettings> | undefined;
  return () => {
    if (readAt !== undefined && opts.clock.now() - readAt < ttl) return Promise.resolve(value);
    inflight ??= opts
      .read()
      .then((o) => (value = settingsFrom(o)))
      .catch((err: unknown) => {
        opts.onError?.(err);
        return value;
      })
      .finally(() => {
        readAt = opts.clock.now();
        inflight = undefined;
      });
    return inflight;
  };
}
