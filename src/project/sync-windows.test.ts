import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SyncWindow } from "../api/appproject.js";
import { activeWindows, canSync, inactiveAllows, windowIsActive, windowTimeZoneWarning } from "./sync-windows.js";

const at = (iso: string): number => Date.parse(iso);

/** A window that applies to every application (matching is tested elsewhere). */
const win = (kind: string, schedule: string, duration: string, extra: Partial<SyncWindow> = {}): SyncWindow => ({
  kind,
  schedule,
  duration,
  applications: ["*"],
  ...extra,
});

describe("whether one window is open", () => {
  it.each([
    // window: the window; now: the time asked about; active: whether it is open then
    {
      name: "a window is closed at the very second it opens",
      window: win("allow", "0 10 * * *", "1h"),
      now: "2024-03-05T10:00:00.000Z",
      active: false,
    },
    {
      name: "a window is open just after it opens",
      window: win("allow", "0 10 * * *", "1h"),
      now: "2024-03-05T10:00:00.001Z",
      active: true,
    },
    {
      name: "a window is open just before its duration ends",
      window: win("allow", "0 10 * * *", "1h"),
      now: "2024-03-05T10:59:59.999Z",
      active: true,
    },
    {
      name: "a window is closed when its duration ends",
      window: win("allow", "0 10 * * *", "1h"),
      now: "2024-03-05T11:00:00.000Z",
      active: false,
    },
    {
      name: "a window firing every minute of an hour stays open after that hour",
      window: win("allow", "* 10 * * *", "2h"),
      now: "2024-03-05T12:30:00.000Z",
      active: true,
    },
    {
      name: "such a window closes two hours after its last firing",
      window: win("allow", "* 10 * * *", "2h"),
      now: "2024-03-05T12:59:30.000Z",
      active: false,
    },
    {
      name: "a window opens on its zone's wall clock",
      window: win("allow", "0 9 * * *", "1h", { timeZone: "Asia/Kolkata" }),
      now: "2024-03-05T03:45:00.000Z",
      active: true,
    },
    {
      name: "a zoned window is closed at the same UTC hour",
      window: win("allow", "0 9 * * *", "1h", { timeZone: "Asia/Kolkata" }),
      now: "2024-03-05T09:30:00.000Z",
      active: false,
    },
    {
      name: "a window in New York follows its summer offset",
      window: win("allow", "0 9 * * *", "1h", { timeZone: "America/New_York" }),
      now: "2024-07-01T13:30:00.000Z",
      active: true,
    },
    {
      name: "an unknown time zone is read as UTC",
      window: win("allow", "0 9 * * *", "1h", { timeZone: "Mars/Olympus" }),
      now: "2024-03-05T09:30:00.000Z",
      active: true,
    },
    {
      name: "a weekday window is closed on other days",
      window: win("deny", "0 0 * * sat", "48h"),
      now: "2024-03-05T12:00:00.000Z",
      active: false,
    },
    {
      name: "a weekday window spans its whole duration",
      window: win("deny", "0 0 * * sat", "48h"),
      now: "2024-03-10T23:59:00.000Z",
      active: true,
    },
    {
      name: "a schedule that never fires counts as open, as robfig gives up",
      window: win("deny", "0 0 30 2 *", "1h"),
      now: "2024-03-05T12:00:00.000Z",
      active: true,
    },
    { name: "a zero duration is never open", window: win("allow", "* * * * *", "0"), now: "2024-03-05T12:00:30.000Z", active: false },
    { name: "a negative duration is never open", window: win("allow", "* * * * *", "-1h"), now: "2024-03-05T12:00:30.000Z", active: false },
    { name: "a duration in mixed units", window: win("allow", "0 10 * * *", "1h30m"), now: "2024-03-05T11:29:00.000Z", active: true },
    {
      name: "a time-zone prefix in the schedule is honoured",
      window: win("allow", "TZ=Asia/Tokyo 0 9 * * *", "1h"),
      now: "2024-03-05T00:30:00.000Z",
      active: true,
    },
  ])("$name", ({ window, now, active }) => {
    expect(windowIsActive(window, at(now))).toEqual({ active });
  });

  it.each([
    // window: an unreadable window; error: what Argo CD says of it
    {
      name: "a schedule with Sunday as 7",
      window: win("allow", "* 10 * * 7", "3h"),
      error: "cannot parse schedule '* 10 * * 7': end of range (7) above maximum (6): 7",
    },
    {
      name: "a descriptor",
      window: win("allow", "@daily", "3h"),
      error: "cannot parse schedule '@daily': parser does not accept descriptors: @daily",
    },
    { name: "an empty schedule", window: win("allow", "", "1h"), error: "cannot parse schedule '': empty spec string" },
    {
      name: "a duration without a known unit",
      window: win("allow", "* 10 * * *", "3a"),
      error: `cannot parse duration '3a': time: unknown unit "a" in duration "3a"`,
    },
    {
      name: "a duration without a unit",
      window: win("allow", "* 10 * * *", "3"),
      error: `cannot parse duration '3': time: missing unit in duration "3"`,
    },
    { name: "an empty duration", window: win("allow", "* 10 * * *", ""), error: `cannot parse duration '': time: invalid duration ""` },
  ])("reports $name", ({ window, error }) => {
    expect(windowIsActive(window, at("2024-03-05T12:00:00Z"))).toEqual({ active: false, error });
  });

  it("warns of an unknown time zone as Argo CD logs it", () => {
    expect(windowTimeZoneWarning(win("allow", "* * * * *", "1h", { timeZone: "Nowhere" }))).toBe(
      "Invalid time zone Nowhere specified. Using UTC as default time zone",
    );
    expect(windowTimeZoneWarning(win("allow", "* * * * *", "1h", { timeZone: "Europe/Paris" }))).toBeUndefined();
  });
});

