import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Deadline } from "./deadline.js";

describe("Deadline", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("aborts with a TimeoutError once its time has passed, and says it timed out", () => {
    const d = new Deadline(1_000);
    vi.advanceTimersByTime(999);
    expect(d.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as DOMException).name).toBe("TimeoutError");
    expect(d.timedOut).toBe(true);
  });

  it.each([
    // name: what the row shows; before: the caller aborts before the deadline is made
    { name: "follows a caller that aborts later", before: false },
    { name: "starts aborted when the caller already has", before: true },
  ])("$name, with the caller's reason, and does not count as timed out", ({ before }) => {
    const caller = new AbortController();
    const reason = new Error("caller gave up");
    if (before) caller.abort(reason);
    const d = new Deadline(1_000, caller.signal);
    if (!before) caller.abort(reason);
    expect(d.signal.aborted).toBe(true);
    expect(d.signal.reason).toBe(reason);
    vi.advanceTimersByTime(5_000);
    expect(d.timedOut).toBe(false);
  });

  it("after clear, neither its time nor the caller aborts it, and no timer is left", () => {
    const caller = new AbortController();
    const d = new Deadline(1_000, caller.signal);
    d.clear();
    expect(vi.getTimerCount()).toBe(0);
    caller.abort(new Error("late"));
    vi.advanceTimersByTime(5_000);
    expect(d.signal.aborted).toBe(false);
    expect(d.timedOut).toBe(false);
  });

  it("does not hold the process open while it waits", () => {
    vi.useRealTimers();
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers();
    const d = new Deadline(60_000);
    expect(timers()).toBe(before);
    d.clear();
  });
});
