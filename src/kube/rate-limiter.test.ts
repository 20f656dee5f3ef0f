import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { LimiterPerResource, TokenBucket } from "./rate-limiter.js";
import * as resources from "./resources.js";

describe("TokenBucket", () => {
  it("lets a burst through at once, then one request every 1/qps seconds", () => {
    const bucket = new TokenBucket({ qps: 50, burst: 100, clock: new FakeClock() });
    const delays = Array.from({ length: 103 }, () => bucket.reserve());
    expect(delays.slice(0, 100).every((d) => d === 0)).toBe(true);
    expect(delays.slice(100)).toEqual([20, 40, 60]);
  });

  it("refills at qps up to burst while idle", () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 10, burst: 5, clock });
    for (let i = 0; i < 5; i++) bucket.reserve();
    clock.advance(300);
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 0, 100]);
    clock.advance(60_000);
    expect(Array.from({ length: 6 }, () => bucket.reserve())).toEqual([0, 0, 0, 0, 0, 100]);
  });

  it("never lets more than burst + qps·t requests start within t seconds", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 300 }),
        fc.array(fc.integer({ min: 0, max: 500 }), { minLength: 1, maxLength: 300 }),
        (qps, burst, gaps) => {
          const clock = new FakeClock();
          const start = clock.now();
          const bucket = new TokenBucket({ qps, burst, clock });
          const starts: number[] = [];
          for (const gap of gaps) {
            clock.advance(gap);
            starts.push(clock.now() + bucket.reserve());
          }
          // Starts are in arrival order and within any window [a, b] of start times obey the bucket.
          for (let i = 1; i < starts.length; i++) expect(starts[i]!).toBeGreaterThanOrEqual(starts[i - 1]! - 1e-6);
          for (let i = 0; i < starts.length; i++) {
            const windowEnd = starts[i]!;
            const inWindow = starts.filter((s) => s >= start && s <= windowEnd).length;
            expect(inWindow).toBeLessThanOrEqual(burst + ((windowEnd - start) / 1000) * qps + 1e-6);
          }
        },
      ),
    );
  });

  it("never makes a request wait when requests come no faster than qps", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 200 }), (qps, burst, n) => {
        const clock = new FakeClock();
        const bucket = new TokenBucket({ qps, burst, clock });
        for (let i = 0; i < n; i++) {
          expect(bucket.reserve()).toBe(0);
          clock.advance(Math.ceil(1000 / qps));
        }
      }),
    );
  });

  it("waits on the clock and gives the token back when the wait is aborted", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 1, burst: 1, clock });
    await bucket.wait();
    const stop = new AbortController();
    const aborted = bucket.wait(stop.signal);
    stop.abort(new Error("stopped"));
    await expect(aborted).rejects.toThrow("stopped");
    let done = false;
    const next = bucket.wait().then(() => (done = true));
    await clock.advanceAsync(999);
    expect(done).toBe(false);
    await clock.advanceAsync(1);
    await next;
    expect(done).toBe(true);
  });

  it("does not limit with qps 0", () => {
    const bucket = new TokenBucket({ qps: 0, burst: 1, clock: new FakeClock() });
    expect(Array.from({ length: 1000 }, () => bucket.reserve()).every((d) => d === 0)).toBe(true);
  });
});

describe("LimiterPerResource", () => {
  it("gives each resource a limiter of its own, made on first use, and the same one every time after", () => {
    let made = 0;
    const limiters = new LimiterPerResource(() => {
      made++;
      return new TokenBucket({ qps: 1, burst: 1, clock: new FakeClock() });
    });
    expect(made).toBe(0);
    const apps = limiters.of(resources.Applications);
    expect(limiters.of({ ...resources.Applications })).toBe(apps);
    expect(limiters.of(resources.ApplicationSets)).not.toBe(apps);
    expect(limiters.of(resources.Events)).not.toBe(limiters.of(resources.ApplicationSets));
    expect(made).toBe(3);
  });

  it("lets one resource's burst through while another's bucket is empty", () => {
    const clock = new FakeClock();
    const limiters = new LimiterPerResource(() => new TokenBucket({ qps: 50, burst: 100, clock }));
    const apps = limiters.of(resources.Applications) as TokenBucket;
    const appSets = limiters.of(resources.ApplicationSets) as TokenBucket;
    for (let i = 0; i < 100; i++) apps.reserve();
    expect(apps.reserve()).toBe(20);
    expect(appSets.reserve()).toBe(0);
  });
});
