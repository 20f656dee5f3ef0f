/**
 * The process's one Git service: a single {@link GitRepoReader} for the generators and the sync
 * engine alike, on the cache directory of `--git-cache-dir` (shared safely with other processes
 * through a lock per repository), with `--git-revision-cache-seconds` of revision cache and
 * `--repo-server-timeout-seconds` as every git command's time limit (an ls-remote's also bounded by
 * `ARGOCD_GIT_REQUEST_TIMEOUT` and tried again as `ARGOCD_GIT_ATTEMPTS_COUNT`/`ARGOCD_GIT_RETRY_*` say). SSH host keys and HTTPS CAs
 * come from where Argo CD mounts `argocd-ssh-known-hosts-cm` and `argocd-tls-certs-cm`
 * (`ARGOCD_SSH_DATA_PATH`, `ARGOCD_TLS_DATA_PATH`: `gitHostFiles` of src/config/environment.ts);
 * GitHub App credentials are exchanged for installation tokens through the SCM HTTP client, along
 * the repository's own route: its proxy (else `HTTPS_PROXY`/`NO_PROXY`), `insecure`, client
 * certificate and the API host's CA bundle, each token reused for at most
 * `ARGOCD_GITHUB_APP_CREDS_EXPIRATION_DURATION` (src/config/environment.ts).
 */
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import type { Clock } from "../clock/index.js";
import {
  gitHostFiles,
  githubAppCredsExpirationMs,
  gitSubmodulesEnabled,
  processProxy,
  type Config,
  type Env,
  type ProcessProxy,
} from "../config/index.js";
import { baseGitEnv, gitCacheDir, GitRepoReader, type CredentialsLookup, type GitHubAppTokenSource } from "../git/index.js";
import { ScmHttpClient } from "../scm/http.js";
import { proxyTransport } from "../scm/proxy.js";
import { githubBaseUrl } from "../scm/providers/github.js";
import { githubAppToken } from "../scm/providers/github-app.js";
import { repositoryProxy, repositoryTls } from "../scm/providers/github-app-route.js";

/** The organisation of a repository URL (its first path segment), for looking up an App installation. */
export function repoOrganisation(repoURL: string): string {
  const path = /^[a-z][a-z0-9+.-]*:\/\//i.test(repoURL) ? new URL(repoURL).pathname : (repoURL.split(":")[1] ?? "");
  return path.replace(/^\/+/, "").split("/")[0] ?? "";
}

/** How the token exchange runs besides the repository's own settings. */
export interface GitHubAppTokenOptions {
  /** The process's proxy variables, for repositories without a `proxy` of their own. */
  readonly proxy: ProcessProxy;
  /** How long a token is reused at most (`ARGOCD_GITHUB_APP_CREDS_EXPIRATION_DURATION`). */
  readonly maxAgeMs: number;
}

/**
 * GitHub App installation tokens through one SCM HTTP client (tokens reused until near expiry, and
 * no longer than `maxAgeMs`), each exchange sent as the repository is reached: its proxy (else the
 * process's), `insecure`, client certificate, and the CA bundle of the API host, read when the
 * exchange runs.
 */
export function githubAppTokens(http: ScmHttpClient, o: GitHubAppTokenOptions): GitHubAppTokenSource {
  return async (req, signal) => {
    const baseUrl = githubBaseUrl(req.app.enterpriseBaseUrl);
    const ca = req.caFile === undefined || req.creds.insecure === true ? undefined : await readFile(req.caFile, "utf8");
    const target = {
      http,
      provider: "github",
      baseUrl,
      headers: {},
      tls: repositoryTls(req.creds, ca),
      transport: proxyTransport(repositoryProxy(baseUrl, req.creds, o.proxy)),
      ...(signal === undefined ? {} : { signal }),
    };
    return githubAppToken(target, req.app, repoOrganisation(req.repoURL), o.maxAgeMs);
  };
}

/** Builds the process's Git service over repository credentials that follow their Secrets. */
export function gitService(d: { config: Config; env: Env; clock: Clock }, credentials: CredentialsLookup): GitRepoReader {
  const { config } = d;
  return new GitRepoReader({
    cacheDir: gitCacheDir(config.gitCacheDir, tmpdir()),
    env: baseGitEnv(d.env),
    credentials,
    clock: d.clock,
    ...gitReaderHosts(d.env, d.clock),
    submodules: config.gitSubmodules,
    localRepositories: config.allowLocalRepositories,
    revisionCacheMs: config.gitRevisionCacheSeconds * 1000,
    ...(config.repoServerTimeoutSeconds > 0 ? { timeoutMs: config.repoServerTimeoutSeconds * 1000 } : {}),
    lsRemoteTimeoutMs: config.gitRequestTimeoutMs,
    lsRemoteRetry: {
      attempts: config.gitAttempts,
      delayMs: config.gitRetryDurationMs,
      factor: config.gitRetryFactor,
      maxDelayMs: config.gitRetryMaxDurationMs,
    },
  });
}

/**
 * The Git reader of the offline commands (`appset generate`, the rollout preview): the host files
 * and GitHub App token exchange of {@link gitService}; local repositories read (the user's own
 * disk), relative paths resolved against `baseDir`.
 */
export function offlineGitReader(o: {
  env: Env;
  clock: Clock;
  cacheDir: string;
  credentials: CredentialsLookup;
  baseDir: string;
}): GitRepoReader {
  const { env, clock, ...rest } = o;
  return new GitRepoReader({ ...gitReaderHosts(env, clock), ...rest, env: baseGitEnv(env), localRepositories: true });
}

/** The host files and the GitHub App token exchange of a reader. */
function gitReaderHosts(
  env: Env,
  clock: Clock,
): { knownHostsFile: string; tlsCertsDir: string; submodules: boolean; githubAppToken: GitHubAppTokenSource } {
  const tokens = githubAppTokens(new ScmHttpClient({ clock }), { proxy: processProxy(env), maxAgeMs: githubAppCredsExpirationMs(env) });
  return { ...gitHostFiles(env), submodules: gitSubmodulesEnabled(env), githubAppToken: tokens };
}