describe("selecting open windows and closed allow windows", () => {
  const morning = win("allow", "0 8 * * *", "2h");
  const noon = win("allow", "0 12 * * *", "2h");
  const noonDeny = win("deny", "0 12 * * *", "1h");
  const odd = win("maintenance", "0 8 * * *", "2h");
  const broken = win("deny", "bad", "1h");

  it("returns the open windows of every kind, in order", () => {
    expect(activeWindows([morning, noon, noonDeny], at("2024-03-05T12:30:00Z"))).toEqual({ windows: [noon, noonDeny] });
  });

  it("returns the closed allow windows only, ignoring other kinds", () => {
    expect(inactiveAllows([morning, noon, noonDeny, odd], at("2024-03-05T12:30:00Z"))).toEqual({ windows: [morning] });
  });

  it("fails on the first unreadable window when selecting open windows", () => {
    expect(activeWindows([morning, broken], at("2024-03-05T12:30:00Z"))).toEqual({
      windows: [],
      error: "cannot parse schedule 'bad': expected exactly 5 fields, found 1: [bad]",
    });
  });

  it("does not read windows of other kinds when selecting closed allow windows", () => {
    expect(inactiveAllows([morning, broken], at("2024-03-05T12:30:00Z"))).toEqual({ windows: [morning] });
  });

  it("puts every allow window in exactly one of the two selections", () => {
    const hour = fc.integer({ min: 0, max: 23 }).map(String);
    const allow = fc.tuple(hour, fc.constantFrom("30m", "1h", "3h")).map(([h, d]) => win("allow", `0 ${h} * * *`, d));
    fc.assert(
      fc.property(
        fc.array(allow, { maxLength: 5 }),
        fc.integer({ min: at("2024-01-01T00:00:00Z"), max: at("2025-01-01T00:00:00Z") }),
        (windows, now) => {
          const open = activeWindows(windows, now).windows;
          const closed = inactiveAllows(windows, now).windows;
          expect(open.length + closed.length).toBe(windows.length);
          for (const window of windows) expect(open.includes(window)).not.toBe(closed.includes(window));
        },
      ),
    );
  });
});

const NOW = "2024-03-05T12:30:00.000Z";
const allowOpen = win("allow", "0 12 * * *", "1h");
const allowClosed = win("allow", "0 8 * * *", "1h");
const denyOpen = win("deny", "0 12 * * *", "1h");

