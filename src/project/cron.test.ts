import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CronField, parseCronSchedule } from "./cron.js";

const range = (from: number, to: number, step = 1): number[] => {
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
};

/** The sorted values of a field. */
const valuesOf = (field: CronField): number[] => [...field.values].sort((a, b) => a - b);

describe("parsing the five fields of a sync window schedule", () => {
  it.each([
    // field: which field is inspected; values/star: what it must hold
    { name: "a star allows every minute and sets the star bit", spec: "* 10 * * *", field: "minute", values: range(0, 59), star: true },
    { name: "a question mark is a star", spec: "0 0 ? * *", field: "dayOfMonth", values: range(1, 31), star: true },
    { name: "a star with step 1 keeps the star bit", spec: "*/1 0 * * *", field: "minute", values: range(0, 59), star: true },
    { name: "a star with a larger step loses the star bit", spec: "*/15 0 * * *", field: "minute", values: [0, 15, 30, 45], star: false },
    { name: "a single number with a step runs to the maximum", spec: "0 5/6 * * *", field: "hour", values: [5, 11, 17, 23], star: false },
    { name: "a range with a step", spec: "1-10/3 0 * * *", field: "minute", values: [1, 4, 7, 10], star: false },
    { name: "a list mixes numbers and ranges", spec: "0 1,3-4,20 * * *", field: "hour", values: [1, 3, 4, 20], star: false },
    { name: "empty list items are skipped", spec: "0 1,,2 * * *", field: "hour", values: [1, 2], star: false },
    { name: "a lone comma allows nothing", spec: "0 , * * *", field: "hour", values: [], star: false },
    { name: "month names are read in any case", spec: "0 0 1 JAN,mar-May *", field: "month", values: [1, 3, 4, 5], star: false },
    { name: "weekday names are read in any case", spec: "0 0 * * Mon-FRI", field: "dayOfWeek", values: [1, 2, 3, 4, 5], star: false },
    { name: "a star followed by a hyphen ignores the rest", spec: "*-5 0 * * *", field: "minute", values: range(0, 59), star: true },
    { name: "a plus sign is allowed before a number", spec: "+5 0 * * *", field: "minute", values: [5], star: false },
    { name: "leading zeros are allowed", spec: "007 0 * * *", field: "minute", values: [7], star: false },
  ])("$name", ({ spec, field, values, star }) => {
    const parsed = parseCronSchedule(spec);
    expect(parsed.error).toBeUndefined();
    const got = parsed.schedule![field as "minute" | "hour" | "dayOfMonth" | "month" | "dayOfWeek"];
    expect(valuesOf(got)).toEqual(values);
    expect(got.star).toBe(star);
  });

  it("reads a schedule without a prefix in UTC", () => {
    expect(parseCronSchedule("0 0 * * *").schedule?.zone).toEqual({ kind: "utc" });
  });

  it.each([
    { name: "a TZ prefix", spec: "TZ=Europe/Paris 0 9 * * *", zone: { kind: "iana", name: "Europe/Paris" } },
    { name: "a CRON_TZ prefix", spec: "CRON_TZ=Asia/Tokyo 0 9 * * *", zone: { kind: "iana", name: "Asia/Tokyo" } },
    { name: "an empty TZ prefix, which is UTC", spec: "TZ= 0 9 * * *", zone: { kind: "utc" } },
    { name: "a Local prefix, which Argo CD evaluates in UTC", spec: "TZ=Local 0 9 * * *", zone: { kind: "utc" } },
  ])("reads the zone of $name", ({ spec, zone }) => {
    expect(parseCronSchedule(spec).schedule?.zone).toEqual(zone);
  });
});

