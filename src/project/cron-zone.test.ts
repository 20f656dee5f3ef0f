import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadGoLocation, UTC_ZONE, wallClock, type Zone, zonedInstant, zoneOffsetSeconds } from "./cron-zone.js";

const zone = (name: string): Zone => ({ kind: "iana", name });

describe("loading time zones as Go's time.LoadLocation does", () => {
  it.each([
    // input: the name; want: the zone, or Go's error
    { name: "an empty name is UTC", input: "", want: { zone: UTC_ZONE } },
    { name: "UTC is UTC", input: "UTC", want: { zone: UTC_ZONE } },
    { name: "Local is taken as UTC", input: "Local", want: { zone: UTC_ZONE } },
    { name: "a canonical IANA name loads", input: "America/New_York", want: { zone: zone("America/New_York") } },
    { name: "a backward-compatible alias loads", input: "US/Eastern", want: { zone: zone("US/Eastern") } },
    { name: "a fixed Etc zone loads", input: "Etc/GMT+5", want: { zone: zone("Etc/GMT+5") } },
    {
      name: "a lower-case name is unknown, as zone files are case-sensitive",
      input: "america/new_york",
      want: { error: "unknown time zone america/new_york" },
    },
    { name: "a lower-case alias is unknown", input: "us/eastern", want: { error: "unknown time zone us/eastern" } },
    { name: "lower-case utc is unknown", input: "utc", want: { error: "unknown time zone utc" } },
    { name: "an offset is not a zone name", input: "+05:00", want: { error: "unknown time zone +05:00" } },
    { name: "an unknown name", input: "Mars/Olympus", want: { error: "unknown time zone Mars/Olympus" } },
    { name: "a parent path is refused", input: "../etc/passwd", want: { error: "time: invalid location name" } },
    { name: "an absolute path is refused", input: "/etc/localtime", want: { error: "time: invalid location name" } },
  ])("$name", ({ input, want }) => {
    expect(loadGoLocation(input)).toEqual(want);
  });
});

describe("offsets and wall clocks", () => {
  it.each([
    // zone: the zone name; at: the instant; offset: seconds east of UTC
    { name: "New York in winter", zone: "America/New_York", at: "2024-01-15T12:00:00Z", offset: -5 * 3600 },
    { name: "New York in summer", zone: "America/New_York", at: "2024-07-15T12:00:00Z", offset: -4 * 3600 },
    { name: "Kolkata's half hour", zone: "Asia/Kolkata", at: "2024-07-15T12:00:00Z", offset: 5.5 * 3600 },
    { name: "Kathmandu's quarter hour", zone: "Asia/Kathmandu", at: "2024-07-15T12:00:00Z", offset: 5.75 * 3600 },
  ])("gives the offset of $name", ({ zone: name, at, offset }) => {
    expect(zoneOffsetSeconds(zone(name), Date.parse(at))).toBe(offset);
  });

  it("reads the weekday of the zone's date, not of UTC's", () => {
    // 2024-03-04T23:30Z is Monday in UTC and already Tuesday in Tokyo.
    expect(wallClock(zone("Asia/Tokyo"), Date.parse("2024-03-04T23:30:00Z"))).toEqual({
      year: 2024,
      month: 3,
      day: 5,
      hour: 8,
      minute: 30,
      second: 0,
      weekday: 2,
    });
  });

  it.each([
    // zone: where the wall clock is read; fields: the wall clock; want: the instant Go's time.Date gives
    {
      name: "an ordinary time",
      zone: "America/New_York",
      fields: { year: 2024, month: 7, day: 1, hour: 9, minute: 0, second: 0 },
      want: "2024-07-01T13:00:00.000Z",
    },
    {
      name: "a time skipped in New York",
      zone: "America/New_York",
      fields: { year: 2024, month: 3, day: 10, hour: 2, minute: 30, second: 0 },
      want: "2024-03-10T06:30:00.000Z",
    },
    {
      name: "a time repeated in New York (its first instance)",
      zone: "America/New_York",
      fields: { year: 2024, month: 11, day: 3, hour: 1, minute: 30, second: 0 },
      want: "2024-11-03T05:30:00.000Z",
    },
    {
      name: "a time skipped in Berlin",
      zone: "Europe/Berlin",
      fields: { year: 2024, month: 3, day: 31, hour: 2, minute: 30, second: 0 },
      want: "2024-03-31T01:30:00.000Z",
    },
    {
      name: "a time repeated in Berlin (its second instance)",
      zone: "Europe/Berlin",
      fields: { year: 2024, month: 10, day: 27, hour: 2, minute: 30, second: 0 },
      want: "2024-10-27T01:30:00.000Z",
    },
    {
      name: "an overflowing day",
      zone: "America/New_York",
      fields: { year: 2024, month: 1, day: 32, hour: 0, minute: 0, second: 0 },
      want: "2024-02-01T05:00:00.000Z",
    },
    {
      name: "an overflowing month",
      zone: "America/New_York",
      fields: { year: 2024, month: 13, day: 1, hour: 0, minute: 0, second: 0 },
      want: "2025-01-01T05:00:00.000Z",
    },
  ])("turns $name into the instant Go picks", ({ zone: name, fields, want }) => {
    expect(new Date(zonedInstant(zone(name), fields)).toISOString()).toBe(want);
  });

  it("round-trips every instant through its wall clock in a zone with daylight saving time", () => {
    const berlin = zone("Europe/Berlin");
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1980, 0, 1), max: Date.UTC(2080, 0, 1) }), (ms) => {
        const whole = Math.floor(ms / 1000) * 1000;
        const wall = wallClock(berlin, whole);
        const back = zonedInstant(berlin, wall);
        // A repeated wall-clock hour maps back to its later instance, one hour on.
        expect([whole, whole + 3_600_000]).toContain(back);
      }),
    );
  });
});
