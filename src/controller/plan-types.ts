/**
 * The Plan: everything one reconcile decided, as data. The planner builds it; the executor applies it
 * in a fixed order (Application creates and updates, stale deletes, owner-reference strips, status,
 * then the ApplicationSet's own metadata) and records the attached events after each successful write.
 */
import type { ApplicationSetApplicationStatus, ApplicationSetStatus, Reason } from "../api/index.js";
import type { RunWrites, SafetyReport } from "../progressivesync/safety/index.js";
import type { AppChange, DesiredApp } from "./desired.js";
import type { JsonObject } from "../json/index.js";

/** A Kubernetes Event to record on the ApplicationSet (all are Normal). */
export interface PlannedEvent {
  readonly reason: string;
  readonly message: string;
}

/** Create or update one Application. */
export interface AppWrite {
  readonly name: string;
  readonly desired: DesiredApp;
  /** What the snapshot says it takes; the executor recomputes it from fresh state after a conflict. */
  readonly change: Exclude<AppChange, { kind: "none" }>;
  /** The RollingSync step whose sync operation this write carries (counted once written). */
  readonly syncStep?: string;
  /** True when this write carries the refresh annotation the rollout waits on (counted once written). */
  readonly refresh?: boolean;
}

/** What a RollingSync pass reports to the progressive-sync metrics once its plan is applied. */
export interface RolloutReport {
  /** The `applicationStatus` after the pass (`[]`: cleared); absent leaves the per-step counts alone. */
  readonly entries?: readonly ApplicationSetApplicationStatus[];
  /** When the pass decided which Applications may sync (epoch ms); absent when none may. */
  readonly detectedAt?: number;
}

/** Delete one stale Application. */
export interface AppDelete {
  readonly name: string;
  readonly uid?: string;
  /** Finalizers to keep when the resources finalizer must go first (invalid destination); else undefined. */
  readonly keepFinalizers?: readonly string[];
  /** False when the Application is already terminating: only the finalizer step runs. */
  readonly delete: boolean;
}

/** Remove the owner references of an Application that must outlive its ApplicationSet. */
export interface OwnerStrip {
  readonly name: string;
  readonly resourceVersion?: string;
}

/**
 * Reverse deletion (docs/progressive-syncs.md#reverse-deletion): the cache has shown this
 * Application terminating for over two minutes. GET it from the API server; present fails, absent
 * is evicted with a DELETE carrying the UID precondition.
 */
export interface DeletionCheck {
  readonly name: string;
  readonly uid?: string;
}

/** One reconcile's decisions. */
export interface Plan {
  /** Creates and updates, sorted by name. */
  readonly writes: readonly AppWrite[];
  /** The condition reason of a failed create or update (depends on the policy). */
  readonly writeErrorReason: Reason;
  readonly deletes: readonly AppDelete[];
  readonly ownerStrips: readonly OwnerStrip[];
  /** The new status, or undefined when it would not change. */
  readonly status?: ApplicationSetStatus;
  /** A merge patch of the ApplicationSet's metadata (refresh annotation or finalizer removal). */
  readonly appSetPatch?: JsonObject;
  readonly requeueAfterMs: number;
  /** Warnings to log (e.g. status truncation). */
  readonly warnings: readonly string[];
  /** Info lines to log (RollingSync moves and syncs). */
  readonly logs?: readonly string[];
  /**
   * The new `status.applicationStatus` (RollingSync), written before any Application; `[]` removes it.
   * Absent when it does not change. `status`, when set, already carries it.
   */
  readonly applicationStatus?: readonly ApplicationSetApplicationStatus[];
  readonly deletionCheck?: DeletionCheck;
  /** What the progressive-sync metrics report once the plan is applied. */
  readonly rolloutReport?: RolloutReport;
  /** Rollout safety's RolloutRun writes, made after `applicationStatus` and before any Application. */
  readonly rolloutRuns?: RunWrites;
  /** Rollout safety's events, recorded once the RolloutRun writes went through. */
  readonly rolloutEvents?: readonly PlannedEvent[];
  /** Rollout safety's metrics, reported once the RolloutRun writes went through. */
  readonly safetyReport?: SafetyReport;
}

/** A plan that changes nothing. */
export const EMPTY_PLAN: Plan = {
  writes: [],
  writeErrorReason: "UpdateApplicationError",
  deletes: [],
  ownerStrips: [],
  requeueAfterMs: 0,
  warnings: [],
};

/** True when the plan sends no write at all. */
export function isNoop(plan: Plan): boolean {
  return (
    plan.writes.length === 0 &&
    plan.deletes.length === 0 &&
    plan.ownerStrips.length === 0 &&
    plan.status === undefined &&
    plan.appSetPatch === undefined &&
    plan.applicationStatus === undefined &&
    plan.deletionCheck === undefined &&
    !hasRunWrites(plan.rolloutRuns)
  );
}

/** True when rollout safety has a RolloutRun to create, update or delete. */
export function hasRunWrites(w: RunWrites | undefined): boolean {
  return w !== undefined && (w.create !== undefined || w.supersede !== undefined || w.status !== undefined || w.delete.length > 0);
}
