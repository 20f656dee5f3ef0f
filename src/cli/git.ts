/**
 * The process's one Git service: a single {@link GitRepoReader} for the generators and the sync
 * engine alike, on the cache directory of `--git-cache-dir` (shared safely with other processes
 * through a lock per repository), with `--git-revision-cache-seconds` of revision cache and
 * `--repo-server-timeout-seconds` as every git command's time limit.
 */
import { tmpdir } from "node:os";
import type { Clock } from "../clock/index.js";
import type { Config, Env } from "../config/index.js";
import { baseGitEnv, gitCacheDir, GitRepoReader, type CredentialsLookup } from "../git/index.js";

/** Builds the process's Git service over repository credentials that follow their Secrets. */
export function gitService(d: { config: Config; env: Env; clock: Clock }, credentials: CredentialsLookup): GitRepoReader {
  const { config } = d;
  return new GitRepoReader({
    cacheDir: gitCacheDir(config.gitCacheDir, tmpdir()),
    env: baseGitEnv(d.env),
    credentials,
    clock: d.clock,
    revisionCacheMs: config.gitRevisionCacheSeconds * 1000,
    ...(config.repoServerTimeoutSeconds > 0 ? { timeoutMs: config.repoServerTimeoutSeconds * 1000 } : {}),
  });
}