describe("refusing schedules with robfig/cron's messages", () => {
  it.each([
    // spec: the schedule; error: robfig's message
    { name: "an empty schedule", spec: "", error: "empty spec string" },
    { name: "a blank schedule", spec: "   ", error: "expected exactly 5 fields, found 0: []" },
    { name: "too few fields", spec: "* * *", error: "expected exactly 5 fields, found 3: [* * *]" },
    { name: "a seconds field", spec: "0 0 0 * * *", error: "expected exactly 5 fields, found 6: [0 0 0 * * *]" },
    { name: "a descriptor", spec: "@daily", error: "parser does not accept descriptors: @daily" },
    { name: "an every descriptor", spec: "@every 1h", error: "parser does not accept descriptors: @every 1h" },
    { name: "a descriptor after a zone", spec: "TZ=UTC @hourly", error: "parser does not accept descriptors: @hourly" },
    { name: "Sunday as 7", spec: "* 10 * * 7", error: "end of range (7) above maximum (6): 7" },
    { name: "minute 60", spec: "60 * * * *", error: "end of range (60) above maximum (59): 60" },
    { name: "day of month 0", spec: "0 0 0 * *", error: "beginning of range (0) below minimum (1): 0" },
    { name: "a reversed range", spec: "0 5-1 * * *", error: "beginning of range (5) beyond end of range (1): 5-1" },
    { name: "a start past the maximum with a step", spec: "70/5 * * * *", error: "beginning of range (70) beyond end of range (59): 70/5" },
    { name: "a zero step", spec: "*/0 * * * *", error: "step of range should be a positive number: */0" },
    { name: "a negative step", spec: "*/-1 * * * *", error: "negative number (-1) not allowed: -1" },
    { name: "two hyphens", spec: "1-2-3 * * * *", error: "too many hyphens: 1-2-3" },
    { name: "two slashes", spec: "1/2/3 * * * *", error: "too many slashes: 1/2/3" },
    { name: "a word", spec: "x * * * *", error: 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax' },
    { name: "a range without a start", spec: "-5 * * * *", error: 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax' },
    {
      name: "a day name in the month field",
      spec: "0 0 1 mon *",
      error: 'failed to parse int from mon: strconv.Atoi: parsing "mon": invalid syntax',
    },
    {
      name: "a full day name",
      spec: "0 0 * * monday",
      error: 'failed to parse int from monday: strconv.Atoi: parsing "monday": invalid syntax',
    },
    {
      name: "a number beyond int64",
      spec: "99999999999999999999 * * * *",
      error: 'failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range',
    },
    {
      name: "a number within int64 but above the field",
      spec: "9223372036854775807 * * * *",
      error: "end of range (9223372036854775807) above maximum (59): 9223372036854775807",
    },
    {
      name: "an unknown zone",
      spec: "TZ=Mars/Olympus 0 0 * * *",
      error: "provided bad location Mars/Olympus: unknown time zone Mars/Olympus",
    },
    { name: "a zone with a parent path", spec: "TZ=../etc 0 0 * * *", error: "provided bad location ../etc: time: invalid location name" },
    { name: "a zone prefix with nothing after it", spec: "TZ=UTC", error: "provided bad location UTC: no space after the time zone" },
    { name: "the first bad field, in field order", spec: "99 99 * * *", error: "end of range (99) above maximum (59): 99" },
  ])("refuses $name", ({ spec, error }) => {
    expect(parseCronSchedule(spec)).toEqual({ error });
  });
});

describe("cron parsing properties", () => {
  it("accepts any in-range minute and hour and keeps exactly those values", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 23 }), (minute, hour) => {
        const schedule = parseCronSchedule(`${String(minute)} ${String(hour)} * * *`).schedule;
        expect(valuesOf(schedule!.minute)).toEqual([minute]);
        expect(valuesOf(schedule!.hour)).toEqual([hour]);
      }),
    );
  });

  it("refuses any minute above 59 with the range message", () => {
    fc.assert(
      fc.property(fc.integer({ min: 60, max: 1_000_000 }), (minute) => {
        expect(parseCronSchedule(`${String(minute)} * * * *`).error).toBe(
          `end of range (${String(minute)}) above maximum (59): ${String(minute)}`,
        );
      }),
    );
  });

  it("gives a step's values from the start, spaced by the step, within the field", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 59 }), fc.integer({ min: 1, max: 70 }), (start, step) => {
        const field = parseCronSchedule(`${String(start)}/${String(step)} * * * *`).schedule!.minute;
        expect(valuesOf(field)).toEqual(range(start, 59, step));
      }),
    );
  });
});
