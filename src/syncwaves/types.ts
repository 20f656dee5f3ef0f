/**
 * The data the sync engine's pure modules exchange: resource identities, sync tasks with their
 * per-operation state, and health results. Type-only module.
 */
import type { HealthStatus, OperationPhase, ResultCode, SyncPhase } from "../api/index.js";
import type { KubeObject } from "../kube/index.js";

/** Identifies one object of the cluster by group, kind, namespace ("" when cluster-scoped) and name. */
export interface ResourceKey {
  readonly group: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** The health of one object, as a health check reports it. */
export interface HealthResult {
  readonly status: HealthStatus;
  readonly message?: string;
}

/**
 * Where a task stands in the current operation (the `syncResult.resources[]` fields). A task with
 * no `hookPhase` is pending: it has not run in this operation yet.
 */
export interface TaskState {
  readonly status?: ResultCode;
  readonly hookPhase?: OperationPhase;
  readonly message?: string;
}

/**
 * One unit of work of a sync: apply `target` (a desired object) or, when `target` is absent, prune
 * `live`. Hooks yield one task per phase they name.
 */
export interface SyncTask {
  /** The phase the task runs in (a non-hook task is always `Sync` until a dependency moves it). */
  readonly phase: SyncPhase;
  /** The desired object; absent for a prune task. */
  readonly target?: KubeObject;
  /** The live object, when it exists. */
  readonly live?: KubeObject;
  /** A wave that replaces the annotated one (prune mirroring, PruneLast, dependency moves). */
  readonly waveOverride?: number;
  /** True when the task's object is a hook. */
  readonly hook: boolean;
  /** Per-operation state restored from, and written back to, the operation's sync result. */
  readonly state: TaskState;
  /** Set when the task cannot run (e.g. its kind is unknown to the cluster). */
  readonly invalid?: string;
  /** False when ApplyOutOfSyncOnly may skip the task because its live object already matches. */
  readonly modified?: boolean;
}
