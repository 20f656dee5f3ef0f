/**
 * The generation step as the reconciler sees it: run the generators and render the template
 * ({@link generateApplications}), and turn generator and template errors into a failed
 * {@link Generation} carrying the condition reason. Any other failure (a bug, a panic-like error)
 * rejects, so the worker retries with backoff and sets no condition, as Argo CD's panic guard does.
 */
import { Reason, type ApplicationSet } from "../api/index.js";
import { AppSetError } from "../errors.js";
import { generateApplications, type ApplicationsOptions } from "../generators/applications.js";
import { appSetRequeueAfterMs } from "../generators/index.js";
import type { GenerateFn } from "./reconciler.js";
import type { Generation } from "./snapshot.js";

const CONDITION_REASONS = new Set<string>([Reason.ApplicationGenerationFromParamsError, Reason.RenderTemplateParamsError]);

/** A {@link GenerateFn} over the generator registry, template engine and ports in `opts`. */
export function generatorFn(opts: ApplicationsOptions): GenerateFn {
  return async (appSet: ApplicationSet, signal: AbortSignal): Promise<Generation> => {
    try {
      const apps = await generateApplications(appSet, { ...opts, ctx: { ...opts.ctx, signal } });
      return { ok: true, apps, requeueAfterMs: appSetRequeueAfterMs(appSet, opts.ctx.settings, opts.registry) };
    } catch (err) {
      if (err instanceof AppSetError && CONDITION_REASONS.has(err.reason)) return { ok: false, reason: err.reason as Reason, message: err.message };
      throw err;
    }
  };
}
