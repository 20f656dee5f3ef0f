/**
 * Shared Git access over the real `git` program: revision resolution (`ls-remote`), shallow
 * fetches into bare cache repositories, tree listing and blob reads with an in-memory cache by
 * commit, Argo CD-style repository credentials, and the path globbing dialects of the Git
 * generator. I/O boundary: child processes (`git`, and `ssh` through it), the cache directory, and
 * the network those reach. Used by the generators today and by the sync engine's sources later.
 */
export { GitCommandError, GIT_ERROR_REASON, baseGitEnv, redact, runGit, type GitExecOptions } from "./exec.js";
export {
  credentialsFromSecrets,
  noCredentials,
  normalizeRepoURL,
  prepareGitAuth,
  type CredentialsLookup,
  type GitAuth,
  type GitHostOptions,
  type RepoAccess,
  type RepoCredentials,
} from "./credentials.js";
export {
  GitRepoReader,
  isRelativeLocalPath,
  REVISION_NOT_FOUND_REASON,
  parseLsRemote,
  parseLsTree,
  pickRef,
  type GitReader,
  type GitRepoReaderOptions,
  type GitStats,
  type TreeEntry,
} from "./reader.js";
export { BadPatternError, compileDoublestar, compilePathMatch, compilePathspec } from "./glob.js";
