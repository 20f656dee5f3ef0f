/**
 * Rollback on halt (docs/adr/0009-rollout-policy-crd.md, opt-in): the Applications of the halted
 * step, and with `includeEarlierSteps` those of the completed steps before it, are synced back to
 * the revisions of the last completed rollout; those steps become RolledBack. An Application with
 * no revisions in the last completed rollout (new in this one), or already on them, is skipped.
 */
import { sameRevisions } from "./readiness.js";
import { StepPhase, type RollbackPolicy, type RollbackRecord, type RolledBackApp, type RunState, type StepRun } from "./types.js";

/** The rollback of a halted run and its steps marked RolledBack. */
export interface RollbackPlan {
  readonly steps: readonly StepRun[];
  readonly record: RollbackRecord;
}

function rolledBackSteps(run: RunState, policy: RollbackPolicy): number[] {
  const halted = run.currentStep;
  const earlier = policy.includeEarlierSteps === true ? run.steps.slice(0, halted).filter((s) => s.phase === StepPhase.Completed) : [];
  return [...earlier.map((s) => s.index), halted];
}

/** Plans the rollback of `run`, halted on its current step. */
export function planRollback(
  run: RunState,
  policy: RollbackPolicy,
  lastCompleted: Readonly<Record<string, readonly string[]>> | undefined,
  now: number,
): RollbackPlan {
  const indexes = rolledBackSteps(run, policy);
  const applications: RolledBackApp[] = [];
  const skipped: string[] = [];
  for (const i of indexes) {
    for (const name of run.steps[i]?.applications ?? []) {
      const to = lastCompleted?.[name];
      const from = run.targetRevisions[name] ?? [];
      if (to === undefined || sameRevisions(to, from)) skipped.push(name);
      else applications.push({ name, from, to });
    }
  }
  const steps = run.steps.map((s) => (indexes.includes(s.index) ? { ...s, phase: StepPhase.RolledBack } : s));
  return { steps, record: { at: now, applications, skipped } };
}
