import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { CooldownExponentialRateLimiter } from "./app-ratelimit.js";
import {
  defaultControllerRateLimiter,
  ExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  TokenBucketRateLimiter,
  type RateLimiter,
} from "./ratelimit.js";

describe("ExponentialFailureRateLimiter", () => {
  it.each([
    // failures: how many times `when` was called before; delay: what the next call returns (ms)
    { name: "the first failure waits the 5 ms base", failures: 0, delay: 5 },
    { name: "the second failure waits 10 ms", failures: 1, delay: 10 },
    { name: "the eleventh failure waits 5.12 s", failures: 10, delay: 5_120 },
    { name: "the eighteenth failure reaches 655.36 s", failures: 17, delay: 655_360 },
    { name: "the nineteenth failure is capped at 1000 s", failures: 18, delay: 1_000_000 },
    { name: "a huge failure count stays capped instead of overflowing", failures: 2_000, delay: 1_000_000 },
  ])("$name", ({ failures, delay }) => {
    const limiter = new ExponentialFailureRateLimiter();
    for (let i = 0; i < failures; i++) limiter.when("k");
    expect(limiter.when("k")).toBe(delay);
    expect(limiter.numRequeues("k")).toBe(failures + 1);
  });

  it.each([
    // make: a limiter whose base delay is 5 ms
    { name: "the doubling backoff", make: (): RateLimiter => new ExponentialFailureRateLimiter() },
    {
      name: "Argo CD's backoff with a cooldown",
      make: (): RateLimiter =>
        new CooldownExponentialRateLimiter(new FakeClock(), { baseDelayMs: 5, maxDelayMs: 1_000, backoffFactor: 2, cooldownMs: 60_000 }),
    },
  ])("$name tracks keys independently and starts over after forget", ({ make }) => {
    const limiter = make();
    limiter.when("a");
    limiter.when("a");
    expect(limiter.when("b")).toBe(5);
    limiter.forget("a");
    expect(limiter.numRequeues("a")).toBe(0);
    expect(limiter.when("a")).toBe(5);
  });

  it("never returns a delay outside [base, max] and never decreases until forgotten", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 100, max: 100_000 }),
        fc.integer({ min: 1, max: 80 }),
        (base, max, n) => {
          const limiter = new ExponentialFailureRateLimiter(base, max);
          let previous = 0;
          for (let i = 0; i < n; i++) {
            const d = limiter.when("k");
            expect(d).toBeGreaterThanOrEqual(Math.min(base, max));
            expect(d).toBeLessThanOrEqual(max);
            expect(d).toBeGreaterThanOrEqual(previous);
            previous = d;
          }
        },
      ),
    );
  });
});

describe("TokenBucketRateLimiter", () => {
  it("lets a burst of 100 through without delay, then spaces retries 100 ms apart", () => {
    const clock = new FakeClock();
    const bucket = new TokenBucketRateLimiter(clock);
    const delays = Array.from({ length: 103 }, (_, i) => bucket.when(`k${i}`));
    expect(delays.slice(0, 100).every((d) => d === 0)).toBe(true);
    expect(delays.slice(100)).toEqual([100, 200, 300]);
  });

  it("refills at 10 tokens per second up to the burst size", () => {
    const clock = new FakeClock();
    const bucket = new TokenBucketRateLimiter(clock, 10, 5);
    for (let i = 0; i < 5; i++) bucket.when("k");
    expect(bucket.when("k")).toBe(100);
    clock.advance(1_000);
    // The debt of one token is repaid, then 9 more accrue (capped at 5).
    for (let i = 0; i < 5; i++) expect(bucket.when("k")).toBe(0);
    expect(bucket.when("k")).toBe(100);
  });

  it("keeps no per-key state", () => {
    const bucket = new TokenBucketRateLimiter(new FakeClock());
    bucket.when("a");
    expect(bucket.numRequeues("a")).toBe(0);
  });
});

describe("defaultControllerRateLimiter", () => {
  it("waits the per-key backoff while the bucket has tokens", () => {
    const limiter = defaultControllerRateLimiter(new FakeClock());
    expect([limiter.when("k"), limiter.when("k"), limiter.when("k")]).toEqual([5, 10, 20]);
    expect(limiter.numRequeues("k")).toBe(3);
  });

  it("waits for the bucket when many keys fail at once, even on their first failure", () => {
    const limiter = defaultControllerRateLimiter(new FakeClock());
    for (let i = 0; i < 100; i++) expect(limiter.when(`k${i}`)).toBe(5);
    expect(limiter.when("k100")).toBe(100);
  });

  it("forgets a key in every limiter it combines", () => {
    const a = new ExponentialFailureRateLimiter(1, 100);
    const b = new ExponentialFailureRateLimiter(2, 100);
    const max = new MaxOfRateLimiter(a, b);
    max.when("k");
    max.when("k");
    max.forget("k");
    expect([a.numRequeues("k"), b.numRequeues("k")]).toEqual([0, 0]);
  });
});
