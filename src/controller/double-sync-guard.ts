/**
 * The guard against syncing one revision twice
 * (docs/controller.md#no-double-sync-after-a-conflict): a RollingSync write carries a sync
 * `operation` with pinned revisions; when that write meets a 409 Conflict, the executor re-reads
 * the Application, and this pure check says whether the fresh read shows the sync already requested
 * or already run since the plan looked. Then nothing is written and the next reconcile decides
 * again.
 */
import type { Application, OperationState } from "../api/index.js";
import { parseTime } from "../progressivesync/index.js";
import type { JsonObject } from "../json/index.js";

/** The pinned revisions of a sync operation: `sync.revisions`, else `[sync.revision]`, else []. */
export function pinnedRevisions(operation: { readonly sync?: unknown } | undefined): string[] {
  const sync = operation?.sync;
  if (typeof sync !== "object" || sync === null) return [];
  const { revision, revisions } = sync as { revision?: unknown; revisions?: unknown };
  if (Array.isArray(revisions) && revisions.length > 0) return revisions.filter((r): r is string => typeof r === "string");
  return typeof revision === "string" && revision !== "" ? [revision] : [];
}

/** The revisions an operation state ran (its `syncResult`), or else was asked to run. */
function stateRevisions(state: OperationState): string[] {
  const result = state.syncResult;
  if (result !== undefined)
    return result.revisions !== undefined && result.revisions.length > 0 ? [...result.revisions] : result.revision ? [result.revision] : [];
  return pinnedRevisions(state.operation);
}

/**
 * Why writing `operation` onto `fresh` would request a sync twice, or undefined when it would not:
 * the fresh Application already carries an operation, or its `status.operationState` is for the same
 * pinned revisions and started after the operation state of `seen` (the Application the plan read).
 */
export function syncedMeanwhile(
  operation: JsonObject | undefined,
  seen: Application | undefined,
  fresh: Application | undefined,
): string | undefined {
  if (operation === undefined || fresh === undefined) return undefined;
  if (fresh.operation != null) return "the Application already has an operation";
  const state = fresh.status?.operationState;
  const pinned = pinnedRevisions(operation);
  if (state === undefined || pinned.length === 0 || !sameRevisions(stateRevisions(state), pinned)) return undefined;
  if (!startedAfter(state, seen?.status?.operationState)) return undefined;
  return `an operation for revisions [${pinned.join(", ")}] started at ${state.startedAt}`;
}

function sameRevisions(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((r, i) => r === b[i]);
}

/** Whether `state` started after `before` (any valid start counts when nothing was seen). */
function startedAfter(state: OperationState, before: OperationState | undefined): boolean {
  const started = parseTime(state.startedAt);
  const seen = parseTime(before?.startedAt);
  return started !== undefined && (seen === undefined || started > seen);
}
