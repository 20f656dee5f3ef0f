import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { appControllerRateLimiter, CooldownExponentialRateLimiter, DEFAULT_WORKQUEUE_RATE_LIMIT } from "./app-ratelimit.js";
import { TokenBucketRateLimiter } from "./ratelimit.js";

const backoff = { baseDelayMs: 1, maxDelayMs: 1_000_000, backoffFactor: 1.5 };

describe("CooldownExponentialRateLimiter", () => {
  it.each([
    {
      name: "a cooldown of 0 starts over on every failure, so each retry waits the base delay",
      // cfg: the limiter's settings; gapMs: time between failures; delays: what successive `when` calls return
      cfg: { ...backoff, cooldownMs: 0 },
      gapMs: 0,
      delays: [1, 1, 1, 1],
      requeues: 0,
    },
    {
      name: "with a cooldown, consecutive failures multiply the delay by the factor",
      cfg: { ...backoff, cooldownMs: 10_000 },
      gapMs: 1_000,
      delays: [1, 1.5, 2.25, 3.375],
      requeues: 4,
    },
    {
      name: "the delay is capped at the max delay",
      cfg: { baseDelayMs: 10, maxDelayMs: 35, backoffFactor: 2, cooldownMs: 60_000 },
      gapMs: 0,
      delays: [10, 20, 35, 35],
      requeues: 4,
    },
    {
      name: "failures further apart than the cooldown never build up",
      cfg: { baseDelayMs: 10, maxDelayMs: 1_000, backoffFactor: 2, cooldownMs: 500 },
      gapMs: 500,
      // the first call records the key; the next finds the cooldown passed and drops it, and so on
      delays: [10, 10, 10, 10],
      requeues: 0,
    },
    {
      name: "a huge factor stays capped instead of overflowing",
      cfg: { baseDelayMs: 1, maxDelayMs: 5_000, backoffFactor: 100, cooldownMs: 60_000 },
      gapMs: 0,
      delays: [1, 100, ...Array<number>(198).fill(5_000)],
      requeues: 200,
    },
  ])("$name", ({ cfg, gapMs, delays, requeues }) => {
    const clock = new FakeClock();
    const limiter = new CooldownExponentialRateLimiter(clock, cfg);
    const got = delays.map(() => {
      const d = limiter.when("k");
      clock.advance(gapMs);
      return d;
    });
    expect(got).toEqual(delays);
    expect(limiter.numRequeues("k")).toBe(requeues);
  });

  it("starts over after a quiet cooldown, then builds up again", () => {
    const clock = new FakeClock();
    const limiter = new CooldownExponentialRateLimiter(clock, { baseDelayMs: 10, maxDelayMs: 1_000, backoffFactor: 2, cooldownMs: 500 });
    expect([limiter.when("k"), limiter.when("k"), limiter.when("k")]).toEqual([10, 20, 40]);
    clock.advance(499);
    expect(limiter.when("k")).toBe(80);
    clock.advance(500);
    // the cooldown has passed: the history is dropped and the base returned, twice in a row as in Argo CD
    expect([limiter.when("k"), limiter.when("k"), limiter.when("k")]).toEqual([10, 10, 20]);
  });
});

describe("appControllerRateLimiter", () => {
  it("with Argo CD's defaults, retries every failure after 1 ms however many keys fail", () => {
    const limiter = appControllerRateLimiter(new FakeClock(), DEFAULT_WORKQUEUE_RATE_LIMIT);
    const delays = Array.from({ length: 2_000 }, (_, i) => limiter.when(`k${i % 3}`));
    expect(new Set(delays)).toEqual(new Set([1]));
  });

  it("paces retries through the bucket once its burst is spent", () => {
    const clock = new FakeClock();
    const limiter = appControllerRateLimiter(clock, { ...DEFAULT_WORKQUEUE_RATE_LIMIT, bucketQps: 10, bucketSize: 2 });
    expect([limiter.when("a"), limiter.when("b"), limiter.when("c"), limiter.when("d")]).toEqual([1, 1, 100, 200]);
  });

  it("takes the per-key backoff when it is longer than the bucket's wait", () => {
    const limiter = appControllerRateLimiter(new FakeClock(), {
      ...DEFAULT_WORKQUEUE_RATE_LIMIT,
      cooldownMs: 60_000,
      baseDelayMs: 50,
      backoffFactor: 2,
    });
    expect([limiter.when("k"), limiter.when("k"), limiter.when("k")]).toEqual([50, 100, 200]);
    expect(limiter.numRequeues("k")).toBe(3);
  });
});

describe("TokenBucketRateLimiter at the largest float64 rate", () => {
  it("never waits, as Go's rate.Inf", () => {
    const bucket = new TokenBucketRateLimiter(new FakeClock(), Number.MAX_VALUE, 1);
    expect(Array.from({ length: 10 }, () => bucket.when("k"))).toEqual(Array(10).fill(0));
  });
});
