/**
 * Pull Request generator (docs/generators.md#pull-request): one parameter set per open pull request
 * of a repository on GitHub, GitLab, Gitea, Bitbucket Server, Bitbucket Cloud or Azure DevOps,
 * after the same gatekeeping as the SCM Provider generator and the filters. With
 * `continueOnRepoNotFoundError`, a repository that does not exist yields no parameters (its
 * Applications are deleted); any other failure, a rate-limit refusal included, is an error and the
 * Applications are kept.
 */
import type { PullRequestGenerator } from "../api/index.js";
import { compilePullRequestFilters, filterPullRequests } from "../scm/filters.js";
import { checkScmAllowed, ScmServices } from "../scm/services.js";
import { pullRequestCustomApiUrl, selectPullRequestService } from "../scm/select.js";
import { branchSlug } from "../scm/slug.js";
import { RepositoryNotFoundError, type PullRequest } from "../scm/types.js";
import { wrapError } from "./errors.js";
import { appendValues, requeueFrom } from "./params.js";
import { rethrow } from "./scm-provider.js";
import { templateMode, type Generator, type ParamSet } from "./types.js";

/** Default requeue of Pull Request generators (Argo CD: 30 min). */
export const PULL_REQUEST_REQUEUE_MS = 30 * 60_000;

/** The parameters of one pull request; `labels` only in goTemplate mode. */
export function pullRequestParams(pr: PullRequest, goTemplate: boolean): ParamSet {
  const params: ParamSet = {
    number: String(pr.number),
    title: pr.title,
    branch: pr.branch,
    branch_slug: branchSlug(pr.branch),
    target_branch: pr.targetBranch,
    target_branch_slug: branchSlug(pr.targetBranch),
    head_sha: pr.headSha,
    head_short_sha: pr.headSha.slice(0, 8),
    head_short_sha_7: pr.headSha.slice(0, 7),
    author: pr.author,
  };
  if (goTemplate) params["labels"] = [...pr.labels];
  return params;
}

/** The Pull Request generator over `services` (share one instance with the SCM Provider generator). */
export function createPullRequestGenerator(services: ScmServices = new ScmServices()): Generator<PullRequestGenerator> {
  return {
    async generate(spec, appSet, ctx) {
      const service = await rethrow(async () => {
        try {
          checkScmAllowed(services.settings, pullRequestCustomApiUrl(spec));
          return await selectPullRequestService(spec, { services, appSet, ctx });
        } catch (err) {
          throw wrapError("failed to select pull request service provider", err);
        }
      });
      let pulls: PullRequest[];
      try {
        const filters = compilePullRequestFilters(spec.filters);
        pulls = filterPullRequests(await service.list(), filters);
      } catch (err) {
        if (err instanceof RepositoryNotFoundError && spec.continueOnRepoNotFoundError === true) {
          ctx.logger?.warn({ error: err.message }, "Skipping params generation for this repository since it was not found.");
          return [];
        }
        throw wrapError("error listing repos", err);
      }
      const mode = templateMode(appSet);
      return pulls.map((pr) => appendValues(pullRequestParams(pr, mode.goTemplate), spec.values, mode, ctx.renderer));
    },
    requeueAfterMs: (spec) => requeueFrom(spec.requeueAfterSeconds, PULL_REQUEST_REQUEUE_MS),
    template: (spec) => spec.template,
  };
}
