/**
 * How Argo CD v3.6's controllers gate syncs on sync windows, and the texts they use: an operation
 * (manual or automated) is held while the windows block it, automated sync is not attempted while
 * they block a new automated sync, and the API server refuses a manual sync. Pure.
 */
import type { SyncWindow } from "../api/appproject.js";
import { canSync } from "./sync-windows.js";
import { matchingWindows, type SyncWindowApplication } from "./sync-windows-match.js";

/**
 * The message a Running sync operation gets while sync windows block it (the controller then leaves
 * the operation as it is and tries again later; an operation being terminated is never blocked).
 */
export const SYNC_OPERATION_BLOCKED_MESSAGE = "Sync operation blocked by sync window";

/**
 * The (info) log line of the application controller when sync windows keep it from attempting an
 * automated sync. No condition is set: the Application's SyncError condition is left as it was.
 */
export const AUTO_SYNC_PREVENTED_MESSAGE = "Sync prevented by sync window";

/** The API server's refusal (PermissionDenied) of a manual sync the windows block. */
export const MANUAL_SYNC_BLOCKED_MESSAGE = "cannot sync: blocked by sync window";

/** The API server's refusal (PermissionDenied) of a manual sync when a window cannot be read. */
export function manualSyncInvalidWindowMessage(error: string): string {
  return `cannot sync: invalid sync window: ${error}`;
}

/**
 * The message of a Running operation the windows block: {@link SYNC_OPERATION_BLOCKED_MESSAGE},
 * followed by `: ERROR` when a window could not be read.
 */
export function blockedOperationMessage(error?: string): string {
  return error === undefined ? SYNC_OPERATION_BLOCKED_MESSAGE : `${SYNC_OPERATION_BLOCKED_MESSAGE}: ${error}`;
}

/** The operation being run, as the controller sees it when gating it. */
export interface GatedOperation {
  /** The current time, epoch ms. */
  readonly nowMs: number;
  /**
   * True when the operation was not started by automated sync (`initiatedBy.automated` false); false
   * when it was, or when the Application has no operation state.
   */
  readonly manual: boolean;
  /** `status.operationState.startedAt` in epoch ms, when set (for `syncOverrun`). */
  readonly operationStartedAtMs?: number | undefined;
}

/** Whether windows hold an operation, and the window error that made them do so, if any. */
export interface SyncWindowGate {
  readonly blocked: boolean;
  readonly error?: string;
}

/**
 * Whether the project's windows hold the Application's sync operation (Argo CD's
 * `syncWindowPreventsSync`): the windows matching `app` are asked {@link canSync} with the
 * operation's kind and start; a window that cannot be read blocks, with its error.
 */
export function syncWindowPreventsSync(
  windows: readonly SyncWindow[] | undefined,
  app: SyncWindowApplication,
  operation: GatedOperation,
): SyncWindowGate {
  const verdict = canSync(matchingWindows(windows, app), operation);
  if (verdict.error !== undefined) return { blocked: true, error: verdict.error };
  return { blocked: !verdict.canSync };
}

/**
 * Whether the application controller may attempt an automated sync of `app` at `nowMs`: the
 * matching windows allow a new automated sync (no operation start, so no overrun). A window that
 * cannot be read prevents it, silently.
 */
export function windowsPermitAutoSync(windows: readonly SyncWindow[] | undefined, app: SyncWindowApplication, nowMs: number): boolean {
  return canSync(matchingWindows(windows, app), { manual: false, nowMs }).canSync;
}
