/**
 * Which repositories an AppProject lets its Applications use (`spec.sourceRepos`): each entry and
 * the URL are normalised as Argo CD does (`NormalizeGitURL`: lower case, `.git` dropped, scp-like
 * URLs rewritten), entries are globs in which `*` stays within one `/` segment and `**` crosses
 * them, a bare `*` allows every repository, and a `!` entry that matches the URL denies it
 * whatever else allows it. Pure core: facts from Argo CD v3.6.2 (`AppProject.IsSourcePermitted`).
 */
import type { AppProject } from "../api/appproject.js";
import { normalizeGitURL } from "../git/url.js";
import { isDenyPattern, negatableMatch } from "./patterns.js";

/** An entry of `sourceRepos` in the normalised form it is matched in. */
function normalizedEntry(entry: string): string {
  return isDenyPattern(entry) ? `!${normalizeGitURL(entry.slice(1))}` : normalizeGitURL(entry);
}

/**
 * True when the project allows `repoURL`: some entry of `spec.sourceRepos` matches it and no `!`
 * entry matches it. An empty or absent list allows nothing.
 */
export function isSourcePermitted(project: Pick<AppProject, "spec">, repoURL: string): boolean {
  const source = normalizeGitURL(repoURL);
  let anyMatched = false;
  for (const entry of project.spec.sourceRepos ?? []) {
    const pattern = normalizedEntry(entry);
    if (negatableMatch(pattern, source, "/")) anyMatched = true;
    else if (isDenyPattern(pattern)) return false;
  }
  return anyMatched;
}
