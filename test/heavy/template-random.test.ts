// Heavy suite: thousands of random templates and params, Go oracle versus our engine. Each batch
// draws from its own seed, derived from the run's (test/support/seed.ts).
import { describe, expect, it } from "vitest";
import { TEST_SEED } from "../support/seed.js";
import { randomMismatches } from "../integration/template/random.js";

describe("random templates against the Go oracle (heavy)", () => {
  it.each([
    { name: "batch 1", n: 1500, seed: TEST_SEED + 1 },
    { name: "batch 2", n: 1500, seed: TEST_SEED + 2 },
  ])(
    "renders $n random templates exactly like Go ($name)",
    ({ n, seed }) => {
      const mismatches = randomMismatches(n, seed);
      expect(mismatches, `seed ${seed} (APPSET_TEST_SEED=${TEST_SEED}):\n${mismatches.slice(0, 10).join("\n")}`).toEqual([]);
    },
    600_000,
  );
});
