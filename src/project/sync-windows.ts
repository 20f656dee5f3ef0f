/**
 * AppProject sync windows, evaluated as Argo CD v3.6 evaluates them: which windows are open at a
 * time, which allow windows are closed, and whether a sync may run (deny windows win, allow windows
 * restrict, `manualSync` lets manual syncs through, `syncOverrun` lets a running operation go on).
 *
 * A window opens at each firing of its cron schedule (five fields, see ./cron.ts) and stays open for
 * its Go duration. It is open at `t` when the schedule's next firing strictly after `t − duration`
 * comes strictly before `t`, both read on the wall clock of the window's `timeZone` (UTC when empty
 * or unknown). As in Argo CD, that wall clock is UTC shifted by the zone's offset at the current
 * time (`nowMs`), even when the time evaluated is an operation's start; and a schedule that cannot
 * fire within five years counts as open. Pure: time is passed in as epoch milliseconds.
 */
import type { SyncWindow } from "../api/appproject.js";
import { GoDurationError, parseGoDuration } from "../clock/go-duration.js";
import { parseCronSchedule } from "./cron.js";
import { nextCronTime } from "./cron-next.js";
import { loadGoLocation, zoneOffsetSeconds } from "./cron-zone.js";

export { matchingWindows, type SyncWindowApplication } from "./sync-windows-match.js";

/** Windows selected at a time, or the error of the first window that cannot be read (then no windows). */
export interface WindowSelection {
  readonly windows: readonly SyncWindow[];
  readonly error?: string;
}

/** Whether one window is open, or why it cannot be read. */
export interface WindowOpenness {
  readonly active: boolean;
  readonly error?: string;
}

/** The verdict of {@link canSync}; `error` (with `canSync` false) when a window cannot be read. */
export interface SyncWindowVerdict {
  readonly canSync: boolean;
  readonly error?: string;
}

/** When to evaluate: the time `atMs`, with time zone offsets taken at `offsetAtMs` (Argo CD's "now"). */
interface EvaluationTime {
  readonly atMs: number;
  readonly offsetAtMs: number;
}

const NS_PER_MS = 1_000_000n;

/** Floor division of bigints. */
const floorDiv = (a: bigint, b: bigint): bigint => (a % b !== 0n && a < 0n !== b < 0n ? a / b - 1n : a / b);

/** Epoch ms (possibly fractional) as whole epoch nanoseconds. */
function toNanos(ms: number): bigint {
  const whole = Math.floor(ms);
  return BigInt(whole) * NS_PER_MS + BigInt(Math.round((ms - whole) * 1e6));
}

/**
 * The warning Argo CD logs when a window's `timeZone` is not a zone Go can load (the window is then
 * read in UTC), or undefined when the zone is valid or empty.
 */
export function windowTimeZoneWarning(window: SyncWindow): string | undefined {
  const name = window.timeZone ?? "";
  if (loadGoLocation(name).error === undefined) return undefined;
  return `Invalid time zone ${name} specified. Using UTC as default time zone`;
}

/** The offset of the window's time zone at `atMs`, in seconds; 0 (UTC) when the zone is empty or unknown. */
function windowOffsetSeconds(window: SyncWindow, atMs: number): number {
  const loaded = loadGoLocation(window.timeZone ?? "");
  return loaded.error === undefined ? zoneOffsetSeconds(loaded.zone, atMs) : 0;
}

/** Whether `window` is open at `when.atMs`, or the error reading its schedule or duration. */
function openAt(window: SyncWindow, when: EvaluationTime): WindowOpenness {
  const schedule = window.schedule ?? "";
  const parsed = parseCronSchedule(schedule);
  if (parsed.error !== undefined) return { active: false, error: `cannot parse schedule '${schedule}': ${parsed.error}` };
  const durationText = window.duration ?? "";
  let duration: bigint;
  try {
    duration = parseGoDuration(durationText);
  } catch (error) {
    if (!(error instanceof GoDurationError)) throw error;
    return { active: false, error: `cannot parse duration '${durationText}': ${error.message}` };
  }
  const shiftedNowMs = when.atMs + windowOffsetSeconds(window, when.offsetAtMs) * 1000;
  const fromMs = Number(floorDiv(toNanos(shiftedNowMs) - duration, NS_PER_MS));
  const next = nextCronTime(parsed.schedule, fromMs);
  return { active: next === undefined || next < shiftedNowMs };
}

/**
 * Whether one window is open at `nowMs` (Argo CD's `SyncWindow.Active`): `{active}`, or `{active:
 * false, error}` with `cannot parse schedule '…': …` or `cannot parse duration '…': …`.
 */
export function windowIsActive(window: SyncWindow, nowMs: number): WindowOpenness {
  return openAt(window, { atMs: nowMs, offsetAtMs: nowMs });
}

/** The windows open (or closed) at a time, of kind `allow` only or of any kind; stops at the first unreadable window. */
function select(windows: readonly SyncWindow[], when: EvaluationTime, want: { open: boolean; allowOnly: boolean }): WindowSelection {
  const chosen: SyncWindow[] = [];
  for (const window of windows) {
    if (want.allowOnly && window.kind !== "allow") continue;
    const openness = openAt(window, when);
    if (openness.error !== undefined) return { windows: [], error: openness.error };
    if (openness.active === want.open) chosen.push(window);
  }
  return { windows: chosen };
}

