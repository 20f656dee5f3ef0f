import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatDurationMs, parseEnvBool, parseEnvDuration, parseFlagBool, parseDurationMs, parseInteger, parseList } from "./values.js";

describe("parseDurationMs", () => {
  it.each([
    // text: the input; ms: the expected milliseconds, or undefined for a syntax error
    { name: "hours", text: "10h", ms: 36_000_000 },
    { name: "hours and minutes", text: "1h30m", ms: 5_400_000 },
    { name: "fractional seconds", text: "1.5s", ms: 1_500 },
    { name: "a leading-dot fraction", text: ".5s", ms: 500 },
    { name: "milliseconds", text: "500ms", ms: 500 },
    { name: "microseconds", text: "300us", ms: 0.3 },
    { name: "micro sign", text: "2\u00b5s", ms: 0.002 },
    { name: "every unit at once", text: "2h45m30.5s", ms: 9_930_500 },
    { name: "a bare zero", text: "0", ms: 0 },
    { name: "a negative duration", text: "-2m", ms: -120_000 },
    { name: "a number without a unit", text: "5", ms: undefined },
    { name: "days, which Go does not know", text: "1d", ms: undefined },
    { name: "an empty string", text: "", ms: undefined },
    { name: "a doubled unit", text: "1hh", ms: undefined },
    { name: "spaces", text: "1h 30m", ms: undefined },
  ])("reads $name", ({ text, ms }) => {
    const parsed = parseDurationMs(text);
    expect(parsed.ok ? parsed.value : undefined).toBe(ms);
  });

  it("reads back every whole-millisecond duration it formats", () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (ms) => {
        expect(parseDurationMs(formatDurationMs(ms))).toEqual({ ok: true, value: ms });
      }),
    );
  });

  it.each([
    { name: "ten hours like Go", ms: 36_000_000, text: "10h0m0s" },
    { name: "three minutes like Go", ms: 180_000, text: "3m0s" },
    { name: "zero like Go", ms: 0, text: "0s" },
    { name: "sub-second values in milliseconds", ms: 250, text: "250ms" },
  ])("formats $name", ({ ms, text }) => {
    expect(formatDurationMs(ms)).toBe(text);
  });
});

describe("parseEnvDuration", () => {
  it("accepts Argo CD's Nd days besides Go durations", () => {
    expect(parseEnvDuration("2d")).toEqual({ ok: true, value: 172_800_000 });
    expect(parseEnvDuration("90s")).toEqual({ ok: true, value: 90_000 });
    expect(parseEnvDuration("2days").ok).toBe(false);
  });
});

describe("booleans", () => {
  it.each([
    // text; flag/env: the value each syntax reads, undefined when it rejects the text
    { name: "true", text: "true", flag: true, env: true },
    { name: "TRUE", text: "TRUE", flag: true, env: true },
    { name: "mixed-case tRuE", text: "tRuE", flag: undefined, env: true },
    { name: "1", text: "1", flag: true, env: undefined },
    { name: "t", text: "t", flag: true, env: undefined },
    { name: "False", text: "False", flag: false, env: false },
    { name: "0", text: "0", flag: false, env: undefined },
    { name: "yes", text: "yes", flag: undefined, env: undefined },
  ])("reads $name as Go's ParseBool (flags) and Argo CD's env rule do", ({ text, flag, env }) => {
    const f = parseFlagBool(text);
    const e = parseEnvBool(text);
    expect(f.ok ? f.value : undefined).toBe(flag);
    expect(e.ok ? e.value : undefined).toBe(env);
  });
});

describe("parseInteger", () => {
  it.each([
    { name: "a plain number", text: "10", value: 10 },
    { name: "a negative number", text: "-3", value: -3 },
    { name: "an explicit plus sign", text: "+4", value: 4 },
    { name: "a fraction", text: "1.5", value: undefined },
    { name: "words", text: "ten", value: undefined },
    { name: "an empty string", text: "", value: undefined },
    { name: "a leading space", text: " 1", value: undefined },
    { name: "a number beyond 2^53", text: "99999999999999999999", value: undefined },
  ])("reads $name", ({ text, value }) => {
    const parsed = parseInteger(text);
    expect(parsed.ok ? parsed.value : undefined).toBe(value);
  });
});

describe("parseList", () => {
  it("splits on commas, trims entries and drops empty ones", () => {
    expect(parseList(" a, b ,,c ")).toEqual(["a", "b", "c"]);
    expect(parseList("")).toEqual([]);
  });
});
