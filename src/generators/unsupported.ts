/**
 * The SCM Provider and Pull Request generators' place in the registry until their providers
 * exist: they fail with Argo CD's "no provider implementation configured" errors (never an empty
 * result, which would delete Applications). Their requeue interval is already Argo CD's 30 min.
 */
import type { PullRequestGenerator, ScmProviderGenerator } from "../api/index.js";
import { GeneratorError, GeneratorMessage } from "./errors.js";
import { requeueFrom } from "./params.js";
import type { Generator } from "./types.js";

/** Default requeue of SCM Provider and Pull Request generators (Argo CD: 30 min). */
export const SCM_REQUEUE_MS = 30 * 60_000;

function unsupported<S extends { requeueAfterSeconds?: number | undefined; template?: unknown }>(message: string): Generator<S> {
  return {
    generate: () => Promise.reject(new GeneratorError(message)),
    requeueAfterMs: (spec) => requeueFrom(spec.requeueAfterSeconds, SCM_REQUEUE_MS),
    template: (spec) => spec.template as ReturnType<Generator<S>["template"]>,
  };
}

/** SCM Provider generator placeholder. */
export const scmProviderGenerator: Generator<ScmProviderGenerator> = unsupported<ScmProviderGenerator>(GeneratorMessage.NoScmProvider);

/** Pull Request generator placeholder. */
export const pullRequestGenerator: Generator<PullRequestGenerator> = unsupported<PullRequestGenerator>(GeneratorMessage.NoPullRequestProvider);
