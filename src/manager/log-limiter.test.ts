import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { LogLimiter, REPEAT_LOG_INTERVAL_MS } from "./log-limiter.js";

describe("LogLimiter", () => {
  it("logs a key's first failure, holds back repeats for 30 s, then logs one with the count held back", () => {
    const clock = new FakeClock(0);
    const limiter = new LogLimiter(clock);
    const seen = [limiter.allow("a", "down")];
    for (let i = 0; i < 5; i++) {
      clock.advance(1_000);
      seen.push(limiter.allow("a", "down"));
    }
    clock.advance(REPEAT_LOG_INTERVAL_MS);
    seen.push(limiter.allow("a", "down"));
    expect(seen).toEqual([{ log: true, suppressed: 0 }, ...Array(5).fill({ log: false }), { log: true, suppressed: 5 }]);
  });

  it("logs a changed failure at once, and keeps keys apart", () => {
    const limiter = new LogLimiter(new FakeClock(0));
    expect([
      limiter.allow("a", "down"),
      limiter.allow("a", "bad template"),
      limiter.allow("b", "down"),
      limiter.allow("a", "bad template"),
    ]).toEqual([{ log: true, suppressed: 0 }, { log: true, suppressed: 0 }, { log: true, suppressed: 0 }, { log: false }]);
  });

  it("logs the first failure after a forget at once", () => {
    const limiter = new LogLimiter(new FakeClock(0));
    limiter.allow("a", "down");
    limiter.forget("a");
    expect(limiter.allow("a", "down")).toEqual({ log: true, suppressed: 0 });
  });
});
