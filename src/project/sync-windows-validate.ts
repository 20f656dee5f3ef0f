/**
 * The checks Argo CD v3.6 makes on a sync window when a project is created or updated
 * (`SyncWindow.Validate`, and the window rules of `AppProject.ValidateProject`), with its messages.
 * Pure.
 */
import type { SyncWindow } from "../api/appproject.js";
import { GoDurationError, parseGoDuration } from "../clock/go-duration.js";
import { parseCronSchedule } from "./cron.js";

const MAX_DESCRIPTION_BYTES = 255;

/** The error of a duration Go cannot parse, or undefined. */
function durationError(text: string): string | undefined {
  try {
    parseGoDuration(text);
    return undefined;
  } catch (error) {
    if (error instanceof GoDurationError) return error.message;
    throw error;
  }
}

/**
 * The first problem of one window, or undefined (Argo CD's `SyncWindow.Validate`), checked in order:
 * `kind 'K' mismatch: can only be allow or deny`, `cannot parse schedule 'S': …`, `cannot parse
 * duration 'D': …`, `description must not exceed 255 characters` (counted in UTF-8 bytes, as Go). An
 * unknown time zone is no error (Argo CD resets it to UTC).
 */
export function validateSyncWindow(window: SyncWindow): string | undefined {
  const kind = window.kind ?? "";
  if (kind !== "allow" && kind !== "deny") return `kind '${kind}' mismatch: can only be allow or deny`;
  const schedule = window.schedule ?? "";
  const parsed = parseCronSchedule(schedule);
  if (parsed.error !== undefined) return `cannot parse schedule '${schedule}': ${parsed.error}`;
  const duration = window.duration ?? "";
  const badDuration = durationError(duration);
  if (badDuration !== undefined) return `cannot parse duration '${duration}': ${badDuration}`;
  if (new TextEncoder().encode(window.description ?? "").length > MAX_DESCRIPTION_BYTES) {
    return `description must not exceed ${String(MAX_DESCRIPTION_BYTES)} characters`;
  }
  return undefined;
}

/**
 * The first problem of a project's windows, or undefined, as `AppProject.ValidateProject` checks
 * them, window by window: {@link validateSyncWindow}, then `window 'K':'S':'D' requires one of
 * application, cluster or namespace` when it sets none. (Argo CD also refuses two windows with the
 * same kind, schedule, duration, lists, time zone and operator; its message carries a Go object hash
 * and is not reproduced here.)
 */
export function syncWindowsProjectError(windows: readonly SyncWindow[] | undefined): string | undefined {
  for (const window of windows ?? []) {
    const problem = validateSyncWindow(window) ?? targetless(window);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The error of a window that names no application, cluster or namespace, or undefined. */
function targetless(window: SyncWindow): string | undefined {
  const lists = [window.applications, window.namespaces, window.clusters];
  if (lists.some((list) => list !== undefined && list.length > 0)) return undefined;
  const id = [window.kind, window.schedule, window.duration].map((part) => `'${part ?? ""}'`).join(":");
  return `window ${id} requires one of application, cluster or namespace`;
}
