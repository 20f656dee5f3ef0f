/**
 * The process's one Git service: a single {@link GitRepoReader} for the generators and the sync
 * engine alike, on the cache directory of `--git-cache-dir` (shared safely with other processes
 * through a lock per repository), with `--git-revision-cache-seconds` of revision cache and
 * `--repo-server-timeout-seconds` as every git command's time limit. SSH host keys and HTTPS CAs
 * come from where Argo CD mounts `argocd-ssh-known-hosts-cm` and `argocd-tls-certs-cm`
 * (`ARGOCD_SSH_DATA_PATH`, `ARGOCD_TLS_DATA_PATH`); GitHub App credentials are exchanged for
 * installation tokens through the SCM HTTP client.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../clock/index.js";
import type { Config, Env } from "../config/index.js";
import { parseEnvBool } from "../config/values.js";
import { baseGitEnv, gitCacheDir, GitRepoReader, type CredentialsLookup, type GitHubAppTokenSource } from "../git/index.js";
import { ScmHttpClient } from "../scm/http.js";
import { githubBaseUrl } from "../scm/providers/github.js";
import { githubAppToken } from "../scm/providers/github-app.js";

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

/** The organisation of a repository URL (its first path segment), for looking up an App installation. */
export function repoOrganisation(repoURL: string): string {
  const path = /^[a-z][a-z0-9+.-]*:\/\//i.test(repoURL) ? new URL(repoURL).pathname : (repoURL.split(":")[1] ?? "");
  return path.replace(/^\/+/, "").split("/")[0] ?? "";
}

/** GitHub App installation tokens through one SCM HTTP client (tokens reused until near expiry). */
export function githubAppTokens(http: ScmHttpClient): GitHubAppTokenSource {
  return (app, repoURL, signal) =>
    githubAppToken(
      { http, provider: "github", baseUrl: githubBaseUrl(app.enterpriseBaseUrl), headers: {}, ...(signal === undefined ? {} : { signal }) },
      app,
      repoOrganisation(repoURL),
    );
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
  return { ...gitHostFiles(env), submodules: gitSubmodulesEnabled(env), githubAppToken: githubAppTokens(new ScmHttpClient({ clock })) };
}
