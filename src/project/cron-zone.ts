/**
 * Time zones as Go's `time` package uses them for sync windows and cron schedules: a name is loaded
 * as `time.LoadLocation` would load it, offsets and wall clocks come from the IANA data through
 * `Intl` (Node's full ICU), and a wall clock turns back into an instant as `time.Date` does it
 * (normalising overflowing fields, and picking an offset around a transition the way Go does).
 * Pure: no I/O, no clock.
 */
import { remember } from "../bounded-map.js";

/** A time zone: UTC, or an IANA zone by name. */
export type Zone = { readonly kind: "utc" } | { readonly kind: "iana"; readonly name: string };

/** The UTC zone. */
export const UTC_ZONE: Zone = { kind: "utc" };

/** A wall clock reading in a zone; `month` is 1–12 and `weekday` 0 (Sunday) to 6. */
export interface WallClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly weekday: number;
}

/** The date and time fields of a wall clock, any of which may overflow (Go's `time.Date` input). */
export type WallFields = Omit<WallClock, "weekday">;

/** A zone, or Go's error for a name `time.LoadLocation` refuses. */
export type ZoneLoad = { readonly zone: Zone; readonly error?: undefined } | { readonly zone?: undefined; readonly error: string };

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The formatter that reads wall clocks in the IANA zone `name` (memoised), or undefined when ICU does not know it. */
function formatterFor(name: string): Intl.DateTimeFormat | undefined {
  const known = formatters.get(name);
  if (known !== undefined) return known;
  try {
    const options: Intl.DateTimeFormatOptions = { timeZone: name, hourCycle: "h23", era: "short" };
    for (const field of ["year", "month", "day", "hour", "minute", "second"] as const) options[field] = "numeric";
    const made = new Intl.DateTimeFormat("en-US", options);
    remember(formatters, name, made, 1000);
    return made;
  } catch {
    return undefined;
  }
}

/**
 * True when `name` cannot be the exact (case-sensitive) name of a zone file although ICU, which
 * ignores case, knows it: ICU spells it otherwise, or a part of it starts in lower case (no IANA
 * name does).
 */
function misspelled(name: string, resolved: string): boolean {
  if (resolved.toLowerCase() === name.toLowerCase()) return resolved !== name;
  return name.split("/").some((part) => /^[a-z]/.test(part));
}

/**
 * Go's `time.LoadLocation(name)` over the IANA data: `""` and `"UTC"` are UTC; `"Local"` is taken as
 * UTC (the controller's own zone, UTC in its container image); names with `..` or a leading `/` or
 * `\` fail with `time: invalid location name`; an unknown name (offsets such as `+05:00` and case
 * variants included, as zone files are looked up by exact name) fails with `unknown time zone NAME`.
 */
export function loadGoLocation(name: string): ZoneLoad {
  if (name === "" || name === "UTC" || name === "Local") return { zone: UTC_ZONE };
  if (name.includes("..") || name.startsWith("/") || name.startsWith("\\")) return { error: "time: invalid location name" };
  const formatter = /^[+-]/.test(name) ? undefined : formatterFor(name);
  if (formatter === undefined || misspelled(name, formatter.resolvedOptions().timeZone)) {
    return { error: `unknown time zone ${name}` };
  }
  return { zone: { kind: "iana", name } };
}

/** Epoch milliseconds of a UTC wall clock; overflowing fields carry over as in Go's `time.Date`. */
export function utcMillis(fields: WallFields): number {
  const date = new Date(0);
  date.setUTCFullYear(fields.year, fields.month - 1, fields.day);
  date.setUTCHours(fields.hour, fields.minute, fields.second, 0);
  return date.getTime();
}

/** The UTC wall clock at `ms`. */
function utcWallClock(ms: number): WallClock {
  const date = new Date(ms);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    weekday: date.getUTCDay(),
  };
}

/** The wall clock at `ms` in the IANA zone read by `formatter`. */
function zonedWallClock(formatter: Intl.DateTimeFormat, ms: number): WallClock {
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(ms)) parts[part.type] = part.value;
  const year = Number(parts.year) * (parts.era === "BC" ? -1 : 1) + (parts.era === "BC" ? 1 : 0);
  const fields = {
    year,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
  return { ...fields, weekday: new Date(utcMillis({ ...fields, hour: 12, minute: 0, second: 0 })).getUTCDay() };
}

/** The wall clock at the instant `ms` (floored to the second) in `zone`. */
export function wallClock(zone: Zone, ms: number): WallClock {
  const whole = Math.floor(ms / 1000) * 1000;
  if (zone.kind === "utc") return utcWallClock(whole);
  const formatter = formatterFor(zone.name);
  return formatter === undefined ? utcWallClock(whole) : zonedWallClock(formatter, whole);
}

/** The offset from UTC of `zone` at the instant `ms`, in seconds (east positive), as Go's `Time.Zone`. */
export function zoneOffsetSeconds(zone: Zone, ms: number): number {
  if (zone.kind === "utc") return 0;
  const whole = Math.floor(ms / 1000) * 1000;
  return (utcMillis(wallClock(zone, whole)) - whole) / 1000;
}

/**
 * The instant of a wall clock in `zone`, as Go's `time.Date`: fields overflow into the next ones;
 * a time skipped or repeated by a transition takes the offset Go picks (the one in force at the wall
 * clock read as UTC, corrected once when that instant falls outside its period).
 */
export function zonedInstant(zone: Zone, fields: WallFields): number {
  const asUtc = utcMillis(fields);
  if (zone.kind === "utc") return asUtc;
  const first = zoneOffsetSeconds(zone, asUtc);
  if (first === 0) return asUtc;
  return asUtc - zoneOffsetSeconds(zone, asUtc - first * 1000) * 1000;
}