describe("whether windows let a new sync run", () => {
  it.each([
    // windows: the matched windows; manual: a user's sync (else automated); want: the verdict
    { name: "no windows allow any sync", windows: [], manual: false, want: true },
    { name: "an open allow window allows an automated sync", windows: [allowOpen], manual: false, want: true },
    { name: "an open deny window blocks an automated sync", windows: [denyOpen], manual: false, want: false },
    { name: "an open deny window blocks a manual sync without manualSync", windows: [denyOpen], manual: true, want: false },
    {
      name: "an open deny window with manualSync lets a manual sync through",
      windows: [{ ...denyOpen, manualSync: true }],
      manual: true,
      want: true,
    },
    { name: "manualSync does not help an automated sync", windows: [{ ...denyOpen, manualSync: true }], manual: false, want: false },
    {
      name: "every open deny window must have manualSync",
      windows: [{ ...denyOpen, manualSync: true }, denyOpen],
      manual: true,
      want: false,
    },
    { name: "an open deny window wins over an open allow window", windows: [allowOpen, denyOpen], manual: false, want: false },
    { name: "a closed allow window blocks an automated sync", windows: [allowClosed], manual: false, want: false },
    {
      name: "a closed allow window with manualSync lets a manual sync through",
      windows: [{ ...allowClosed, manualSync: true }],
      manual: true,
      want: true,
    },
    {
      name: "every closed allow window must have manualSync",
      windows: [{ ...allowClosed, manualSync: true }, allowClosed],
      manual: true,
      want: false,
    },
    { name: "an open allow window outweighs closed ones", windows: [allowClosed, allowOpen], manual: false, want: true },
    { name: "a closed deny window changes nothing", windows: [win("deny", "0 8 * * *", "1h")], manual: false, want: true },
    { name: "an open window of another kind changes nothing", windows: [win("Deny", "0 12 * * *", "1h")], manual: false, want: true },
    { name: "a closed window of another kind changes nothing", windows: [win("Allow", "0 8 * * *", "1h")], manual: false, want: true },
  ])("$name", ({ windows, manual, want }) => {
    expect(canSync(windows, { manual, nowMs: at(NOW) })).toEqual({ canSync: want });
  });

  it.each([
    // windows: with an unreadable one; error: the verdict's error
    {
      name: "an unreadable schedule blocks with its error",
      windows: [allowOpen, win("deny", "* * *", "1h")],
      error: "invalid sync windows: cannot parse schedule '* * *': expected exactly 5 fields, found 3: [* * *]",
    },
    {
      name: "an unreadable duration blocks with its error",
      windows: [win("allow", "0 12 * * *", "1d")],
      error: `invalid sync windows: cannot parse duration '1d': time: unknown unit "d" in duration "1d"`,
    },
    {
      name: "an unreadable window of another kind still blocks",
      windows: [win("other", "0 12 * * *", "soon")],
      error: `invalid sync windows: cannot parse duration 'soon': time: invalid duration "soon"`,
    },
  ])("$name", ({ windows, error }) => {
    expect(canSync(windows, { manual: true, nowMs: at(NOW) })).toEqual({ canSync: false, error });
  });
});

