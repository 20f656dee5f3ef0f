import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCronSchedule } from "./cron.js";
import { nextCronTime } from "./cron-next.js";

const at = (iso: string): number => Date.parse(iso);

/** The next firing of `spec` after `afterIso`, as ISO text ("none" when robfig gives up). */
function next(spec: string, afterIso: string): string {
  const parsed = parseCronSchedule(spec);
  if (parsed.error !== undefined) throw new Error(parsed.error);
  const found = nextCronTime(parsed.schedule, at(afterIso));
  return found === undefined ? "none" : new Date(found).toISOString();
}

describe("the next firing of a schedule, as robfig/cron finds it", () => {
  // Expected values are those of robfig/cron v3 (the version Argo CD v3.6 pins) for the same input.
  it.each([
    // spec: the schedule; after: the time searched from; want: the next firing (UTC)
    { name: "a daily time later the same day", spec: "0 10 * * *", after: "2024-03-05T09:59:59.999Z", want: "2024-03-05T10:00:00.000Z" },
    {
      name: "a firing exactly at the input is not after it",
      spec: "0 10 * * *",
      after: "2024-03-05T10:00:00.000Z",
      want: "2024-03-06T10:00:00.000Z",
    },
    {
      name: "a fraction of a second past the firing moves a day",
      spec: "0 10 * * *",
      after: "2024-03-05T10:00:00.500Z",
      want: "2024-03-06T10:00:00.000Z",
    },
    {
      name: "every minute fires at the next whole minute",
      spec: "* * * * *",
      after: "2024-03-05T10:00:30.000Z",
      want: "2024-03-05T10:01:00.000Z",
    },
    {
      name: "a minute step rolls into the next hour",
      spec: "*/15 * * * *",
      after: "2024-03-05T10:50:00.000Z",
      want: "2024-03-05T11:00:00.000Z",
    },
    {
      name: "29 February waits for the next leap year",
      spec: "0 0 29 2 *",
      after: "2024-03-01T00:00:00.000Z",
      want: "2028-02-29T00:00:00.000Z",
    },
    { name: "the 31st skips months without one", spec: "0 0 31 * *", after: "2024-04-01T00:00:00.000Z", want: "2024-05-31T00:00:00.000Z" },
    {
      name: "two restricted day fields combine with OR",
      spec: "0 0 13 * 5",
      after: "2024-01-01T00:00:00.000Z",
      want: "2024-01-05T00:00:00.000Z",
    },
    {
      name: "a stepped day of month is restricted, so OR applies",
      spec: "0 0 */2 * 5",
      after: "2024-01-01T00:00:00.000Z",
      want: "2024-01-03T00:00:00.000Z",
    },
    { name: "a weekday name", spec: "0 0 * * sun", after: "2024-01-01T00:00:00.000Z", want: "2024-01-07T00:00:00.000Z" },
    { name: "a date that never comes gives up after five years", spec: "0 0 30 2 *", after: "2024-01-01T00:00:00.000Z", want: "none" },
    { name: "a month name in the next year", spec: "0 0 1 jan *", after: "2024-06-15T12:00:00.000Z", want: "2025-01-01T00:00:00.000Z" },
    { name: "a year end", spec: "30 2 * * *", after: "2024-12-31T23:59:59.000Z", want: "2025-01-01T02:30:00.000Z" },
    { name: "a zone's local time", spec: "TZ=Asia/Kolkata 0 9 * * *", after: "2024-03-05T00:00:00.000Z", want: "2024-03-05T03:30:00.000Z" },
    {
      name: "a time skipped by daylight saving time is skipped",
      spec: "TZ=America/New_York 30 2 * * *",
      after: "2024-03-10T05:00:00.000Z",
      want: "2024-03-11T06:30:00.000Z",
    },
    {
      name: "a repeated time fires first in summer time",
      spec: "TZ=America/New_York 30 1 * * *",
      after: "2024-11-03T04:00:00.000Z",
      want: "2024-11-03T05:30:00.000Z",
    },
    {
      name: "a repeated time fires again in winter time",
      spec: "TZ=America/New_York 30 1 * * *",
      after: "2024-11-03T05:31:00.000Z",
      want: "2024-11-03T06:30:00.000Z",
    },
    {
      name: "a skipped midnight skips the whole day, as robfig does",
      spec: "TZ=America/Sao_Paulo 0 0 * * *",
      after: "2018-11-03T12:00:00.000Z",
      want: "2018-11-05T02:00:00.000Z",
    },
    {
      name: "a half-hour daylight saving jump",
      spec: "TZ=Australia/Lord_Howe 15 2 * * *",
      after: "2024-10-06T00:00:00.000Z",
      want: "2024-10-06T15:15:00.000Z",
    },
    { name: "an empty field never fires", spec: "0 , * * *", after: "2024-01-01T00:00:00.000Z", want: "none" },
  ])("finds $name", ({ spec, after, want }) => {
    expect(next(spec, after)).toBe(want);
  });
});

const DAY_MS = 86_400_000;
const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2090, 0, 1) });

describe("next-firing properties", () => {
  it("is always strictly after its input, on a whole minute", () => {
    const field = (max: number): fc.Arbitrary<string> => fc.oneof(fc.constant("*"), fc.integer({ min: 0, max }).map(String));
    const spec = fc.tuple(
      field(59),
      field(23),
      fc.constantFrom("*", "1", "15", "28"),
      fc.constantFrom("*", "2", "jun"),
      fc.constantFrom("*", "0", "mon-fri"),
    );
    fc.assert(
      fc.property(spec, instant, (fields, after) => {
        const found = nextCronTime(parseCronSchedule(fields.join(" ")).schedule!, after);
        expect(found).toBeDefined();
        expect(found!).toBeGreaterThan(after);
        expect(found! % 60_000).toBe(0);
      }),
    );
  });

  it("fires a daily schedule at its time on the same day when still ahead, else the next day", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 23 }), instant, (minute, hour, after) => {
        const sameDay = Math.floor(after / DAY_MS) * DAY_MS + hour * 3_600_000 + minute * 60_000;
        const want = sameDay > after ? sameDay : sameDay + DAY_MS;
        expect(nextCronTime(parseCronSchedule(`${String(minute)} ${String(hour)} * * *`).schedule!, after)).toBe(want);
      }),
    );
  });

  it("fires in a zone at the same wall-clock time the zone shows", () => {
    const formatter = new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Berlin", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 59 }), fc.integer({ min: 4, max: 23 }), instant, (minute, hour, after) => {
        const found = nextCronTime(parseCronSchedule(`TZ=Europe/Berlin ${String(minute)} ${String(hour)} * * *`).schedule!, after);
        const pad = (n: number): string => String(n).padStart(2, "0");
        expect(formatter.format(found)).toBe(`${pad(hour)}:${pad(minute)}`);
      }),
    );
  });
});
