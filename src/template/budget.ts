/**
 * The render budget Argo CD lacks: a template that loops without bound, builds a huge string or
 * nests too deep fails with a budget error instead of hanging the reconcile.
 */

/** Limits applied to one template execution. */
export interface RenderBudget {
  /** Evaluation steps (nodes walked plus commands evaluated). */
  readonly maxSteps: number;
  /** Output size in UTF-16 code units; also bounds strings built by functions such as repeat. */
  readonly maxOutputChars: number;
  /** Nested {{template}} calls. */
  readonly maxDepth: number;
  /** Elements of a list one function builds (until, untilStep, seq), checked before it is built. */
  readonly maxListLength: number;
  /** Wall-clock time per execution, in ms (needs a clock). */
  readonly maxMillis: number;
}

/** Defaults: generous for real Application templates, small enough to stop a runaway in well under a second. */
export const DEFAULT_BUDGET: RenderBudget = Object.freeze({
  maxSteps: 1_000_000,
  maxOutputChars: 4 * 1024 * 1024,
  maxDepth: 200,
  maxListLength: 100_000,
  maxMillis: 500,
});

/** Prefix of every budget error message. */
export const BUDGET_EXCEEDED = "render budget exceeded";
