/**
 * The Git reader's port (what the generators and the sync engine depend on), its counters and its
 * options with their defaults. Types and constants only; the reader is `reader.ts`.
 */
import type { Clock } from "../clock/index.js";
import type { CredentialsLookup, RepoAccess } from "./credentials.js";
import type { TreeEntry } from "./git-output.js";
import type { GitRetryPolicy } from "./retry.js";
import type { GitHubAppTokenSource } from "./runner.js";

/** Reason of a revision that names no branch, tag or commit of the repository. */
export const REVISION_NOT_FOUND_REASON = "RevisionNotFound";

/**
 * Reads repositories at a commit. The generators depend on this port only. `access` says on whose
 * behalf (default: no project, so only unscoped credentials).
 */
export interface GitReader {
  /** Resolves a branch, tag, `HEAD` (or ""), full ref or commit SHA to a commit SHA. */
  resolveRevision(repoURL: string, revision: string, signal?: AbortSignal, access?: RepoAccess): Promise<string>;
  /** Every entry of the commit's tree, recursively, directories included, in git's order. */
  listTree(repoURL: string, commit: string, signal?: AbortSignal, access?: RepoAccess): Promise<readonly TreeEntry[]>;
  /** The content of blobs of the commit, in the order asked. */
  readBlobs(repoURL: string, commit: string, entries: readonly TreeEntry[], signal?: AbortSignal, access?: RepoAccess): Promise<Buffer[]>;
  /**
   * Forgets the revisions resolved for a repository (compared as Argo CD compares repository
   * URLs), so the next {@link resolveRevision} asks the remote: a webhook push, a hard refresh.
   */
  invalidate?(repoURL: string): void;
}

/** Counters of the git commands run (what the cache saves is visible here). */
export interface GitStats {
  /** `ls-remote` commands run. */
  lsRemote: number;
  /** Revisions resolved without running one: kept from a recent `ls-remote`, or sharing one in flight. */
  lsRemoteCached: number;
  fetch: number;
  lsTree: number;
  catFile: number;
}

/** Options of {@link GitRepoReader}. */
export interface GitRepoReaderOptions {
  /** Where the bare cache repositories live (one per repository URL). */
  readonly cacheDir: string;
  /** The scrubbed base environment of every git command (see `baseGitEnv`). */
  readonly env: Readonly<Record<string, string>>;
  readonly credentials?: CredentialsLookup;
  /**
   * The SSH known_hosts file (`GitHostOptions.knownHostsFile`, Argo CD's
   * `$ARGOCD_SSH_DATA_PATH/ssh_known_hosts`), looked up before every command so that an update of
   * the mounted ConfigMap applies at once; unset or absent: ssh's default files.
   */
  readonly knownHostsFile?: string;
  /**
   * The directory of CA bundles named after the HTTPS hosts they verify (Argo CD's
   * `argocd-tls-certs-cm` mounted at `$ARGOCD_TLS_DATA_PATH`), looked up before every command.
   */
  readonly tlsCertsDir?: string;
  /**
   * Expand submodules into the tree (`ARGOCD_GIT_MODULES_ENABLED`, as a checkout with
   * `git submodule update --init --recursive`): a submodule's path becomes a directory holding its
   * commit's entries. Default false: a submodule stays one `commit` entry.
   */
  readonly submodules?: boolean;
  /** Exchanges GitHub App credentials for an installation token; unset: such credentials fail. */
  readonly githubAppToken?: GitHubAppTokenSource;
  /** Trees kept in memory (default 256 commits). */
  readonly maxTrees?: number;
  /** Blobs kept in memory (default 50 000). */
  readonly maxBlobs?: number;
  /** Most bytes of blobs kept in memory (default 256 MiB); the oldest go first. */
  readonly maxBlobBytes?: number;
  /**
   * Read repositories named by a local path or a `file://` URL (the offline commands, and
   * `--allow-local-repositories`). Default false: such a URL is refused before git runs, and git's
   * protocol allow-list leaves out `file`, so neither a repository nor a submodule of one can read
   * this machine's disk (another team's Git cache included).
   */
  readonly localRepositories?: boolean;
  /**
   * The directory relative local paths (`./repo`) are resolved against (the working directory of
   * `appset generate`). Unset (the controller): such a URL is refused, as git in Argo CD's repo
   * server would not find it either.
   */
  readonly baseDir?: string;
  /**
   * The time limit of every git command, in ms, and of the wait for a cache repository's lock.
   * It stands for the time Argo CD gives one call of its repo server, which runs these commands
   * there: the CLI passes `--repo-server-timeout-seconds` × 1000. Unset or 0: no limit.
   */
  readonly timeoutMs?: number;
  /**
   * How long what `ls-remote` returned is kept, in ms (default 3000; 0: not kept, each resolution
   * asks the remote). Kept per repository URL and credentials, so it never answers a caller whose
   * credentials the remote has not accepted.
   */
  readonly revisionCacheMs?: number;
  /**
   * The time limit of one `ls-remote`, in ms (Argo CD's `ARGOCD_GIT_REQUEST_TIMEOUT`); the shorter of
   * it and {@link timeoutMs} applies. Unset or 0: {@link timeoutMs} alone.
   */
  readonly lsRemoteTimeoutMs?: number;
  /** How a failing `ls-remote` is tried again (Argo CD's `ARGOCD_GIT_ATTEMPTS_COUNT`, `ARGOCD_GIT_RETRY_*`); default: once. */
  readonly lsRemoteRetry?: GitRetryPolicy;
  /** Measures the revision cache's interval and the time limits (default: the system clock). */
  readonly clock?: Clock;
}

/** Default of {@link GitRepoReaderOptions.revisionCacheMs}. */
export const DEFAULT_REVISION_CACHE_MS = 3000;

/** Default byte budget of the blob cache: 256 MiB. */
export const DEFAULT_BLOB_CACHE_BYTES = 256 * 1024 * 1024;
