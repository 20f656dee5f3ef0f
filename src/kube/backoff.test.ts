import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffDelay, defaultBackoff, type BackoffPolicy } from "./backoff.js";

const noJitter: BackoffPolicy = { initialMs: 500, maxMs: 30_000, factor: 2, jitter: 0 };

describe("backoffDelay", () => {
  it.each([
    // name: what the row shows; attempt: retry number; random: the draw; expected: delay in ms
    { name: "the first retry waits the initial delay", policy: noJitter, attempt: 0, random: 0.5, expected: 500 },
    { name: "the second retry doubles it", policy: noJitter, attempt: 1, random: 0.5, expected: 1_000 },
    { name: "the sixth retry is 16 s", policy: noJitter, attempt: 5, random: 0.5, expected: 16_000 },
    { name: "the delay stops growing at the ceiling", policy: noJitter, attempt: 6, random: 0.5, expected: 30_000 },
    { name: "a huge attempt number stays at the ceiling", policy: noJitter, attempt: 10_000, random: 0.5, expected: 30_000 },
    { name: "a negative attempt counts as the first", policy: noJitter, attempt: -3, random: 0.5, expected: 500 },
    { name: "full jitter draw shortens by the jitter fraction", policy: defaultBackoff, attempt: 0, random: 1, expected: 400 },
    { name: "a zero draw keeps the full delay", policy: defaultBackoff, attempt: 2, random: 0, expected: 2_000 },
    { name: "jitter applies at the ceiling too", policy: defaultBackoff, attempt: 20, random: 0.5, expected: 9_000 },
  ])("$name", ({ policy, attempt, random, expected }) => {
    expect(backoffDelay(policy, attempt, () => random)).toBe(expected);
  });

  it("stays within [max(0, base·(1−jitter)), maxMs] for any policy, attempt and draw", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 200 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (initialMs, maxMs, factor, jitter, attempt, draw) => {
          const policy = { initialMs, maxMs, factor, jitter };
          const d = backoffDelay(policy, attempt, () => draw);
          const base = Math.min(maxMs, initialMs * Math.pow(factor, attempt));
          expect(d).toBeGreaterThanOrEqual(Math.floor(base * (1 - jitter)));
          expect(d).toBeLessThanOrEqual(maxMs);
        },
      ),
    );
  });

  it("never shrinks from one attempt to the next without jitter", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 0, max: 100 }),
        (initialMs, maxMs, attempt) => {
          const policy = { initialMs, maxMs, factor: 2, jitter: 0 };
          expect(backoffDelay(policy, attempt + 1)).toBeGreaterThanOrEqual(backoffDelay(policy, attempt));
        },
      ),
    );
  });
});
