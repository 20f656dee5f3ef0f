/**
 * The environment variables read outside the settings table (src/config/options.ts): Argo CD's
 * sync engine variables (`ARGOCD_SYNC_WAVE_DELAY`, the self-heal back-off), our sync deadline, the
 * Git host files and submodule switch, the GitHub App token lifetime and the process's proxy
 * variables (for the App's token exchange), the controller's `NAMESPACE`, the SCM token fallbacks, the
 * AWS region, endpoints and credential chain options, and the variables the kubeconfig chain reads.
 * Pure readers of the {@link Env} map the composition root passes in; no I/O.
 */
import { join } from "node:path";
import type { Env } from "./config.js";
import { parseEnvBool } from "./values.js";

/** A positive number of seconds, in ms; unset, empty, invalid or ≤ 0 → undefined. */
function positiveSecondsMs(raw: string | undefined): number | undefined {
  const seconds = raw === undefined || raw.trim() === "" ? 0 : Number(raw);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

/** `ARGOCD_SYNC_WAVE_DELAY` (seconds) in ms; unset or invalid → 0 (we gate waves on observed health). */
export function waveDelayMs(env: Env): number {
  return positiveSecondsMs(env["ARGOCD_SYNC_WAVE_DELAY"]) ?? 0;
}

/**
 * `APPSET_SYNC_DEADLINE_SECONDS`: the per-sync deadline (beyond Argo CD) in ms. A sync still
 * running this long after it started fails with "sync deadline of Ns exceeded". Unset → none.
 */
export function syncDeadlineMs(env: Env): number | undefined {
  return positiveSecondsMs(env["APPSET_SYNC_DEADLINE_SECONDS"]);
}

/**
 * The wait between self-heal syncs of one revision: `initialMs × factor^(n−1)` after the n-th
 * attempt, at most `capMs`; or, with `fixed` (Argo CD with its self-heal back-off turned off), `initialMs`
 * before every attempt (its `--self-heal-timeout-seconds`).
 */
export interface SelfHealBackoff {
  readonly initialMs: number;
  readonly factor: number;
  readonly capMs: number;
  readonly fixed?: boolean;
}

/** A whole number of seconds ≥ 0 from the environment, else `fallback` (Argo CD's `ParseNumFromEnv`). */
function envSeconds(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  const n = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : fallback;
}

/**
 * The self-heal back-off from Argo CD's application-controller variables:
 * `ARGOCD_APPLICATION_CONTROLLER_SELF_HEAL_BACKOFF_TIMEOUT_SECONDS` (2), `_FACTOR` (3) and
 * `_CAP_SECONDS` (300); a timeout of 0 turns the back-off off, and then every self-heal waits
 * `ARGOCD_APPLICATION_CONTROLLER_SELF_HEAL_TIMEOUT_SECONDS` (0) after the last sync finished.
 */
export function selfHealBackoff(env: Env): SelfHealBackoff {
  const prefix = "ARGOCD_APPLICATION_CONTROLLER_SELF_HEAL_";
  const initial = envSeconds(env, `${prefix}BACKOFF_TIMEOUT_SECONDS`, 2);
  if (initial === 0) {
    const timeoutMs = envSeconds(env, `${prefix}TIMEOUT_SECONDS`, 0) * 1000;
    return { initialMs: timeoutMs, factor: 1, capMs: timeoutMs, fixed: true };
  }
  return {
    initialMs: initial * 1000,
    factor: envSeconds(env, `${prefix}BACKOFF_FACTOR`, 3),
    capMs: envSeconds(env, `${prefix}BACKOFF_CAP_SECONDS`, 300) * 1000,
  };
}

/** Argo CD's default of `ARGOCD_SSH_DATA_PATH`, where `argocd-ssh-known-hosts-cm` is mounted. */
export const DEFAULT_SSH_DATA_PATH = "/app/config/ssh";
/** Argo CD's default of `ARGOCD_TLS_DATA_PATH`, where `argocd-tls-certs-cm` is mounted. */
export const DEFAULT_TLS_DATA_PATH = "/app/config/tls";
/** The file of `argocd-ssh-known-hosts-cm` (its one key). */
export const KNOWN_HOSTS_FILE = "ssh_known_hosts";

/** Where the known hosts file and the CA bundles are, from Argo CD's environment variables. */
export function gitHostFiles(env: Env): { knownHostsFile: string; tlsCertsDir: string } {
  const ssh = env["ARGOCD_SSH_DATA_PATH"] ?? "";
  const tls = env["ARGOCD_TLS_DATA_PATH"] ?? "";
  return {
    knownHostsFile: join(ssh === "" ? DEFAULT_SSH_DATA_PATH : ssh, KNOWN_HOSTS_FILE),
    tlsCertsDir: tls === "" ? DEFAULT_TLS_DATA_PATH : tls,
  };
}

/**
 * Whether submodules are read (`ARGOCD_GIT_MODULES_ENABLED`, which Argo CD's install fills from
 * `applicationsetcontroller.enable.git.submodule`): true unless the variable says false. The
 * offline commands' reading; the controller's is the parsed `gitSubmodules` setting, same rule.
 */
export function gitSubmodulesEnabled(env: Env): boolean {
  const parsed = parseEnvBool(env["ARGOCD_GIT_MODULES_ENABLED"] ?? "");
  return parsed.ok ? parsed.value : true;
}

/** Argo CD's default lifetime of a cached GitHub App installation token, in minutes. */
export const DEFAULT_GITHUB_APP_CREDS_MINUTES = 60;

/**
 * `ARGOCD_GITHUB_APP_CREDS_EXPIRATION_DURATION`: how long a GitHub App installation token of a Git
 * repository is reused, in ms. The variable is a whole number of minutes, as Argo CD documents it;
 * unset, empty, not a whole number or below 1 → 60 minutes, Argo CD's default. (Argo CD v3.6 parses
 * it the wrong way round, so a valid value is ignored there and its cache keeps 60 minutes.)
 * A token is never used within a minute of its own expiry, whatever this says.
 */
export function githubAppCredsExpirationMs(env: Env): number {
  const raw = (env["ARGOCD_GITHUB_APP_CREDS_EXPIRATION_DURATION"] ?? "").trim();
  const minutes = /^\d+$/.test(raw) ? Number(raw) : 0;
  return (minutes >= 1 ? minutes : DEFAULT_GITHUB_APP_CREDS_MINUTES) * 60_000;
}

/** The process's proxy variables, as Go's `http.ProxyFromEnvironment` reads them ("" when unset). */
export interface ProcessProxy {
  /** `HTTPS_PROXY`, else `https_proxy`: the proxy of HTTPS requests. */
  readonly httpsProxy: string;
  /** `HTTP_PROXY`, else `http_proxy`: the proxy of plain-HTTP requests. */
  readonly httpProxy: string;
  /** `NO_PROXY`, else `no_proxy`: the hosts that go direct. */
  readonly noProxy: string;
}

/**
 * The process's proxy: the upper-case variable first, as Go reads them. The GitHub App token
 * exchange of a Git repository without a `proxy` of its own goes through it, as Argo CD's does.
 */
export function processProxy(env: Env): ProcessProxy {
  const first = (upper: string | undefined, lower: string | undefined): string =>
    upper !== undefined && upper !== "" ? upper : (lower ?? "");
  return {
    httpsProxy: first(env["HTTPS_PROXY"], env["https_proxy"]),
    httpProxy: first(env["HTTP_PROXY"], env["http_proxy"]),
    noProxy: first(env["NO_PROXY"], env["no_proxy"]),
  };
}

/** `NAMESPACE`: the controller's namespace when neither `--namespace` nor the kubeconfig's context names one. */
export function namespaceFromEnv(env: Env): string | undefined {
  return env["NAMESPACE"];
}

/** The SCM tokens of the environment, each provider's when set and not empty. */
export type ScmEnvTokens = Readonly<Partial<Record<"github" | "gitlab" | "gitea", string>>>;

/** `GITHUB_TOKEN`, `GITLAB_TOKEN` and `GITEA_TOKEN`: the SCM generators' fallbacks when no token is referenced. */
export function scmEnvTokens(env: Env): ScmEnvTokens {
  return {
    ...(env["GITHUB_TOKEN"] ? { github: env["GITHUB_TOKEN"] } : {}),
    ...(env["GITLAB_TOKEN"] ? { gitlab: env["GITLAB_TOKEN"] } : {}),
    ...(env["GITEA_TOKEN"] ? { gitea: env["GITEA_TOKEN"] } : {}),
  };
}

/**
 * The options of the AWS SDK's default credential chain (`fromNodeProviderChain`) taken from the
 * environment map, so the map decides where the SDK accepts an option: `AWS_PROFILE`,
 * `AWS_SHARED_CREDENTIALS_FILE`, `AWS_CONFIG_FILE`, `AWS_WEB_IDENTITY_TOKEN_FILE`, `AWS_ROLE_ARN`,
 * `AWS_ROLE_SESSION_NAME`, `AWS_CONTAINER_CREDENTIALS_FULL_URI` / `_RELATIVE_URI`,
 * `AWS_CONTAINER_AUTHORIZATION_TOKEN` / `_FILE`. The SDK still reads the process environment itself
 * for what it takes no option for: the static keys (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_SESSION_TOKEN`, `AWS_CREDENTIAL_EXPIRATION`), whether the container endpoint is set at all,
 * and the instance metadata switches (`AWS_EC2_METADATA_DISABLED`, `AWS_EC2_METADATA_SERVICE_ENDPOINT`...).
 */
export function awsChainOptions(env: Env): Record<string, string> {
  const names = {
    profile: "AWS_PROFILE",
    filepath: "AWS_SHARED_CREDENTIALS_FILE",
    configFilepath: "AWS_CONFIG_FILE",
    webIdentityTokenFile: "AWS_WEB_IDENTITY_TOKEN_FILE",
    roleArn: "AWS_ROLE_ARN",
    roleSessionName: "AWS_ROLE_SESSION_NAME",
    awsContainerCredentialsFullUri: "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    awsContainerCredentialsRelativeUri: "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    awsContainerAuthorizationToken: "AWS_CONTAINER_AUTHORIZATION_TOKEN",
    awsContainerAuthorizationTokenFile: "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
  };
  return Object.fromEntries(Object.entries(names).flatMap(([opt, name]) => (env[name] ? [[opt, env[name]]] : [])));
}

/** Where AWS calls go: the region, and the endpoint overrides of the services the CodeCommit provider calls. */
export interface AwsRegionAndEndpoints {
  readonly region?: string;
  readonly endpoints: Readonly<Partial<Record<"codecommit" | "tagging" | "sts", string>>>;
}

/**
 * `AWS_REGION` (else `AWS_DEFAULT_REGION`), and the endpoint overrides `AWS_ENDPOINT_URL_CODECOMMIT`,
 * `AWS_ENDPOINT_URL_RESOURCE_GROUPS_TAGGING_API`, `AWS_ENDPOINT_URL_STS` (each else
 * `AWS_ENDPOINT_URL`), as the AWS SDKs name them; empty values count as unset.
 */
export function awsRegionAndEndpoints(env: Env): AwsRegionAndEndpoints {
  const v = (k: string): string | undefined => (env[k] === undefined || env[k] === "" ? undefined : env[k]);
  const region = v("AWS_REGION") ?? v("AWS_DEFAULT_REGION");
  const endpoint = (service: string): string | undefined => v(`AWS_ENDPOINT_URL_${service}`) ?? v("AWS_ENDPOINT_URL");
  const endpoints = { codecommit: endpoint("CODECOMMIT"), tagging: endpoint("RESOURCE_GROUPS_TAGGING_API"), sts: endpoint("STS") };
  return {
    ...(region === undefined ? {} : { region }),
    endpoints: Object.fromEntries(Object.entries(endpoints).filter(([, e]) => e !== undefined)),
  };
}

/** What the kubeconfig chain reads of the environment; "" where a variable is unset. */
export interface KubeEnvironment {
  /** `KUBECONFIG`: kubeconfig files joined by the path delimiter. */
  readonly kubeconfig: string;
  /** `HOME`: where `~/.kube/config` is looked for (empty: the user's home directory). */
  readonly home: string;
  /** `KUBERNETES_SERVICE_HOST`: the apiserver's address inside a cluster. */
  readonly serviceHost: string;
  /** `KUBERNETES_SERVICE_PORT`: the apiserver's port inside a cluster. */
  readonly servicePort: string;
}

/** The variables of the kubeconfig chain (`KUBECONFIG`, `HOME`, `KUBERNETES_SERVICE_HOST`/`_PORT`). */
export function kubeEnvironment(env: Env): KubeEnvironment {
  return {
    kubeconfig: env["KUBECONFIG"] ?? "",
    home: env["HOME"] ?? "",
    serviceHost: env["KUBERNETES_SERVICE_HOST"] ?? "",
    servicePort: env["KUBERNETES_SERVICE_PORT"] ?? "",
  };
}
