/**
 * The per-Application RollingSync state machine (docs/progressive-syncs.md#per-application-status):
 * Waiting → Pending → Progressing → Healthy, with a reset to Waiting whenever the Application's
 * revisions or spec change. One pure {@link transition} per Application per pass ("Phase A"); the
 * promotion Waiting → Pending is decided by the step budget in `promotion.ts` and applied with
 * {@link promote} ("Phase B").
 *
 * Differences from Argo CD, all to keep a step from completing on a stale status (see
 * docs/progressive-syncs.md): Waiting → Healthy/Progressing and Progressing → Healthy need an
 * Application whose controller has compared its current spec (`observed.reconciled`) and whose
 * spec is not about to be replaced (`observed.specChanged`); the Pending time guards compare whole
 * seconds with `>=` (Argo CD: strictly after), so an operation started in the second of the
 * promotion counts; a comparison that failed (sync `Unknown`) resets nothing on its revisions.
 */
import {
  AppStatusMessage,
  HealthStatus,
  OperationPhase,
  RollingSyncStatus,
  SyncStatus,
  type ApplicationSetApplicationStatus,
} from "../api/index.js";
import { rfc3339 } from "../clock/index.js";
import { parseTime, type ObservedApp } from "./observe.js";

/** One `status.applicationStatus[]` entry. */
export type AppStatusEntry = ApplicationSetApplicationStatus;

/** Where the Application stands in the rollout: its `step` string ("1"-based or "-1"). */
export interface StepInfo {
  readonly step: string;
}

/** Why an entry was reset to Waiting. */
export type ResetCause = "revision" | "spec" | "both";

/** The outcome of one {@link transition}. */
export interface TransitionResult {
  /** The entry after this pass's Phase A. */
  readonly next: AppStatusEntry;
  /** The message of the last move made, undefined when the status did not move. */
  readonly message: string | undefined;
  /** Set when the entry was reset to Waiting by a revision or spec change. */
  readonly reset: ResetCause | undefined;
}

