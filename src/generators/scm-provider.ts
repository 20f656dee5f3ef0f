/**
 * SCM Provider generator (docs/generators.md#scm-provider): one parameter set per repository (or
 * branch) of an organisation on GitHub, GitLab, Gitea, Bitbucket Server, Bitbucket Cloud, Azure
 * DevOps or AWS CodeCommit, after Argo CD's gatekeeping (enable flag, allow-list, credentials from
 * the ApplicationSet namespace) and filters. API calls go through the shared {@link ScmServices}
 * client, so conditional requests, caches and rate-limit backoffs outlive each reconcile; a refusal
 * is an error (Applications are kept), never an empty result, and it carries the provider's reset
 * time for the ApplicationSet's requeue.
 */
import type { ScmProviderGenerator } from "../api/index.js";
import { listFilteredRepos } from "../scm/filters.js";
import { checkScmAllowed, ScmServices } from "../scm/services.js";
import { scmCustomApiUrl, selectScmProvider } from "../scm/select.js";
import type { Repository } from "../scm/types.js";
import { GeneratorError, wrapError } from "./errors.js";
import { appendValues, normalize, requeueFrom } from "./params.js";
import { templateMode, type Generator, type ParamSet } from "./types.js";

/** Default requeue of SCM Provider generators (Argo CD: 30 min). */
export const SCM_PROVIDER_REQUEUE_MS = 30 * 60_000;

/** The parameters of one repository. */
export function scmParams(repo: Repository): ParamSet {
  return {
    organization: repo.organization,
    repository: repo.repository,
    repository_id: repo.repositoryId,
    url: repo.url,
    branch: repo.branch,
    sha: repo.sha,
    short_sha: repo.sha.slice(0, 8),
    short_sha_7: repo.sha.slice(0, 7),
    labels: repo.labels.join(","),
    branchNormalized: normalize(repo.branch),
  };
}

/** The SCM Provider generator over `services` (share one instance with the Pull Request generator). */
export function createScmProviderGenerator(services: ScmServices = new ScmServices()): Generator<ScmProviderGenerator> {
  return {
    async generate(spec, appSet, ctx) {
      const provider = await rethrow(() => {
        checkScmAllowed(services.settings, scmCustomApiUrl(spec));
        return selectScmProvider(spec, { services, appSet, ctx });
      });
      let repos: Repository[];
      try {
        repos = await listFilteredRepos(provider, spec.filters, spec.cloneProtocol ?? "");
      } catch (err) {
        throw wrapError("error listing repos", err);
      }
      const mode = templateMode(appSet);
      return repos.map((r) => appendValues(scmParams(r), spec.values, mode, ctx.renderer));
    },
    requeueAfterMs: (spec) => requeueFrom(spec.requeueAfterSeconds, SCM_PROVIDER_REQUEUE_MS),
    template: (spec) => spec.template,
  };
}

/** Runs `fn`; a failure becomes a GeneratorError with the same message. */
export async function rethrow<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof GeneratorError) throw err;
    throw new GeneratorError(err instanceof Error ? err.message : String(err), { cause: err });
  }
}
