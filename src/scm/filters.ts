/**
 * The filters of the SCM Provider and Pull Request generators, with Argo CD's semantics (RE2
 * regular expressions, which match anywhere in the string unless anchored).
 *
 * SCM Provider: each filter is the AND of the conditions it sets, filters are OR'd. A filter with
 * only `repositoryMatch` / `labelMatch` is a repository filter; one with any of `branchMatch`,
 * `pathsExist`, `pathsDoNotExist` is a branch filter, and all of its conditions (repository ones
 * included) are checked per branch. Repositories are kept when they match at least one repository
 * filter (if there are any), then expanded to branches, which are kept when they match at least
 * one branch filter (if there are any). So a repository-only and a branch-only filter end up
 * AND'ed. A filter with no conditions is ignored. Paths lose a trailing `/`; a label filter passes
 * when any label matches.
 *
 * Pull Request: `branchMatch` (source branch), `targetBranchMatch`, `titleMatch` AND'ed within a
 * filter, filters OR'd, no filters keep everything.
 */
import type { RE2JS } from "re2js";
import { compileRe2js } from "../re2.js";
import type { PullRequestFilter, ScmProviderFilter } from "../api/index.js";
import { errorMessage } from "../errors.js";
import type { PullRequest, Repository, ScmProviderService } from "./types.js";
import { trimTrailingSlashes } from "../trim.js";

function compile(field: string, pattern: string | undefined): RE2JS | undefined {
  if (pattern === undefined) return undefined;
  try {
    return compileRe2js(pattern);
  } catch (err) {
    throw new Error(`error compiling ${field} regexp ${JSON.stringify(pattern)}: ${errorMessage(err)}`, { cause: err });
  }
}

/** A compiled SCM filter. */
export interface CompiledScmFilter {
  readonly repositoryMatch?: RE2JS;
  readonly labelMatch?: RE2JS;
  readonly branchMatch?: RE2JS;
  readonly pathsExist: readonly string[];
  readonly pathsDoNotExist: readonly string[];
  readonly kind: "repo" | "branch" | "none";
}

/** Compiles SCM filters; a bad regular expression throws Argo CD's message. */
export function compileScmFilters(filters: readonly ScmProviderFilter[] | undefined): CompiledScmFilter[] {
  return (filters ?? []).map((f) => {
    const repositoryMatch = compile("RepositoryMatch", f.repositoryMatch);
    const labelMatch = compile("LabelMatch", f.labelMatch);
    const branchMatch = compile("BranchMatch", f.branchMatch);
    const isBranch = f.pathsExist !== undefined || f.pathsDoNotExist !== undefined || branchMatch !== undefined;
    const isRepo = repositoryMatch !== undefined || labelMatch !== undefined;
    return {
      ...(repositoryMatch === undefined ? {} : { repositoryMatch }),
      ...(labelMatch === undefined ? {} : { labelMatch }),
      ...(branchMatch === undefined ? {} : { branchMatch }),
      pathsExist: f.pathsExist ?? [],
      pathsDoNotExist: f.pathsDoNotExist ?? [],
      kind: isBranch ? "branch" : isRepo ? "repo" : "none",
    };
  });
}

function repoConditionsMatch(f: CompiledScmFilter, repo: Repository): boolean {
  if (f.repositoryMatch !== undefined && !f.repositoryMatch.matcher(repo.repository).find()) return false;
  if (f.labelMatch !== undefined) {
    const re = f.labelMatch;
    if (!repo.labels.some((l) => re.matcher(l).find())) return false;
  }
  return true;
}

async function pathsMatch(f: CompiledScmFilter, repo: Repository, provider: ScmProviderService): Promise<boolean> {
  for (const p of f.pathsExist) {
    if (!(await provider.repoHasPath(repo, trimTrailingSlashes(p)))) return false;
  }
  for (const p of f.pathsDoNotExist) {
    if (await provider.repoHasPath(repo, trimTrailingSlashes(p))) return false;
  }
  return true;
}

/** Whether one repository (branch) passes one filter, checking every condition the filter sets. */
export async function matchScmFilter(f: CompiledScmFilter, repo: Repository, provider: ScmProviderService): Promise<boolean> {
  if (!repoConditionsMatch(f, repo)) return false;
  if (f.branchMatch !== undefined && !f.branchMatch.matcher(repo.branch).find()) return false;
  return pathsMatch(f, repo, provider);
}

async function anyFilter(filters: readonly CompiledScmFilter[], repo: Repository, provider: ScmProviderService): Promise<boolean> {
  for (const f of filters) if (await matchScmFilter(f, repo, provider)) return true;
  return false;
}

/**
 * Argo CD's ListRepos: list, keep repositories matching a repository filter, expand branches, keep
 * branches matching a branch filter. Repositories are expanded one at a time, in listing order.
 */
export async function listFilteredRepos(
  provider: ScmProviderService,
  filters: readonly ScmProviderFilter[] | undefined,
  cloneProtocol: string,
): Promise<Repository[]> {
  const compiled = compileScmFilters(filters);
  const repoFilters = compiled.filter((f) => f.kind === "repo");
  const branchFilters = compiled.filter((f) => f.kind === "branch");
  const repos = await provider.listRepos(cloneProtocol);
  const kept: Repository[] = [];
  for (const r of repos) if (repoFilters.length === 0 || (await anyFilter(repoFilters, r, provider))) kept.push(r);
  const out: Repository[] = [];
  for (const r of kept) {
    for (const b of await provider.getBranches(r)) {
      if (branchFilters.length === 0 || (await anyFilter(branchFilters, b, provider))) out.push(b);
    }
  }
  return out;
}

/** A compiled pull request filter. */
export interface CompiledPrFilter {
  readonly branch?: RE2JS;
  readonly target?: RE2JS;
  readonly title?: RE2JS;
}

/** Compiles pull request filters; a bad regular expression throws Argo CD's message. */
export function compilePullRequestFilters(filters: readonly PullRequestFilter[] | undefined): CompiledPrFilter[] {
  return (filters ?? []).map((f) => {
    const branch = compile("BranchMatch", f.branchMatch);
    const target = compile("TargetBranchMatch", f.targetBranchMatch);
    const title = compile("TitleMatch", f.titleMatch);
    return { ...(branch ? { branch } : {}), ...(target ? { target } : {}), ...(title ? { title } : {}) };
  });
}

function matchPr(f: CompiledPrFilter, pr: PullRequest): boolean {
  if (f.branch !== undefined && !f.branch.matcher(pr.branch).find()) return false;
  if (f.target !== undefined && !f.target.matcher(pr.targetBranch).find()) return false;
  return f.title === undefined || f.title.matcher(pr.title).find();
}

/** The pull requests passing at least one filter (all of them when there are no filters). */
export function filterPullRequests(prs: readonly PullRequest[], compiled: readonly CompiledPrFilter[]): PullRequest[] {
  if (compiled.length === 0) return [...prs];
  return prs.filter((pr) => compiled.some((f) => matchPr(f, pr)));
}