/** Rank of a status along the forward path (unknown strings rank as Waiting). */
export function statusRank(status: string): number {
  const order: readonly string[] = [
    RollingSyncStatus.Waiting,
    RollingSyncStatus.Pending,
    RollingSyncStatus.Progressing,
    RollingSyncStatus.Healthy,
  ];
  return Math.max(0, order.indexOf(status));
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** `at` is in the same second as `since` or later; an unknown `since` is always passed. */
function atOrAfter(at: number, since: string | null | undefined): boolean {
  const s = parseTime(since);
  return s === undefined || seconds(at) >= seconds(s);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function moved(entry: AppStatusEntry, status: string, message: string, now: number): AppStatusEntry {
  return { ...entry, status, message, lastTransitionTime: rfc3339(now) };
}

const RESET_MESSAGE: Record<ResetCause, string> = {
  both: AppStatusMessage.PendingChangesBoth,
  revision: AppStatusMessage.PendingChangesRevision,
  spec: AppStatusMessage.PendingChangesSpec,
};

/**
 * The revisions a comparison resolved, or undefined when it failed: a failed comparison (sync
 * `Unknown`) reports the revision it was asked for (a branch such as `main`, or the previous
 * pin), as Argo CD's application controller does, so it says nothing of what the source now
 * holds. Resetting on it would re-stamp a Pending entry whose sync is running (a second sync of
 * the same revision when it ends) and pin the next sync to a branch name.
 */
function resolvedRevisions(observed: ObservedApp): readonly string[] | undefined {
  return observed.syncStatus === SyncStatus.Unknown ? undefined : observed.revisions;
}

function resetCause(entry: AppStatusEntry, observed: ObservedApp): ResetCause | undefined {
  const resolved = resolvedRevisions(observed);
  const revisionChanged = resolved !== undefined && !sameList(entry.targetRevisions ?? [], resolved);
  if (revisionChanged && observed.specChanged) return "both";
  if (revisionChanged) return "revision";
  return observed.specChanged ? "spec" : undefined;
}

/**
 * The Pending rows: an operation started since the promotion, or an error that prevents syncing.
 * An operation started since the promotion moves the entry on even when the application
 * controller has not refreshed the Application since (its `reconciledAt` is older): Argo CD's
 * application controller clears `operation` when the sync ends, before its next refresh, and an
 * entry still Pending then would get a second sync at the same revision
 * (docs/progressive-syncs.md, "No second sync"). The error path still waits for a refresh.
 */
function fromPending(entry: AppStatusEntry, o: ObservedApp, now: number): AppStatusEntry | undefined {
  const since = entry.lastTransitionTime;
  if (o.operation !== undefined && atOrAfter(o.operation.startedAt, since)) {
    const phase = o.operation.phase;
    const message =
      phase === OperationPhase.Succeeded
        ? AppStatusMessage.PendingSyncSucceeded
        : phase === OperationPhase.Failed || phase === OperationPhase.Error
          ? AppStatusMessage.PendingSyncCompleted
          : AppStatusMessage.PendingBecameProgressing;
    return moved(entry, RollingSyncStatus.Progressing, message, now);
  }
  if (o.reconciledAt !== undefined && !atOrAfter(o.reconciledAt, since)) return undefined;
  return o.hasErrorCondition ? moved(entry, RollingSyncStatus.Progressing, AppStatusMessage.PendingHasError, now) : undefined;
}

/** The status-driven moves of Phase A, evaluated on the pre-pass status (or Waiting after a reset). */
function advance(entry: AppStatusEntry, o: ObservedApp, now: number): AppStatusEntry | undefined {
  const trusted = o.reconciled && !o.specChanged;
  const synced = o.syncStatus === SyncStatus.Synced;
  const healthy = o.healthStatus === HealthStatus.Healthy;
  switch (entry.status) {
    case RollingSyncStatus.Waiting:
      if (!trusted || !synced) return undefined;
      return healthy
        ? moved(entry, RollingSyncStatus.Healthy, AppStatusMessage.WaitingToHealthy, now)
        : moved(entry, RollingSyncStatus.Progressing, AppStatusMessage.WaitingToProgressing, now);
    case RollingSyncStatus.Pending:
      return fromPending(entry, o, now);
    case RollingSyncStatus.Progressing:
      return trusted && synced && healthy ? moved(entry, RollingSyncStatus.Healthy, AppStatusMessage.ProgressingToHealthy, now) : undefined;
    default:
      return undefined;
  }
}

/**
 * Phase A for one existing Application: start from its entry (or a new Waiting one), recompute its
 * step, reset it to Waiting on a revision or spec change (pinning the new revisions), then make at
 * most one status move. `lastTransitionTime` of every move is `now`.
 */
export function transition(current: AppStatusEntry | undefined, observed: ObservedApp, stepInfo: StepInfo, now: number): TransitionResult {
  let entry: AppStatusEntry = current
    ? { ...current, step: stepInfo.step, targetRevisions: current.targetRevisions ?? [] }
    : {
        application: observed.name,
        status: RollingSyncStatus.Waiting,
        message: AppStatusMessage.Defaulted,
        step: stepInfo.step,
        targetRevisions: [...observed.revisions],
        lastTransitionTime: rfc3339(now),
      };
  let message: string | undefined = current ? undefined : AppStatusMessage.Defaulted;
  const reset = resetCause(entry, observed);
  if (reset !== undefined) {
    const pinned = resolvedRevisions(observed) ?? entry.targetRevisions ?? [];
    entry = { ...moved(entry, RollingSyncStatus.Waiting, RESET_MESSAGE[reset], now), targetRevisions: [...pinned] };
    message = RESET_MESSAGE[reset];
  }
  const next = advance(entry, observed, now);
  return next ? { next, message: next.message, reset } : { next: entry, message, reset };
}

/** Phase B: Waiting → Pending. The entry's `targetRevisions` are the revisions the sync will pin. */
export function promote(entry: AppStatusEntry, now: number): AppStatusEntry {
  return moved(entry, RollingSyncStatus.Pending, AppStatusMessage.MovedToPending, now);
}
