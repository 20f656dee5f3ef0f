import { describe, expect, it } from "vitest";
import { FakeClock } from "./fake.js";
import { rfc3339 } from "./clock.js";

describe("FakeClock", () => {
  it("fires timers in due order as time advances, and not before", () => {
    const clock = new FakeClock(1_000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push("b"), 20);
    clock.setTimeout(() => fired.push("a"), 10);
    clock.setTimeout(() => fired.push("c"), 20);
    clock.advance(9);
    expect(fired).toEqual([]);
    clock.advance(11);
    expect(fired).toEqual(["a", "b", "c"]);
    expect(clock.now()).toBe(1_020);
  });

  it("does not fire a cleared timer", () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    const h = clock.setTimeout(() => fired.push(1), 5);
    clock.clearTimeout(h);
    clock.advance(10);
    expect(fired).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("refuses to go back in time", () => {
    expect(() => new FakeClock().advance(-1)).toThrow("Unable to travel back in time");
  });

  it("resolves sleep when time passes and rejects it on abort", async () => {
    const clock = new FakeClock();
    const done = clock.sleep(100);
    await clock.advanceAsync(100);
    await expect(done).resolves.toBeUndefined();
    const ac = new AbortController();
    const aborted = clock.sleep(100, ac.signal);
    ac.abort(new Error("stop"));
    await expect(aborted).rejects.toThrow("stop");
  });
});

describe("rfc3339", () => {
  it("formats with second precision like Kubernetes metav1.Time", () => {
    expect(rfc3339(Date.UTC(2026, 10, 30, 12, 0, 5, 789))).toBe("2026-11-30T12:00:05Z");
  });
});
