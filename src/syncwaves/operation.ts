/**
 * The lifecycle of `status.operationState` and `status.history`
 * (docs/sync-engine.md#comparison-and-status, docs/sync-engine.md#retry): a new operation's initial
 * state, the end of an attempt (retry or final), the restart of a waiting retry, and the history
 * entry of a successful sync. Pure: time comes in as milliseconds.
 */
import {
  ApplicationDefaults,
  OperationPhase,
  type Operation,
  type OperationState,
  type ResourceResult,
  type RevisionHistory,
} from "../api/index.js";
import { rfc3339 } from "../clock/index.js";
import { canRetry, exhaustedMessage, nextRetryAt, restartMessage, retryingMessage, retryPolicy } from "./retry.js";

/** The state of an operation that has just been picked up. */
export function newOperationState(operation: Operation, nowMs: number): OperationState {
  return { operation, phase: OperationPhase.Running, startedAt: rfc3339(nowMs) };
}

/** True for Failed, Error and Succeeded. */
export function isCompletedPhase(phase: string): boolean {
  return phase === OperationPhase.Failed || phase === OperationPhase.Error || phase === OperationPhase.Succeeded;
}

/** True when a Running state is waiting for its next retry (it carries `finishedAt`). */
export function isAwaitingRetry(state: OperationState): boolean {
  return state.phase === OperationPhase.Running && typeof state.finishedAt === "string";
}

/**
 * Records the outcome of one step. A completed failure (Failed/Error) that may be retried becomes
 * `Running` with `finishedAt` set and the retry count raised; the message names the attempt and
 * the time it will actually run (Argo CD prints a time one backoff step early). Exhausted retries
 * add ` (retried N times).`.
 */
export function recordOutcome(
  state: OperationState,
  outcome: { phase: OperationPhase; message: string; resources?: ResourceResult[] },
  nowMs: number,
): OperationState {
  const syncResult = state.syncResult ?? { revision: state.operation.sync?.revision ?? "" };
  const next: OperationState = {
    ...state,
    phase: outcome.phase,
    message: outcome.message,
    syncResult: outcome.resources !== undefined ? { ...syncResult, resources: outcome.resources } : state.syncResult,
  };
  if (!isCompletedPhase(outcome.phase)) return next;
  next.finishedAt = rfc3339(nowMs);
  if (outcome.phase === OperationPhase.Succeeded) return next;
  const policy = retryPolicy(state.operation.retry);
  const count = state.retryCount ?? 0;
  if (canRetry(policy, count) && policy.limit !== 0) {
    const retryCount = count + 1;
    const at = nextRetryAt(policy, nowMs, retryCount);
    return { ...next, phase: OperationPhase.Running, retryCount, message: retryingMessage(outcome.message, retryCount, at) };
  }
  return count > 0 ? { ...next, message: exhaustedMessage(outcome.message, count) } : next;
}

/**
 * Restarts a retry that is due: clears `finishedAt` and `syncResult` (the operation restarts from
 * scratch, keeping `startedAt`), or returns undefined when the retry is not due yet. With
 * `retry.refresh` the requested revision is cleared so the latest one is used.
 */
export function restartIfDue(state: OperationState, nowMs: number): OperationState | undefined {
  if (!isAwaitingRetry(state)) return undefined;
  const policy = retryPolicy(state.operation.retry);
  const finished = Date.parse(state.finishedAt ?? "");
  const count = state.retryCount ?? 0;
  if (Number.isNaN(finished) || nowMs < nextRetryAt(policy, finished, count)) return undefined;
  const { finishedAt: _f, syncResult: _s, ...rest } = state;
  let operation = state.operation;
  if (policy.refresh && operation.sync !== undefined) {
    const { revision: _r, revisions: _rs, ...sync } = operation.sync;
    operation = { ...operation, sync };
  }
  return { ...rest, operation, message: restartMessage(count, policy.refresh) };
}

/** The milliseconds until a waiting retry is due (0 when due now). */
export function retryDelayMs(state: OperationState, nowMs: number): number {
  const finished = Date.parse(state.finishedAt ?? "");
  if (Number.isNaN(finished)) return 0;
  return Math.max(0, nextRetryAt(retryPolicy(state.operation.retry), finished, state.retryCount ?? 0) - nowMs);
}

/**
 * Appends the history entry of a successful, non-dry-run, non-selective sync (id = last id + 1),
 * keeping the newest `limit` entries (default 10). Returns the history unchanged otherwise.
 */
export function appendHistory(
  history: readonly RevisionHistory[],
  state: OperationState,
  options: { nowMs: number; limit?: number },
): RevisionHistory[] {
  if (!recordsHistory(state)) return [...history];
  const last = history[history.length - 1];
  const entry = historyEntry(state, last === undefined ? 0 : last.id + 1, options.nowMs);
  const limit = options.limit ?? ApplicationDefaults.revisionHistoryLimit;
  const all = [...history, entry];
  return all.slice(Math.max(0, all.length - limit));
}

/** Whether an operation goes into the history: a successful sync, neither dry-run nor selective. */
function recordsHistory(state: OperationState): boolean {
  const sync = state.operation.sync;
  const selective = (sync?.resources?.length ?? 0) > 0;
  return state.phase === OperationPhase.Succeeded && sync?.dryRun !== true && !selective;
}

/**
 * The history entry `id` of a finished operation. A multi-source sync (its result lists `sources`)
 * records `revisions` and `sources`, and the unused single `source` as Argo CD serialises it.
 */
function historyEntry(state: OperationState, id: number, nowMs: number): RevisionHistory {
  const result = state.syncResult;
  const initiatedBy = state.operation.initiatedBy ? { initiatedBy: state.operation.initiatedBy } : {};
  if (result?.sources !== undefined && result.sources.length > 0) {
    const at = { deployedAt: rfc3339(nowMs), deployStartedAt: state.startedAt };
    return { id, ...at, source: { repoURL: "" }, sources: result.sources, revisions: result.revisions ?? [], ...initiatedBy };
  }
  return {
    id,
    revision: result?.revision ?? state.operation.sync?.revision ?? "",
    deployedAt: rfc3339(nowMs),
    deployStartedAt: state.startedAt,
    ...(result?.source ? { source: result.source } : {}),
    ...initiatedBy,
  };
}
