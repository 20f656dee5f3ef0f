/**
 * When to look at an ApplicationSet again (spec §4.9). Pure.
 */

/** Argo CD's `ReconcileRequeueOnValidationError`: 3 minutes. */
export const REQUEUE_ON_ERROR_MS = 3 * 60_000;

/** What a pass ended with, as far as the requeue is concerned. */
export type RequeueInput =
  | { readonly kind: "generation-error" }
  | { readonly kind: "done"; readonly generatorRequeueMs: number; readonly validationErrors: boolean };

/**
 * A generation error requeues after 3 minutes; a pass that went through requeues after the
 * generators' minimum interval (none when 0), or after 3 minutes when some Applications failed
 * validation and the generators ask for none.
 */
export function requeueAfterMs(input: RequeueInput): number {
  if (input.kind === "generation-error") return REQUEUE_ON_ERROR_MS;
  if (input.validationErrors && input.generatorRequeueMs === 0) return REQUEUE_ON_ERROR_MS;
  return input.generatorRequeueMs;
}
