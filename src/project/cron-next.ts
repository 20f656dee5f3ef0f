/**
 * The next time a cron schedule fires, as robfig/cron v3's `SpecSchedule.Next` finds it: the first
 * whole second strictly after the given time whose wall clock, in the schedule's zone, the schedule
 * allows; searched field by field (month, day, hour, minute, second) with robfig's handling of
 * daylight-saving transitions, and given up after five years. Pure.
 */
import type { CronField, CronSchedule } from "./cron.js";
import { type WallClock, wallClock, type Zone, zonedInstant } from "./cron-zone.js";

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;

/** robfig's `dayMatches`: both day fields must allow the day when either is a star, else either may. */
export function dayMatches(schedule: CronSchedule, wall: WallClock): boolean {
  const domMatch = schedule.dayOfMonth.values.has(wall.day);
  const dowMatch = schedule.dayOfWeek.values.has(wall.weekday);
  if (schedule.dayOfMonth.star || schedule.dayOfWeek.star) return domMatch && dowMatch;
  return domMatch || dowMatch;
}

/** True when no day can ever match (an empty day field where both are required, or both empty). */
function noDayCanMatch(schedule: CronSchedule): boolean {
  const domEmpty = schedule.dayOfMonth.values.size === 0;
  const dowEmpty = schedule.dayOfWeek.values.size === 0;
  if (schedule.dayOfMonth.star || schedule.dayOfWeek.star) return domEmpty || dowEmpty;
  return domEmpty && dowEmpty;
}

/** The search state: the candidate instant, and whether a field has moved it yet. */
interface Search {
  readonly schedule: CronSchedule;
  readonly zone: Zone;
  t: number;
  added: boolean;
}

/** The candidate's wall clock in the schedule's zone. */
const wall = (s: Search): WallClock => wallClock(s.zone, s.t);

/** Go's `AddDate(0, months, days)` of the candidate, in its zone. */
function addDate(s: Search, months: number, days: number): number {
  const w = wall(s);
  return zonedInstant(s.zone, { ...w, month: w.month + months, day: w.day + days });
}

/** Moves to the first month the schedule allows; false when the search must start over (a new year). */
function seekMonth(s: Search): boolean {
  while (!s.schedule.month.values.has(wall(s).month)) {
    if (!s.added) {
      s.added = true;
      const w = wall(s);
      s.t = zonedInstant(s.zone, { year: w.year, month: w.month, day: 1, hour: 0, minute: 0, second: 0 });
    }
    s.t = addDate(s, 1, 0);
    if (wall(s).month === 1) return false;
  }
  return true;
}

/** Moves to the first day the schedule allows; false when the search must start over (a new month). */
function seekDay(s: Search): boolean {
  while (!dayMatches(s.schedule, wall(s))) {
    if (!s.added) {
      s.added = true;
      const w = wall(s);
      s.t = zonedInstant(s.zone, { year: w.year, month: w.month, day: w.day, hour: 0, minute: 0, second: 0 });
    }
    s.t = addDate(s, 0, 1);
    // A midnight skipped or doubled by daylight saving time lands on 23:00 or 01:00: go back to midnight.
    const hour = wall(s).hour;
    if (hour !== 0) s.t += (hour > 12 ? 24 - hour : -hour) * HOUR_MS;
    if (wall(s).day === 1) return false;
  }
  return true;
}

/** Moves to the first hour the schedule allows; false when the search must start over (a new day). */
function seekHour(s: Search): boolean {
  while (!s.schedule.hour.values.has(wall(s).hour)) {
    if (!s.added) {
      s.added = true;
      const w = wall(s);
      s.t = zonedInstant(s.zone, { year: w.year, month: w.month, day: w.day, hour: w.hour, minute: 0, second: 0 });
    }
    s.t += HOUR_MS;
    if (wall(s).hour === 0) return false;
  }
  return true;
}

/** Moves by `step` until `field` allows the wall clock's `unit`; false when it wraps to 0 (start over). */
function seekSmall(s: Search, unit: "minute" | "second", field: CronField): boolean {
  const step = unit === "minute" ? MINUTE_MS : SECOND_MS;
  while (!field.values.has(wall(s)[unit])) {
    if (!s.added) {
      s.added = true;
      s.t = Math.floor(s.t / step) * step;
    }
    s.t += step;
    if (wall(s)[unit] === 0) return false;
  }
  return true;
}

const SECOND_ZERO: CronField = { values: new Set([0]), star: false };

/** True when a field the search cannot skip allows no value: robfig searches five years, then gives up. */
function hopeless(schedule: CronSchedule): boolean {
  return (
    schedule.month.values.size === 0 || schedule.hour.values.size === 0 || schedule.minute.values.size === 0 || noDayCanMatch(schedule)
  );
}

/**
 * The first instant (epoch ms, a whole second) strictly after `afterMs` at which `schedule` fires,
 * read in the schedule's zone; undefined when there is none within five years of `afterMs` (robfig
 * then returns Go's zero time, which callers compare as earlier than any time).
 */
export function nextCronTime(schedule: CronSchedule, afterMs: number): number | undefined {
  if (hopeless(schedule)) return undefined;
  const s: Search = { schedule, zone: schedule.zone, t: Math.floor(afterMs / SECOND_MS) * SECOND_MS + SECOND_MS, added: false };
  const yearLimit = wall(s).year + 5;
  for (;;) {
    if (wall(s).year > yearLimit) return undefined;
    if (seekMonth(s) && seekDay(s) && seekHour(s) && seekSmall(s, "minute", schedule.minute) && seekSmall(s, "second", SECOND_ZERO))
      return s.t;
  }
}
