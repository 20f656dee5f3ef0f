/**
 * Creating a run and keeping the history of runs (docs/adr/0009-rollout-policy-crd.md): one run per
 * new set of target revisions, the newest first, the last `limit` kept (KubeFleet's UpdateRun per
 * release).
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

/** The history with `run` in it (replacing a run of the same id), newest first, at most `limit` runs. */
export function keepHistory(history: readonly RunState[], run: RunState, limit: number): RunState[] {
  const others = history.filter((r) => r.id !== run.id);
  const sorted = [run, ...others].sort((a, b) => b.startedAt - a.startedAt);
  return sorted.slice(0, Math.max(0, limit));
}

/** The revisions every Application of the newest completed run was rolled out to; the rollback target. */
export function lastCompletedRevisions(history: readonly RunState[]): Record<string, readonly string[]> | undefined {
  const done = history.filter((r) => r.phase === RunPhase.Completed).sort((a, b) => b.startedAt - a.startedAt)[0];
  return done === undefined ? undefined : { ...done.targetRevisions };
}
