/**
 * The rules of one step (docs/adr/0009-rollout-policy-crd.md), as pure moves of a {@link StepRun}:
 * approval before the step starts, the progress deadline, the failure budget and the soak. One
 * call makes at most one move; `decide.ts` chains steps.
 *
 * - Waiting → AwaitingApproval when the step needs an approval it lacks, else → Progressing with a
 *   deadline `progressDeadlineMs` from now.
 * - Progressing: more failures than the budget halts (FailureBudgetExceeded); every Application
 *   ready except failures within the budget → Soaking (when a soak is set) or Completed; at the
 *   deadline, as in OCM, the Applications still not ready count as failures too: within the budget
 *   the step completes without them, beyond it the rollout halts (ProgressDeadlineExceeded).
 * - Soaking: more failures than the budget halts; an Application that regresses (not ready and not
 *   among the failures tolerated when the soak began) sends the step back to Progressing with a
 *   new deadline, so the soak restarts from zero once all are ready again; the soak elapsed →
 *   Completed.
 */
import { failureLimit } from "./failure-budget.js";
import type { StepStanding } from "./readiness.js";
import { HaltReason, StepPhase, type RolloutPolicySpec, type StepRun, type StepSafety } from "./types.js";

/** The rules of step `index`: the policy's defaults overridden field by field by the step's own. */
export function rulesFor(policy: RolloutPolicySpec, index: number): StepSafety {
  return { ...policy.defaults, ...policy.steps?.[index] };
}

/** The outcome of one move. */
export interface StepMove {
  readonly step: StepRun;
  /** Set when the step halts the rollout. */
  readonly halt?: HaltReason;
}

const deadlineFrom = (rules: StepSafety, now: number): number | undefined =>
  rules.progressDeadlineMs === undefined ? undefined : now + rules.progressDeadlineMs;

/** Waiting → AwaitingApproval or Progressing; an AwaitingApproval step that got its approval starts. */
export function startOrAwait(step: StepRun, rules: StepSafety, now: number): StepRun {
  if (rules.requireApproval === true && step.approvedAt === undefined) {
    return { ...step, phase: StepPhase.AwaitingApproval, why: `step ${step.index + 1} waits for approval` };
  }
  return { ...step, phase: StepPhase.Progressing, startedAt: now, deadline: deadlineFrom(rules, now), soakStartedAt: undefined, why: "" };
}

const completed = (step: StepRun, now: number, tolerated: readonly string[]): StepRun => ({
  ...step,
  phase: StepPhase.Completed,
  endedAt: now,
  soakStartedAt: undefined,
  toleratedFailures: tolerated,
  why: "",
});

const halted = (step: StepRun, now: number, why: string): StepRun => ({ ...step, phase: StepPhase.Halted, endedAt: now, why });

const seconds = (ms: number): number => Math.max(0, Math.ceil(ms / 1000));

function budgetHalt(step: StepRun, s: StepStanding, limit: number, now: number): StepMove {
  const why = `${s.counts.failed} failed, budget ${limit}: ${linesOf(s)}`;
  return { step: halted(step, now, why), halt: HaltReason.FailureBudgetExceeded };
}

function progressing(step: StepRun, rules: StepSafety, s: StepStanding, now: number): StepMove {
  const limit = failureLimit(rules.maxFailures, s.counts.total);
  if (s.counts.failed > limit) return budgetHalt(step, s, limit, now);
  if (s.counts.pending === 0) {
    if ((rules.soakMs ?? 0) > 0) {
      return { step: { ...step, phase: StepPhase.Soaking, soakStartedAt: now, toleratedFailures: s.failed, why: soakWhy(rules, 0) } };
    }
    return { step: completed(step, now, s.failed) };
  }
  if (step.deadline !== undefined && now >= step.deadline) {
    const notReady = s.counts.failed + s.counts.pending;
    if (notReady <= limit)
      return {
        step: completed(
          step,
          now,
          s.notReady.map((n) => n.name),
        ),
      };
    const why = `deadline passed with ${notReady} not ready, budget ${limit}: ${linesOf(s)}`;
    return { step: halted(step, now, why), halt: HaltReason.ProgressDeadlineExceeded };
  }
  return { step: { ...step, why: linesOf(s) } };
}

/** The lines of the Applications not ready, joined; only those named in `only` when given. */
function linesOf(s: StepStanding, only?: readonly string[]): string {
  return s.notReady
    .filter((n) => only === undefined || only.includes(n.name))
    .map((n) => n.line)
    .join("; ");
}

function soakWhy(rules: StepSafety, elapsed: number): string {
  const total = rules.soakMs ?? 0;
  return `soaking: ${seconds(total - elapsed)} s of ${seconds(total)} s left`;
}

function soaking(step: StepRun, rules: StepSafety, s: StepStanding, now: number): StepMove {
  const limit = failureLimit(rules.maxFailures, s.counts.total);
  if (s.counts.failed > limit) return budgetHalt(step, s, limit, now);
  const regressed = s.notReady.map((n) => n.name).filter((name) => !step.toleratedFailures.includes(name));
  if (regressed.length > 0) {
    const why = `soak restarts: ${linesOf(s, regressed)}`;
    const next = { ...step, phase: StepPhase.Progressing, soakStartedAt: undefined, soakRestarts: step.soakRestarts + 1 };
    return { step: { ...next, deadline: deadlineFrom(rules, now), why } };
  }
  const elapsed = now - (step.soakStartedAt ?? now);
  if (elapsed >= (rules.soakMs ?? 0)) return { step: completed(step, now, step.toleratedFailures) };
  return { step: { ...step, why: soakWhy(rules, elapsed) } };
}

/** One move of a started step (Progressing or Soaking); other phases are returned as they are. */
export function evaluateStep(step: StepRun, rules: StepSafety, s: StepStanding, now: number): StepMove {
  const counted = { ...step, counts: s.counts };
  if (step.phase === StepPhase.Progressing) return progressing(counted, rules, s, now);
  if (step.phase === StepPhase.Soaking) return soaking(counted, rules, s, now);
  return { step: counted };
}
