// Random templates over generator-shaped params, rendered by Go and by us (a small batch here; the
// heavy suite runs thousands).
import { describe, expect, it } from "vitest";
import { randomMismatches } from "./random.js";

describe("random templates against the Go oracle", () => {
  it("renders 300 random templates exactly like Go", () => {
    const seed = Date.now() % 1_000_000;
    const mismatches = randomMismatches(300, seed);
    expect(mismatches, `seed ${seed}:\n${mismatches.slice(0, 5).join("\n")}`).toEqual([]);
  }, 120_000);
});
