/**
 * Shared Git access over the real `git` program: revision resolution (`ls-remote`, kept a few
 * seconds), shallow fetches into bare cache repositories shared safely between processes (a lock
 * per repository), tree listing and blob reads with an in-memory cache by commit, a time limit on
 * every command, Argo CD-style repository credentials, and the path globbing dialects of the Git
 * generator. I/O boundary: child processes (`git`, and `ssh` through it), the cache directory, and
 * the network those reach. Used by the generators today and by the sync engine's sources later.
 */
export { GitCommandError, GIT_ERROR_REASON, baseGitEnv, redact, runGit, type GitExecOptions, type GitFailure } from "./exec.js";
export { CACHE_KEY_FILE, cacheFolderName, cacheKey, gitCacheDir, GIT_CACHE_DIR_NAME } from "./cache-dir.js";
export {
  credentialsFromSecrets,
  noCredentials,
  prepareGitAuth,
  type CredentialsLookup,
  type GitAuth,
  type GitHostOptions,
  type GitHubAppCredentials,
  type RepoAccess,
  type RepoCredentials,
} from "./credentials.js";
export { isLocalRepositoryURL, normalizeGitURL, normalizeGitURLAllowInvalid, sameGitURL } from "./url.js";
export { assertSafeTree, comparePaths, UNSAFE_TREE_PATH_REASON, UnsafeTreePathError, unsafeSegment } from "./tree-paths.js";
export {
  DEFAULT_REVISION_CACHE_MS,
  GitRepoReader,
  GITHUB_APP_REASON,
  tlsServerName,
  type GitHubAppTokenRequest,
  type GitHubAppTokenSource,
  isRelativeLocalPath,
  LOCAL_REPOSITORY_REASON,
  REVISION_NOT_FOUND_REASON,
  parseLsRemote,
  parseLsTree,
  pickRef,
  type GitReader,
  type GitRepoReaderOptions,
  type GitStats,
  type TreeEntry,
} from "./reader.js";
export { caBundleFile } from "./host-access.js";
export { BadPatternError, compileDoublestar, compilePathMatch, compilePathspec } from "./glob.js";
