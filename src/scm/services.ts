/**
 * The long-lived SCM services shared by the SCM Provider and Pull Request generators: settings
 * (the `--enable-scm-providers`, `--allowed-scm-providers`, `--token-ref-strict-mode` flags and
 * the token fallbacks from the environment, resolved by the caller), the reader of the
 * ApplicationSet namespace's Secrets and ConfigMaps, and one {@link ScmHttpClient} whose caches and
 * backoffs outlive each reconcile. Also the gatekeeping both generators run before any API call.
 */
import type { ScmLimits } from "./limits.js";
import type { Clock } from "../clock/index.js";
import type { ScmEnvTokens } from "../config/index.js";
import type { AwsSettings } from "./aws/client.js";
import type { NamespacedObjects } from "./credentials.js";
import { ScmHttpClient, type ScmObserver } from "./http.js";
import type { HttpTimeouts } from "./timeouts.js";
import type { Transport } from "./transport.js";

/** Controller-wide SCM settings. */
export interface ScmSettings {
  /** `--enable-scm-providers` (default true). */
  readonly enabled: boolean;
  /** `--allowed-scm-providers`: custom API URLs allowed (empty: all). */
  readonly allowedProviders: readonly string[];
  /** `--token-ref-strict-mode`: referenced Secrets must be labelled scm-creds. */
  readonly tokenRefStrictMode: boolean;
  /** `GITHUB_TOKEN`, `GITLAB_TOKEN`, `GITEA_TOKEN` (src/config's `scmEnvTokens`): used when a provider has no token. */
  readonly envTokens: ScmEnvTokens;
  /** How long a provider may reuse a repository's branches while its listing entry is unchanged (ms). */
  readonly branchMemoMs: number;
  /** Bitbucket Cloud API root (fixed by Argo CD; settable for tests and proxies). */
  readonly bitbucketCloudApi: string;
  /** AWS credentials, region and endpoint overrides (AWS CodeCommit), from the standard environment variables. */
  readonly aws: AwsSettings;
}

/** Argo CD's defaults. */
export const DEFAULT_SCM_SETTINGS: ScmSettings = {
  enabled: true,
  allowedProviders: [],
  tokenRefStrictMode: false,
  envTokens: {},
  branchMemoMs: 60 * 60_000,
  bitbucketCloudApi: "https://api.bitbucket.org/2.0",
  aws: {},
};

/** Options of {@link ScmServices}. */
export interface ScmServicesOptions {
  readonly settings?: Partial<ScmSettings>;
  /** Reader of the ApplicationSet namespace's Secrets and ConfigMaps. */
  readonly objects?: NamespacedObjects;
  /** A ready client; else one is made on first use with the generator's clock. */
  readonly http?: ScmHttpClient;
  readonly transport?: Transport;
  readonly observer?: ScmObserver;
  /** PEM text of `--scm-root-ca-path`. */
  readonly rootCa?: string;
  /** Connect and total limits of every provider request (default 10 s and 60 s). */
  readonly timeouts?: Partial<HttpTimeouts>;
  /** `User-Agent` of every provider request (the controller's, `argocd-applicationset-controller/v<version> (<os>/<arch>)`). */
  readonly userAgent?: string;
  /** Largest answer and most pages of a listing (default 10 MiB and 1,000). */
  readonly limits?: Partial<ScmLimits>;
}

/** The SCM services (create one per controller; both generators share it). */
export class ScmServices {
  readonly settings: ScmSettings;
  readonly objects: NamespacedObjects | undefined;
  private client: ScmHttpClient | undefined;

  constructor(private readonly options: ScmServicesOptions = {}) {
    this.settings = { ...DEFAULT_SCM_SETTINGS, ...options.settings };
    this.objects = options.objects;
    this.client = options.http;
  }

  /** The HTTP client (made on first use). */
  http(clock: Clock): ScmHttpClient {
    this.client ??= new ScmHttpClient({
      clock,
      ...(this.options.transport === undefined ? {} : { transport: this.options.transport }),
      ...(this.options.observer === undefined ? {} : { observer: this.options.observer }),
      ...(this.options.rootCa === undefined ? {} : { rootCa: this.options.rootCa }),
      ...(this.options.timeouts === undefined ? {} : { timeouts: this.options.timeouts }),
      ...(this.options.userAgent === undefined ? {} : { userAgent: this.options.userAgent }),
      ...(this.options.limits === undefined ? {} : { limits: this.options.limits }),
    });
    return this.client;
  }
}

/** Argo CD's ErrDisallowedSCMProvider text. */
export function disallowedMessage(url: string, allowed: readonly string[]): string {
  return `scm provider ${JSON.stringify(url)} not allowed, must use one of the following: ${allowed.join(", ")}`;
}

/**
 * The gatekeeping before any API call: disabled providers, then the allow-list (an exact string
 * compare of the custom API URL; no URL or an empty list always passes). Throws Argo CD's text.
 */
export function checkScmAllowed(settings: ScmSettings, customApiUrl: string | undefined): void {
  if (!settings.enabled) throw new Error("scm providers are disabled");
  const url = customApiUrl ?? "";
  if (url === "" || settings.allowedProviders.length === 0 || settings.allowedProviders.includes(url)) return;
  throw new Error(`scm provider not allowed: ${disallowedMessage(url, settings.allowedProviders)}`);
}
