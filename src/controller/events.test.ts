import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { SPAM_BURST, SpamFilter } from "./events.js";

describe("SpamFilter", () => {
  it("lets a burst of 25 events through per object, then one more every 5 minutes", () => {
    const clock = new FakeClock(0);
    const filter = new SpamFilter(clock);
    const first = Array.from({ length: 30 }, () => filter.allow("a"));
    expect(first.filter(Boolean)).toHaveLength(SPAM_BURST);
    expect(filter.allow("b")).toBe(true);
    clock.advance(299_000);
    expect(filter.allow("a")).toBe(false);
    clock.advance(1_000);
    expect(filter.allow("a")).toBe(true);
    expect(filter.allow("a")).toBe(false);
  });
});
