/**
 * Run control (docs/adr/0009-rollout-policy-crd.md), after Argo Rollouts' pause/promote/abort and
 * KubeFleet's approvals and run/stop:
 * - pause: a Running run stops making moves; the paused time does not count against the step's
 *   deadline or soak (both are shifted by it on resume);
 * - resume: a Paused run runs again; a Halted run restarts its halted (and rolled-back) steps from
 *   Waiting with fresh deadlines, so it halts again at once if the cause is not fixed;
 * - promote: skips the rest of the current step's soak (the step completes and the run moves to
 *   the next one, which starts in the same pass unless a later request pauses it), or approves the
 *   step awaiting approval;
 * - approve: approves the current step, or the step named (before it is reached); never resumes;
 * - abort: ends the run for good: the current step Halted, no step ever starts again.
 * A request that cannot apply is returned with the reason and changes nothing.
 */
import { withStep } from "./run.js";
import { ControlKind, HaltReason, RunPhase, StepPhase, type ControlRequest, type RunState, type StepRun } from "./types.js";

/** The result of one request: the run after it, or why it had no effect. */
export type ControlResult = { readonly run: RunState; readonly aborted?: boolean } | { readonly ignored: string };

const terminal = (run: RunState): boolean => run.phase === RunPhase.Completed || run.phase === RunPhase.Aborted;

function pause(run: RunState, now: number): ControlResult {
  if (run.phase !== RunPhase.Running) return { ignored: `run is ${run.phase}` };
  return { run: { ...run, phase: RunPhase.Paused, pausedAt: now } };
}

function shift(step: StepRun, by: number): StepRun {
  return {
    ...step,
    deadline: step.deadline === undefined ? undefined : step.deadline + by,
    soakStartedAt: step.soakStartedAt === undefined ? undefined : step.soakStartedAt + by,
  };
}

const restartable = (s: StepRun): boolean => s.phase === StepPhase.Halted || s.phase === StepPhase.RolledBack;

function resume(run: RunState, now: number): ControlResult {
  if (run.phase === RunPhase.Paused) {
    const by = now - (run.pausedAt ?? now);
    const steps = run.steps.map((s) => (s.index === run.currentStep ? shift(s, by) : s));
    return { run: { ...run, phase: RunPhase.Running, pausedAt: undefined, steps } };
  }
  if (run.phase !== RunPhase.Halted) return { ignored: `run is ${run.phase}` };
  const again = run.steps.filter(restartable).map((s) => s.index);
  const steps = run.steps.map((s) =>
    restartable(s) ? { ...s, phase: StepPhase.Waiting, endedAt: undefined, deadline: undefined, soakStartedAt: undefined, why: "" } : s,
  );
  const currentStep = Math.min(run.currentStep, ...again);
  return { run: { ...run, phase: RunPhase.Running, haltReason: undefined, currentStep, steps } };
}

function approve(run: RunState, req: ControlRequest, now: number): ControlResult {
  if (terminal(run)) return { ignored: `run is ${run.phase}` };
  const index = req.step ?? run.currentStep;
  const step = run.steps[index];
  if (step === undefined) return { ignored: `no step ${index + 1}` };
  if (step.phase !== StepPhase.Waiting && step.phase !== StepPhase.AwaitingApproval)
    return { ignored: `step ${index + 1} is ${step.phase}` };
  if (step.approvedAt !== undefined) return { ignored: `step ${index + 1} is already approved` };
  return { run: withStep(run, { ...step, approvedAt: now }) };
}

function promote(run: RunState, now: number): ControlResult {
  if (run.phase !== RunPhase.Running) return { ignored: `run is ${run.phase}` };
  const step = run.steps[run.currentStep];
  if (step?.phase === StepPhase.AwaitingApproval) return approve(run, { kind: ControlKind.Approve }, now);
  if (step?.phase !== StepPhase.Soaking) return { ignored: `step ${run.currentStep + 1} is neither soaking nor awaiting approval` };
  const done: StepRun = { ...step, phase: StepPhase.Completed, endedAt: now, soakStartedAt: undefined, why: "" };
  return { run: { ...withStep(run, done), currentStep: run.currentStep + 1 } };
}

function abort(run: RunState, now: number): ControlResult {
  if (terminal(run)) return { ignored: `run is ${run.phase}` };
  const step = run.steps[run.currentStep];
  const stopped =
    step === undefined || step.phase === StepPhase.Completed
      ? run
      : withStep(run, { ...step, phase: StepPhase.Halted, endedAt: now, why: "aborted" });
  return { run: { ...stopped, phase: RunPhase.Aborted, haltReason: HaltReason.Aborted, endedAt: now, pausedAt: undefined }, aborted: true };
}

/** Applies one control request at `now`. */
export function applyControl(run: RunState, req: ControlRequest, now: number): ControlResult {
  switch (req.kind) {
    case ControlKind.Pause:
      return pause(run, now);
    case ControlKind.Resume:
      return resume(run, now);
    case ControlKind.Approve:
      return approve(run, req, now);
    case ControlKind.Promote:
      return promote(run, now);
    case ControlKind.Abort:
      return abort(run, now);
  }
}
