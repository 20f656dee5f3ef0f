/**
 * What SCM providers return, in provider-neutral form: repositories (one entry per branch once
 * branches are expanded) and pull requests, plus the services each provider implements and the
 * errors they raise.
 */
import { AppSetError } from "../errors.js";

/** One repository, or one branch of one, as the SCM Provider generator sees it. */
export interface Repository {
  readonly organization: string;
  readonly repository: string;
  readonly url: string;
  readonly branch: string;
  /** Head commit of `branch` ("" before branches are expanded, and on CodeCommit). */
  readonly sha: string;
  readonly labels: readonly string[];
  /** The provider's native id (a number on GitHub and GitLab, a string elsewhere). */
  readonly repositoryId: unknown;
}

/** One provider's repository operations (Argo CD's SCMProviderService). */
export interface ScmProviderService {
  /** Every repository of the organisation with its default branch; rejects on any failure. */
  listRepos(cloneProtocol: string): Promise<Repository[]>;
  /** The repository expanded to its default branch (or all branches); [] for an empty repository. */
  getBranches(repo: Repository): Promise<Repository[]>;
  /** Whether a file or directory exists at `path` on the repository's branch. */
  repoHasPath(repo: Repository, path: string): Promise<boolean>;
}

/** One open pull request (merge request). */
export interface PullRequest {
  readonly number: number;
  readonly title: string;
  readonly branch: string;
  readonly targetBranch: string;
  readonly headSha: string;
  readonly labels: readonly string[];
  readonly author: string;
}

/** One provider's pull request listing. */
export interface PullRequestService {
  /** The pull requests; rejects with {@link RepositoryNotFoundError} when the repository does not exist. */
  list(): Promise<PullRequest[]>;
}

/** A provider answered with an unexpected HTTP status. */
export class ScmApiError extends AppSetError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super("ScmApiError", message);
  }
}

/** The repository a pull request generator names does not exist (or is not visible). */
export class RepositoryNotFoundError extends AppSetError {
  constructor(cause: unknown) {
    super("RepositoryNotFound", `repository not found: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
