/**
 * One git command with what reaching its remote takes: the host files that exist at that moment
 * (the known hosts file and the CA bundle of an HTTPS remote, so an update of Argo CD's mounted
 * ConfigMaps applies at once), the caller's credentials (GitHub App credentials exchanged for an
 * installation token first, through the repository's proxy and TLS settings and the CA bundle of
 * the App's API host), the time limit and the caller's signal. A refused host key gets a hint
 * of where host keys come from. Commands on the cache repository alone reach no host and get no
 * host files.
 */
import type { Clock } from "../clock/index.js";
import { AppSetError } from "../errors.js";
import { prepareGitAuth, TOKEN_USER, type GitHostOptions, type GitHubAppCredentials, type RepoCredentials } from "./credentials.js";
import { redact, runGit } from "./exec.js";
import { caBundleFile, existing, remoteOf, withHostKeyHint } from "./host-access.js";

/** One GitHub App token exchange: for reading `repoURL` (the organisation is its first path segment). */
export interface GitHubAppTokenRequest {
  readonly app: GitHubAppCredentials;
  readonly repoURL: string;
  /** The repository's credentials: the exchange takes its proxy, noProxy, insecure and client certificate. */
  readonly creds: RepoCredentials;
  /** The CA bundle mounted now for the App's API host (Argo CD's `argocd-tls-certs-cm`), if any. */
  readonly caFile?: string;
}

/** An installation token of a GitHub App, through the repository's HTTP settings. */
export type GitHubAppTokenSource = (req: GitHubAppTokenRequest, signal?: AbortSignal) => Promise<string>;

/** The API root of GitHub App credentials without `githubAppEnterpriseBaseUrl`. */
export const GITHUB_API_URL = "https://api.github.com";

/** Reason of GitHub App credentials that cannot be exchanged for a token. */
export const GITHUB_APP_REASON = "GitHubAppTokenError";

/** What {@link GitRunner} needs (the reader's options of the same names). */
export interface GitRunnerOptions {
  /** The scrubbed base environment of every git command. */
  readonly env: Readonly<Record<string, string>>;
  readonly knownHostsFile?: string;
  readonly tlsCertsDir?: string;
  readonly githubAppToken?: GitHubAppTokenSource;
  readonly timeoutMs?: number;
  readonly clock: Clock;
}

/** Where and with what a command runs. */
export interface RunAt {
  readonly cwd?: string;
  readonly input?: string;
  /** The credentials of the command's remote (none: anonymous, or a command that reaches no remote). */
  readonly creds?: RepoCredentials | undefined;
  /** This command's time limit in ms, instead of the runner's (0: none). */
  readonly timeoutMs?: number;
}

/** Runs git commands as {@link GitRunnerOptions} say. */
export class GitRunner {
  constructor(private readonly opts: GitRunnerOptions) {}

  async run(args: string[], signal: AbortSignal | undefined, at: RunAt = {}): Promise<Buffer> {
    const { cwd, input } = at;
    const timeoutMs = at.timeoutMs ?? this.opts.timeoutMs;
    const creds = await this.tokenCreds(at.creds, args, signal);
    const env = await prepareGitAuth(creds, await this.hostOptions(args));
    try {
      return await runGit(this.opts.env, args, {
        env: env.env,
        secrets: env.secrets,
        clock: this.opts.clock,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(cwd === undefined ? {} : { cwd }),
        ...(signal === undefined ? {} : { signal }),
        ...(input === undefined ? {} : { input }),
      });
    } catch (err) {
      throw withHostKeyHint(err);
    } finally {
      await env.cleanup();
    }
  }

  /** The host files that exist now: known hosts, and the CA bundle of the command's HTTPS remote. */
  private async hostOptions(args: readonly string[]): Promise<GitHostOptions> {
    const remote = remoteOf(args);
    // Commands on the cache repository alone (init, ls-tree, cat-file) reach no host.
    if (remote === "") return {};
    const knownHostsFile = await existing(this.opts.knownHostsFile);
    const caFile = await caBundleFile(this.opts.tlsCertsDir, remote);
    return { remote, ...(knownHostsFile === undefined ? {} : { knownHostsFile }), ...(caFile === undefined ? {} : { caFile }) };
  }

  /** GitHub App credentials exchanged for an installation token (user `x-access-token`); others unchanged. */
  private async tokenCreds(
    creds: RepoCredentials | undefined,
    args: readonly string[],
    signal?: AbortSignal,
  ): Promise<RepoCredentials | undefined> {
    const app = creds?.githubApp;
    if (app === undefined) return creds;
    const repoURL = remoteOf(args);
    if (this.opts.githubAppToken === undefined) {
      throw new AppSetError(GITHUB_APP_REASON, `GitHub App credentials for ${redact(repoURL)} cannot be used here: no token exchange`);
    }
    const caFile = await caBundleFile(this.opts.tlsCertsDir, app.enterpriseBaseUrl ?? GITHUB_API_URL);
    let token: string;
    try {
      token = await this.opts.githubAppToken({ app, repoURL, creds: creds!, ...(caFile === undefined ? {} : { caFile }) }, signal);
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw new AppSetError(GITHUB_APP_REASON, `failed to get a GitHub App installation token for ${redact(repoURL)}: ${detail}`);
    }
    const { githubApp: _app, ...rest } = creds!;
    return { ...rest, username: TOKEN_USER, password: token };
  }
}
