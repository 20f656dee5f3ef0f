/**
 * Creating a run (docs/adr/0009-rollout-policy-crd.md): one run per new set of target revisions
 * (KubeFleet's UpdateRun per release); and the rollback target read from the history of runs.
 */
import { RunPhase, StepPhase, type RunState, type StepRun } from "./types.js";

/** The inputs of {@link newRun}. */
export interface NewRunInput {
  readonly id: string;
  /** The Applications of each step, in step order (the RollingSync step planner's assignment). */
  readonly steps: readonly (readonly string[])[];
  readonly targetRevisions: Readonly<Record<string, readonly string[]>>;
  readonly now: number;
}

/** The run with `step` in place of the step of the same index. */
export function withStep(run: RunState, step: StepRun): RunState {
  return { ...run, steps: run.steps.map((s) => (s.index === step.index ? step : s)) };
}

/** A step that has not started. */
export function waitingStep(index: number, applications: readonly string[]): StepRun {
  const sorted = [...applications].sort();
  return {
    index,
    phase: StepPhase.Waiting,
    applications: sorted,
    counts: { total: sorted.length, ready: 0, failed: 0, pending: sorted.length },
    toleratedFailures: [],
    soakRestarts: 0,
    why: "",
  };
}

/** A run on its first step, nothing started yet. */
export function newRun(input: NewRunInput): RunState {
  return {
    id: input.id,
    phase: RunPhase.Running,
    targetRevisions: input.targetRevisions,
    steps: input.steps.map((apps, i) => waitingStep(i, apps)),
    currentStep: 0,
    startedAt: input.now,
  };
}

/** The revisions every Application of the newest completed run was rolled out to; the rollback target. `history` is newest first. */
export function lastCompletedRevisions(history: readonly RunState[]): Record<string, readonly string[]> | undefined {
  const done = history.find((r) => r.phase === RunPhase.Completed);
  return done === undefined ? undefined : { ...done.targetRevisions };
}
