/**
 * The generation step as the reconciler sees it: run the generators and render the template
 * ({@link generateApplications}), and turn generator and template errors into a failed
 * {@link Generation} carrying the condition reason (and the retry time a rate-limited provider
 * named, found along the error's cause chain). A generation cut short by the reconcile's deadline
 * fails the same way, with the deadline in its message, so a stalled Git server or HTTP endpoint
 * shows as a condition and nothing is deleted. Any other failure (a bug, a panic-like error)
 * rejects, so the worker retries with backoff and sets no condition, as Argo CD's panic guard does.
 */
import { Annotation, Reason, type ApplicationSet } from "../api/index.js";
import { AppSetError, errorMessage } from "../errors.js";
import { generateApplications, type ApplicationsOptions } from "../generators/applications.js";
import { appSetRequeueAfterMs } from "../generators/index.js";
import { deadlinePassed } from "../manager/worker.js";
import type { GenerateFn } from "./reconciler.js";
import type { Generation } from "./snapshot.js";

const CONDITION_REASONS = new Set<string>([Reason.ApplicationGenerationFromParamsError, Reason.RenderTemplateParamsError]);

/** A {@link GenerateFn} over the generator registry, template engine and ports in `opts`. */
export function generatorFn(opts: ApplicationsOptions): GenerateFn {
  return async (appSet: ApplicationSet, signal: AbortSignal): Promise<Generation> => {
    try {
      const freshRevisions = appSet.metadata.annotations?.[Annotation.ApplicationSetRefresh] === "true";
      const apps = await generateApplications(appSet, { ...opts, ctx: { ...opts.ctx, signal, freshRevisions } });
      return { ok: true, apps, requeueAfterMs: appSetRequeueAfterMs(appSet, opts.ctx.settings, opts.registry) };
    } catch (err) {
      const requeueAfterMs = requeueOf(appSet, opts);
      if (deadlinePassed(signal))
        return { ok: false, reason: Reason.ApplicationGenerationFromParamsError, message: deadlineMessage(signal, err), requeueAfterMs };
      if (err instanceof AppSetError && CONDITION_REASONS.has(err.reason))
        return { ok: false, reason: err.reason as Reason, message: err.message, requeueAfterMs, ...retryAfter(err) };
      throw err;
    }
  };
}

/** The generators' requeue of an ApplicationSet whose generation failed; 0 when even that cannot be read. */
function requeueOf(appSet: ApplicationSet, opts: ApplicationsOptions): number {
  try {
    return appSetRequeueAfterMs(appSet, opts.ctx.settings, opts.registry);
  } catch {
    return 0;
  }
}

/** The condition message of a generation the deadline cut short: the deadline, then what was cut. */
function deadlineMessage(signal: AbortSignal, err: unknown): string {
  const deadline = errorMessage(signal.reason);
  const cut = errorMessage(err);
  return cut.includes(deadline) ? cut : `${deadline}: ${cut}`;
}

/** The first `retryAfterMs` along an error's cause chain (an SCM rate-limit refusal carries one). */
function retryAfter(err: unknown): { retryAfterMs?: number } {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 20; e = e.cause, depth++) {
    const ms = (e as { retryAfterMs?: unknown }).retryAfterMs;
    if (typeof ms === "number" && Number.isFinite(ms)) return { retryAfterMs: ms };
  }
  return {};
}