/**
 * The windows open at `nowMs`, in order (Argo CD's `SyncWindows.Active`). Every window's schedule
 * and duration are read; the first that cannot be read gives `{windows: [], error}`.
 */
export function activeWindows(windows: readonly SyncWindow[], nowMs: number): WindowSelection {
  return select(windows, { atMs: nowMs, offsetAtMs: nowMs }, { open: true, allowOnly: false });
}

/**
 * The windows of kind `allow` that are closed at `nowMs`, in order (Argo CD's
 * `SyncWindows.InactiveAllows`); windows of other kinds are not read. Errors as {@link activeWindows}.
 */
export function inactiveAllows(windows: readonly SyncWindow[], nowMs: number): WindowSelection {
  return select(windows, { atMs: nowMs, offsetAtMs: nowMs }, { open: false, allowOnly: true });
}

/** The windows of `kind` among `windows`. */
const ofKind = (windows: readonly SyncWindow[], kind: string): SyncWindow[] => windows.filter((w) => w.kind === kind);

/** True when `windows` is not empty and every one of them has `flag` set. */
const allHave = (windows: readonly SyncWindow[], flag: "manualSync" | "syncOverrun"): boolean =>
  windows.length > 0 && windows.every((w) => w[flag] === true);

/** What a blocked sync gets, told whether every blocking window has `syncOverrun`. */
type OnBlocked = (overrunEnabled: boolean) => SyncWindowVerdict;

const NEVER_OVERRUN: OnBlocked = () => ({ canSync: false });

/** The rules at one time: open denies, then open allows, then closed allows; `onBlocked` decides a blocked sync. */
function decide(windows: readonly SyncWindow[], manual: boolean, when: EvaluationTime, onBlocked: OnBlocked): SyncWindowVerdict {
  const active = select(windows, when, { open: true, allowOnly: false });
  if (active.error !== undefined) return { canSync: false, error: `invalid sync windows: ${active.error}` };
  const denies = ofKind(active.windows, "deny");
  if (denies.length > 0) return manual && allHave(denies, "manualSync") ? { canSync: true } : onBlocked(allHave(denies, "syncOverrun"));
  if (ofKind(active.windows, "allow").length > 0) return { canSync: true };
  const closed = select(windows, when, { open: false, allowOnly: true });
  if (closed.error !== undefined) return { canSync: false, error: `invalid sync windows: ${closed.error}` };
  if (closed.windows.length === 0) return { canSync: true };
  return manual && allHave(closed.windows, "manualSync") ? { canSync: true } : onBlocked(allHave(closed.windows, "syncOverrun"));
}

/** Options of {@link canSync}. */
export interface CanSyncOptions {
  /** True for a sync a user asked for; false for an automated one. */
  readonly manual: boolean;
  /** The current time, epoch ms. */
  readonly nowMs: number;
  /** When the running operation started (epoch ms), for `syncOverrun`; undefined for a new sync. */
  readonly operationStartedAtMs?: number | undefined;
}

/** Go's zero time (0001-01-01T00:00:00Z) in epoch ms: a start time Argo CD treats as absent. */
const GO_ZERO_TIME_MS = -62_135_596_800_000;

/** True when the operation start lets `syncOverrun` be considered. */
const hasStart = (startMs: number | undefined): startMs is number => startMs !== undefined && startMs !== GO_ZERO_TIME_MS;

/**
 * A blocked operation may go on when every blocking window has `syncOverrun` and the same rules
 * (without overrun) let it run when it started; zone offsets stay those of now, as in Argo CD.
 */
function overrun(windows: readonly SyncWindow[], options: CanSyncOptions, overrunEnabled: boolean): SyncWindowVerdict {
  const startedAtMs = options.operationStartedAtMs;
  if (!overrunEnabled || !hasStart(startedAtMs)) return { canSync: false };
  return decide(windows, options.manual, { atMs: startedAtMs, offsetAtMs: options.nowMs }, NEVER_OVERRUN);
}

/**
 * Whether the (already matched) windows let a sync run at `nowMs`, as Argo CD v3.6's
 * `SyncWindows.CanSync`:
 * - no windows: yes;
 * - an open deny window: no, unless the sync is manual and every open deny window has `manualSync`;
 *   or the operation started (`operationStartedAtMs`) when these rules allowed it and every open deny
 *   window has `syncOverrun`;
 * - else an open allow window: yes;
 * - else a closed allow window: no, unless manual and every closed allow window has `manualSync`, or
 *   the operation started when the rules allowed it and every closed allow window has `syncOverrun`;
 * - else yes.
 * A window whose schedule or duration cannot be read gives `{canSync: false, error: "invalid sync
 * windows: cannot parse …"}`. An unknown `timeZone` is no error: the window is read in UTC.
 */
export function canSync(windows: readonly SyncWindow[], options: CanSyncOptions): SyncWindowVerdict {
  if (windows.length === 0) return { canSync: true };
  const now = { atMs: options.nowMs, offsetAtMs: options.nowMs };
  return decide(windows, options.manual, now, (overrunEnabled) => overrun(windows, options, overrunEnabled));
}
