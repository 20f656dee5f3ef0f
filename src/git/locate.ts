/**
 * Which repository URLs a reader reads, and where git finds them: local paths and `file://` URLs
 * only where local repositories are read (the offline commands, `--allow-local-repositories`),
 * relative paths resolved against the base directory, and git's protocol allow-list to match
 * (docs/security.md#repository-urls). Pure.
 */
import { resolve } from "node:path";
import { AppSetError } from "../errors.js";
import { GitCommandError } from "./exec.js";
import { isLocalRepositoryURL, isRelativeLocalPath } from "./url.js";

/** Reason of a repository URL that names this machine's disk, refused outside the offline commands. */
export const LOCAL_REPOSITORY_REASON = "LocalRepositoryRefused";

/** git's protocol allow-list (`GIT_ALLOW_PROTOCOL`): the network transports, and `file` where local repositories are read. */
export function allowedProtocols(local: boolean): string {
  return local ? "https:http:ssh:git:file" : "https:http:ssh:git";
}

/** Where local repositories are read from, if at all (the reader's options of the same names). */
export interface LocalRepositories {
  readonly localRepositories?: boolean;
  readonly baseDir?: string;
}

/**
 * Where git finds `repoURL` from any working directory: a relative local path resolved against
 * `baseDir` (git runs some commands inside the cache); anything else unchanged. Refuses a local
 * path or `file://` URL unless local repositories are read, and a relative one without `baseDir`.
 */
export function locateRepository(repoURL: string, opts: LocalRepositories): string {
  if (opts.localRepositories !== true && isLocalRepositoryURL(repoURL)) {
    throw new AppSetError(
      LOCAL_REPOSITORY_REASON,
      `repository URL ${JSON.stringify(repoURL)} names a local path or a file:// URL, which this controller does not read; use an https, ssh or git URL`,
    );
  }
  if (!isRelativeLocalPath(repoURL)) return repoURL;
  if (opts.baseDir === undefined) {
    throw new GitCommandError(
      `repository URL ${JSON.stringify(repoURL)} is a relative local path; use a URL or an absolute path`,
      undefined,
    );
  }
  return resolve(opts.baseDir, repoURL);
}
