// Heavy suite: thousands of random templates and params, Go oracle versus our engine.
import { describe, expect, it } from "vitest";
import { randomMismatches } from "../unit/template/random.js";

describe("random templates against the Go oracle (heavy)", () => {
  it.each([{ name: "batch 1", n: 1500 }, { name: "batch 2", n: 1500 }])("renders $n random templates exactly like Go ($name)", ({ n }) => {
    const seed = Date.now() % 1_000_000;
    const mismatches = randomMismatches(n, seed);
    expect(mismatches, `seed ${seed}:\n${mismatches.slice(0, 10).join("\n")}`).toEqual([]);
  }, 600_000);
});
