// Random templates over generator-shaped params, rendered by Go and by us (a small batch here; the
// heavy suite runs thousands). The templates are drawn from the run's seed (test/support/seed.ts).
import { describe, expect, it } from "vitest";
import { TEST_SEED } from "../../support/seed.js";
import { randomMismatches } from "./random.js";

describe("random templates against the Go oracle", () => {
  it("renders 300 random templates exactly like Go", () => {
    const mismatches = randomMismatches(300, TEST_SEED);
    expect(mismatches, `APPSET_TEST_SEED=${TEST_SEED}:\n${mismatches.slice(0, 5).join("\n")}`).toEqual([]);
  }, 120_000);
});
