import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatGoDuration, GoDurationError, parseGoDuration } from "./go-duration.js";

/** The nanoseconds, or the error message. */
function parsed(text: string): bigint | string {
  try {
    return parseGoDuration(text);
  } catch (err) {
    return err instanceof GoDurationError ? err.message : `not a GoDurationError: ${String(err)}`;
  }
}

describe("parseGoDuration", () => {
  it.each([
    { name: "hours and minutes", text: "1h30m", want: 5_400_000_000_000n },
    { name: "fractional seconds", text: "1.5s", want: 1_500_000_000n },
    { name: "a leading-dot fraction", text: ".5s", want: 500_000_000n },
    { name: "a trailing point", text: "5.s", want: 5_000_000_000n },
    { name: "microseconds with the micro sign", text: "2\u00b5s", want: 2_000n },
    { name: "microseconds with the Greek mu", text: "2\u03bcs", want: 2_000n },
    { name: "a bare zero", text: "0", want: 0n },
    { name: "a signed zero", text: "-0", want: 0n },
    { name: "a negative duration", text: "-2m", want: -120_000_000_000n },
    { name: "the largest duration", text: "9223372036854775807ns", want: 9_223_372_036_854_775_807n },
    { name: "the smallest duration", text: "-9223372036854775808ns", want: -9_223_372_036_854_775_808n },
    { name: "a fraction truncated to nanoseconds", text: "0.3333333333333s", want: 333_333_333n },
    { name: "an empty string", text: "", want: 'time: invalid duration ""' },
    { name: "a lone sign", text: "-", want: 'time: invalid duration "-"' },
    { name: "a lone point", text: ".s", want: 'time: invalid duration ".s"' },
    { name: "a number without a unit", text: "5", want: 'time: missing unit in duration "5"' },
    { name: "days, which Go does not know", text: "1d", want: 'time: unknown unit "d" in duration "1d"' },
    { name: "a doubled unit", text: "1hh", want: 'time: unknown unit "hh" in duration "1hh"' },
    { name: "a space", text: "1h 30m", want: 'time: unknown unit "h " in duration "1h 30m"' },
    { name: "one past the largest", text: "9223372036854775808ns", want: 'time: invalid duration "9223372036854775808ns"' },
    { name: "an overflowing sum", text: "2562048h", want: 'time: invalid duration "2562048h"' },
    { name: "non-ASCII quoted as bytes", text: "1é", want: 'time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"' },
  ])("reads $name", ({ text, want }) => {
    expect(parsed(text)).toBe(want);
  });

  it("reads back every duration it prints", () => {
    const int64 = fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n });
    fc.assert(
      fc.property(int64, (nanos) => {
        expect(parseGoDuration(formatGoDuration(nanos))).toBe(nanos);
      }),
    );
  });
});

describe("formatGoDuration", () => {
  it.each([
    { nanos: 0n, text: "0s" },
    { nanos: 1n, text: "1ns" },
    { nanos: 1_100n, text: "1.1µs" },
    { nanos: 2_200_000n, text: "2.2ms" },
    { nanos: 3_300_000_000n, text: "3.3s" },
    { nanos: 180_000_000_000n, text: "3m0s" },
    { nanos: 36_000_000_000_000n, text: "10h0m0s" },
    { nanos: -(1n << 63n), text: "-2562047h47m16.854775808s" },
  ])("prints $nanos ns as $text, like Go", ({ nanos, text }) => {
    expect(formatGoDuration(nanos)).toBe(text);
  });
});
