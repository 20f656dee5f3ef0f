/**
 * What a rollout safety pass says about itself (docs/progressive-syncs.md#rollout-safety): the
 * `RolloutProgressing` condition, the events of every step and run transition, and the report the
 * metrics read. Pure.
 */
import { ConditionStatus, ConditionType, type ApplicationSetCondition } from "../../api/index.js";
import { rfc3339 } from "../../clock/index.js";
import { HaltReason, RunPhase, StepPhase, type Decision, type RunState } from "./types.js";

/** The condition reasons rollout safety sets on `RolloutProgressing` (Argo CD's own are kept for a running and a completed run). */
export const SafetyReason = {
  Running: "ApplicationSetModified",
  Completed: "ApplicationSetRolloutComplete",
  Paused: "RolloutPaused",
  Halted: "RolloutHalted",
  Aborted: "RolloutAborted",
  PolicyConflict: "RolloutPolicyConflict",
  PolicyInvalid: "RolloutPolicyInvalid",
  AwaitingRevisions: "RolloutAwaitingRevisions",
} as const;

/** What a pass reports to the metrics (docs/metrics.md#rollout-safety). */
export interface SafetyReport {
  /** Steps that ended this pass: their number (1-based), how they ended, and how long they ran. */
  readonly stepEnds: readonly { readonly step: string; readonly phase: string; readonly seconds: number }[];
  /** The reasons of the halts of this pass. */
  readonly halts: readonly string[];
  /** The failed Applications of each step of the current run. */
  readonly failed: readonly { readonly step: string; readonly count: number }[];
}

/** An event on the ApplicationSet. */
export interface SafetyEvent {
  readonly reason: string;
  readonly message: string;
}

export function condition(status: string, reason: string, message: string, now: number): ApplicationSetCondition {
  return { type: ConditionType.RolloutProgressing, status, reason, message, lastTransitionTime: rfc3339(now) };
}

/** Events for every step and run phase that changed. */
export function eventsOf(before: RunState, after: RunState, created: boolean): SafetyEvent[] {
  const out: SafetyEvent[] = [];
  if (created) out.push({ reason: "RolloutStarted", message: `rollout ${after.id} started (${String(after.steps.length)} steps)` });
  for (const s of after.steps) {
    const was = before.steps[s.index]?.phase;
    if (was === s.phase) continue;
    const why = s.why === "" ? "" : `: ${s.why}`;
    out.push({ reason: `RolloutStep${s.phase}`, message: `rollout ${after.id}: step ${String(s.index + 1)} ${s.phase}${why}` });
  }
  if (before.phase !== after.phase) {
    const reason = after.haltReason !== undefined && after.phase !== RunPhase.Running ? ` (${after.haltReason})` : "";
    out.push({ reason: `Rollout${after.phase}`, message: `rollout ${after.id} ${after.phase}${reason}` });
  }
  if (after.rollback !== undefined && before.rollback === undefined) {
    const apps = after.rollback.applications.map((a) => `${a.name} to ${a.to.join("+")}`).join(", ");
    out.push({ reason: "RolloutRolledBack", message: `rollout ${after.id} rolled back ${apps === "" ? "nothing" : apps}` });
  }
  return out;
}

/** The `RolloutProgressing` status, reason and message of each run phase. */
const RUN_CONDITIONS: Readonly<
  Record<RunPhase, { status: string; reason: string; message: (run: RunState, n: string, why: string) => string }>
> = {
  Completed: {
    status: ConditionStatus.False,
    reason: SafetyReason.Completed,
    message: (r) => `ApplicationSet Rollout has completed (rollout ${r.id})`,
  },
  Aborted: {
    status: ConditionStatus.False,
    reason: SafetyReason.Aborted,
    message: (r) => `rollout ${r.id} ended (${r.haltReason ?? HaltReason.Aborted})`,
  },
  Halted: {
    status: ConditionStatus.True,
    reason: SafetyReason.Halted,
    message: (r, n, why) => `rollout ${r.id} halted at step ${n}: ${why}`,
  },
  Paused: {
    status: ConditionStatus.True,
    reason: SafetyReason.Paused,
    message: (r, _, why) => `rollout ${r.id} ${why === "" ? "paused" : why}`,
  },
  Running: {
    status: ConditionStatus.True,
    reason: SafetyReason.Running,
    message: (r, n, why) =>
      `ApplicationSet Rollout is updating step ${n} (rollout ${r.id}, ${r.steps[r.currentStep]?.phase ?? ""})${why === "" ? "" : `: ${why}`}`,
  },
};

const ENDED = new Set<string>([StepPhase.Completed, StepPhase.Halted]);

/** The metrics of a pass: steps that ended (Completed or Halted; a rollback follows a halt), halts, failures per step. */
export function reportOf(before: RunState, decision: Decision): SafetyReport {
  const after = decision.run;
  const stepEnds = after.steps.flatMap((s) => {
    const was = before.steps[s.index]?.phase;
    const ended = ENDED.has(s.phase) || (s.phase === StepPhase.RolledBack && was !== StepPhase.Halted);
    if (!ended || was === s.phase || s.startedAt === undefined || s.endedAt === undefined) return [];
    return [{ step: String(s.index + 1), phase: s.phase, seconds: Math.max(0, (s.endedAt - s.startedAt) / 1000) }];
  });
  const halts = decision.actions.flatMap((a) => (a.type === "halt" ? [a.reason] : []));
  return { stepEnds, halts, failed: after.steps.map((s) => ({ step: String(s.index + 1), count: s.counts.failed })) };
}

/** `RolloutProgressing` for a governed ApplicationSet: what the run waits on, in words. */
export function runCondition(run: RunState, now: number): ApplicationSetCondition {
  const c = RUN_CONDITIONS[run.phase];
  return condition(c.status, c.reason, c.message(run, String(run.currentStep + 1), run.steps[run.currentStep]?.why ?? ""), now);
}