describe("whether windows let a running operation go on (syncOverrun)", () => {
  const overrunDeny = { ...denyOpen, syncOverrun: true };
  const endedAllow = win("allow", "0 11 * * *", "1h", { syncOverrun: true });
  it.each([
    // windows; started: when the operation started (undefined: none); manual; want: the verdict
    {
      name: "a deny window with overrun lets an operation started before it go on",
      windows: [overrunDeny],
      started: "2024-03-05T11:50:00Z",
      manual: false,
      want: true,
    },
    {
      name: "a deny window with overrun blocks an operation started inside it",
      windows: [overrunDeny],
      started: "2024-03-05T12:10:00Z",
      manual: false,
      want: false,
    },
    { name: "a deny window with overrun still blocks a new sync", windows: [overrunDeny], started: undefined, manual: false, want: false },
    {
      name: "a deny window without overrun blocks an operation started before it",
      windows: [denyOpen],
      started: "2024-03-05T11:50:00Z",
      manual: false,
      want: false,
    },
    {
      name: "every open deny window must have overrun",
      windows: [overrunDeny, win("deny", "0 11 * * *", "2h")],
      started: "2024-03-05T10:30:00Z",
      manual: false,
      want: false,
    },
    {
      name: "overrun does not help an operation that closed allow windows blocked when it started",
      windows: [overrunDeny, allowClosed],
      started: "2024-03-05T11:50:00Z",
      manual: false,
      want: false,
    },
    {
      name: "an allow window with overrun lets an operation started inside it go on after it ends",
      windows: [endedAllow],
      started: "2024-03-05T11:30:00Z",
      manual: false,
      want: true,
    },
    {
      name: "an ended allow window with overrun blocks an operation started outside it",
      windows: [endedAllow],
      started: "2024-03-05T10:30:00Z",
      manual: false,
      want: false,
    },
    {
      name: "an ended allow window without overrun blocks the operation",
      windows: [{ ...endedAllow, syncOverrun: false }],
      started: "2024-03-05T11:30:00Z",
      manual: false,
      want: false,
    },
    {
      name: "every closed allow window must have overrun",
      windows: [endedAllow, allowClosed],
      started: "2024-03-05T11:30:00Z",
      manual: false,
      want: false,
    },
    {
      name: "a manual operation started when manualSync let it through goes on",
      windows: [overrunDeny, { ...allowClosed, manualSync: true }],
      started: "2024-03-05T11:50:00Z",
      manual: true,
      want: true,
    },
    { name: "Go's zero time counts as no start", windows: [overrunDeny], started: "0001-01-01T00:00:00Z", manual: false, want: false },
    {
      name: "the start is read with the zone offset of now, as Argo CD does (across a daylight saving change)",
      windows: [win("allow", "0 9 * * *", "1h", { timeZone: "America/New_York", syncOverrun: true })],
      started: "2024-03-08T14:30:00Z",
      manual: false,
      want: false,
    },
  ])("$name", ({ windows, started, manual, want }) => {
    const nowMs = windows[0]?.timeZone === "America/New_York" ? at("2024-03-11T14:30:00Z") : at(NOW);
    const startedMs = started === undefined ? undefined : started.startsWith("0001") ? -62_135_596_800_000 : at(started);
    expect(canSync(windows, { manual, nowMs, operationStartedAtMs: startedMs })).toEqual({ canSync: want });
  });
});

describe("sync window verdict properties", () => {
  const base = at("2024-01-01T00:00:00Z");
  const now = fc.integer({ min: base, max: base + 366 * 86_400_000 });
  const otherWindow = fc
    .tuple(fc.constantFrom("allow", "deny"), fc.integer({ min: 0, max: 23 }), fc.constantFrom("1h", "6h"), fc.boolean(), fc.boolean())
    .map(([kind, hour, duration, manualSync, syncOverrun]) => win(kind, `0 ${String(hour)} * * *`, duration, { manualSync, syncOverrun }));

  it("blocks an automated sync whenever a deny window is open", () => {
    fc.assert(
      fc.property(now, fc.integer({ min: 1, max: 3_540_000 }), fc.array(otherWindow, { maxLength: 4 }), (nowMs, into, others) => {
        // The deny window fired at the start of the minute `into` ms ago, so it opened less than an hour ago.
        const opened = new Date(nowMs - into);
        const deny = win("deny", `${String(opened.getUTCMinutes())} ${String(opened.getUTCHours())} * * *`, "1h", { manualSync: true });
        expect(windowIsActive(deny, nowMs).active).toBe(true);
        expect(canSync([...others, deny], { manual: false, nowMs })).toEqual({ canSync: false });
      }),
    );
  });

  it("lets any sync run when only allow windows are open", () => {
    fc.assert(
      fc.property(now, fc.boolean(), (nowMs, manual) => {
        const windows = [win("allow", "* * * * *", "2m"), win("allow", "* * * * *", "1h")];
        expect(canSync(windows, { manual, nowMs })).toEqual({ canSync: true });
      }),
    );
  });

  it("never lets an automated sync through where a manual one is blocked", () => {
    fc.assert(
      fc.property(now, fc.array(otherWindow, { maxLength: 4 }), (nowMs, windows) => {
        if (!canSync(windows, { manual: true, nowMs }).canSync) expect(canSync(windows, { manual: false, nowMs }).canSync).toBe(false);
      }),
    );
  });
});
