/**
 * When to look at an ApplicationSet again (docs/controller.md#when-a-pass-runs-again). Pure.
 */

/** Argo CD's `ReconcileRequeueOnValidationError`: 3 minutes. */
export const REQUEUE_ON_ERROR_MS = 3 * 60_000;

/** What a pass ended with, as far as the requeue is concerned. */
export type RequeueInput =
  /**
   * `retryAfterMs`: when the failure says retrying makes sense (an SCM provider's rate-limit reset);
   * `generatorRequeueMs`: the generators' own interval (`requeueAfterSeconds`), 0 for none.
   */
  | { readonly kind: "generation-error"; readonly retryAfterMs?: number; readonly generatorRequeueMs?: number }
  | { readonly kind: "done"; readonly generatorRequeueMs: number; readonly validationErrors: boolean };

/** Slack added to a provider's reset time, so the retry lands after it. */
export const RETRY_AFTER_SLACK_MS = 1000;

/**
 * A generation error requeues just after the reset time when the error names one (a rate-limited
 * SCM provider: retrying earlier only meets the same refusal), else after the generators' own
 * interval when it is shorter than 3 minutes (never later than they ask), else after 3 minutes; a
 * pass that went through requeues after the generators' minimum interval (none when 0), or after 3
 * minutes when some Applications failed validation and the generators ask for none.
 */
export function requeueAfterMs(input: RequeueInput): number {
  if (input.kind === "generation-error") {
    if (input.retryAfterMs !== undefined) return Math.max(0, input.retryAfterMs) + RETRY_AFTER_SLACK_MS;
    const asked = input.generatorRequeueMs ?? 0;
    return asked > 0 ? Math.min(asked, REQUEUE_ON_ERROR_MS) : REQUEUE_ON_ERROR_MS;
  }
  if (input.validationErrors && input.generatorRequeueMs === 0) return REQUEUE_ON_ERROR_MS;
  return input.generatorRequeueMs;
}
