/**
 * Types of rollout safety (docs/adr/0009-rollout-policy-crd.md): the resolved policy a
 * `RolloutPolicy` gives an ApplicationSet, the state of one rollout run, what the decision function
 * reads of each Application, the control requests a person sends, and the actions it asks the
 * controller to carry out. Durations are milliseconds and times are epoch milliseconds: parsing Go
 * durations and timestamps happens at the edge, never here.
 */
import type { IntOrString } from "../../api/index.js";

/** The rules of one step; every field is optional and absent means "no such rule". */
export interface StepSafety {
  /** A step not complete this long after it started halts the rollout (OCM `progressDeadline`). */
  readonly progressDeadlineMs?: number;
  /** Failures the step tolerates: a count or `"P%"` of its Applications (OCM `maxFailures`). */
  readonly maxFailures?: IntOrString;
  /** How long every Application must stay Healthy and Synced on the pinned revision (Kargo soak, OCM `minSuccessTime`). */
  readonly soakMs?: number;
  /** The step waits, before it starts, until someone approves it (KubeFleet approvals, Kargo). */
  readonly requireApproval?: boolean;
}

/** What to do when a rollout halts. */
export interface RollbackPolicy {
  /** Sync the halted step's Applications back to the last completed rollout's revisions. */
  readonly enabled: boolean;
  /** Roll back the Applications of the completed earlier steps of this run too. */
  readonly includeEarlierSteps?: boolean;
}

/** A policy as it applies to one ApplicationSet, after defaults are resolved at the edge. */
export interface RolloutPolicySpec {
  /** Rules of every step that `steps` does not override. */
  readonly defaults?: StepSafety;
  /** Per-step rules by step index (0-based here; step 1 of the ApplicationSet is index 0). */
  readonly steps?: readonly (StepSafety | undefined)[];
  readonly rollback?: RollbackPolicy;
}

/** The phases of one step of a run. */
export const StepPhase = {
  Waiting: "Waiting",
  AwaitingApproval: "AwaitingApproval",
  Progressing: "Progressing",
  Soaking: "Soaking",
  Completed: "Completed",
  Halted: "Halted",
  RolledBack: "RolledBack",
} as const;
export type StepPhase = (typeof StepPhase)[keyof typeof StepPhase];

/** The phases of a run. */
export const RunPhase = {
  Running: "Running",
  Paused: "Paused",
  Halted: "Halted",
  Completed: "Completed",
  Aborted: "Aborted",
} as const;
export type RunPhase = (typeof RunPhase)[keyof typeof RunPhase];

/** Why a run halted. */
export const HaltReason = {
  ProgressDeadlineExceeded: "ProgressDeadlineExceeded",
  FailureBudgetExceeded: "FailureBudgetExceeded",
  Aborted: "Aborted",
  /** A new set of target revisions started a new run while this one was running. */
  Superseded: "Superseded",
} as const;
export type HaltReason = (typeof HaltReason)[keyof typeof HaltReason];

/** How many of a step's Applications stand where. */
export interface StepCounts {
  readonly total: number;
  /** Healthy and Synced on the pinned revisions, and no failed operation. */
  readonly ready: number;
  /** Degraded while Synced, or their sync since the step started Failed or Errored (whatever their health). */
  readonly failed: number;
  /** Neither ready nor failed. */
  readonly pending: number;
}

/** One step of a run. */
export interface StepRun {
  /** 0-based step index. */
  readonly index: number;
  readonly phase: StepPhase;
  /** The step's Applications, sorted by name. */
  readonly applications: readonly string[];
  readonly counts: StepCounts;
  /** Failed Applications the budget let the step complete without. */
  readonly toleratedFailures: readonly string[];
  readonly startedAt?: number;
  readonly endedAt?: number;
  /** When the step halts if not complete by then. */
  readonly deadline?: number;
  /** When the current soak started; absent when not soaking. */
  readonly soakStartedAt?: number;
  /** How many times a regression restarted the soak. */
  readonly soakRestarts: number;
  readonly approvedAt?: number;
  /** Why the step waits, in words naming Applications and what they lack; "" when it does not wait. */
  readonly why: string;
}

/** One Application rolled back, and from which revisions to which. */
export interface RolledBackApp {
  readonly name: string;
  readonly from: readonly string[];
  readonly to: readonly string[];
}

/** The record of a rollback. */
export interface RollbackRecord {
  readonly at: number;
  readonly applications: readonly RolledBackApp[];
  /** Applications of the rolled-back steps with no revisions in the last completed rollout: left as they are. */
  readonly skipped: readonly string[];
}

/** One rollout: one per new set of target revisions. */
export interface RunState {
  /** Names the run, e.g. the ApplicationSet's generation and a hash of the target revisions. */
  readonly id: string;
  readonly phase: RunPhase;
  /** The revisions each Application is rolled out to. */
  readonly targetRevisions: Readonly<Record<string, readonly string[]>>;
  readonly steps: readonly StepRun[];
  /** Index of the step the run is on; `steps.length` once completed. */
  readonly currentStep: number;
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly pausedAt?: number;
  readonly haltReason?: HaltReason;
  readonly rollback?: RollbackRecord;
}

/** What the decision function reads of one live Application. */
export interface AppObservation {
  readonly name: string;
  readonly syncStatus: string | undefined;
  readonly healthStatus: string | undefined;
  /** The phase of its last operation, undefined when it never ran one. */
  readonly operationPhase: string | undefined;
  /** When its last operation started, epoch milliseconds (a failed sync from before the step started does not count). */
  readonly operationStartedAt?: number;
  /** Its current revisions (`status.sync.revisions` or `[status.sync.revision]`). */
  readonly revisions: readonly string[];
  /** `status.reconciledAt`, epoch milliseconds. */
  readonly reconciledAt: number | undefined;
}

/** The control requests a person can send. */
export const ControlKind = {
  Pause: "pause",
  Resume: "resume",
  Promote: "promote",
  Abort: "abort",
  Approve: "approve",
} as const;
export type ControlKind = (typeof ControlKind)[keyof typeof ControlKind];

/** One control request; `step` (0-based) names the step an approval is for, absent for the current one. */
export interface ControlRequest {
  readonly kind: ControlKind;
  readonly step?: number;
}

/** What the controller must do after a decision. */
export type RolloutAction =
  | { readonly type: "startStep"; readonly step: number; readonly applications: readonly string[] }
  | { readonly type: "halt"; readonly step: number; readonly reason: HaltReason }
  | { readonly type: "rollback"; readonly applications: readonly RolledBackApp[] }
  | { readonly type: "complete" };

/** A control request that had no effect, and why. */
export interface IgnoredRequest {
  readonly request: ControlRequest;
  readonly why: string;
}

/** The inputs of `decide`. */
export interface DecideInput {
  readonly policy: RolloutPolicySpec;
  readonly run: RunState;
  /** The live Applications of the run (others are ignored); a missing one counts as pending. */
  readonly observations: readonly AppObservation[];
  readonly requests: readonly ControlRequest[];
  /** Revisions of the last completed rollout, by Application, for rollback. */
  readonly lastCompleted?: Readonly<Record<string, readonly string[]>>;
  /** From the injected clock. */
  readonly now: number;
}

/** The outcome of `decide`. */
export interface Decision {
  readonly run: RunState;
  readonly actions: readonly RolloutAction[];
  readonly ignored: readonly IgnoredRequest[];
}
