/**
 * How Argo CD words the Git generator's failures to resolve a revision, which users grep and alert
 * on: its repo-server answers over gRPC (`rpc error: code = Internal desc = unable to resolve git
 * revision : …`, the revision printed empty), with go-git's words for a repository it cannot list.
 * Pure.
 */
import { errorMessage } from "../errors.js";
import { REVISION_NOT_FOUND_REASON } from "../git/index.js";

/** go-git's words for what `git ls-remote` said, where they differ from git's. */
function listRefsCause(gitMessage: string): string {
  if (/does not appear to be a git repository|repository '.*' not found|Repository not found|No such file or directory/i.test(gitMessage))
    return "repository not found";
  if (/Authentication failed|could not read Username|terminal prompts disabled|Permission denied \(publickey/i.test(gitMessage))
    return "authentication required";
  return gitMessage.replace(/^git ls-remote: /, "");
}

/** A failure to resolve `revision`, as the repo-server reports it. */
export function revisionError(err: unknown, revision: string): string {
  const reason = (err as { reason?: string }).reason;
  const cause =
    reason === REVISION_NOT_FOUND_REASON
      ? `unable to resolve '${revision}' to a commit SHA: revision not found`
      : `failed to list refs: ${listRefsCause(errorMessage(err))}`;
  return `rpc error: code = Internal desc = unable to resolve git revision : ${cause}`;
}
