import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_TEST_SEED, seedFrom, TEST_SEED } from "../../support/seed.js";

describe("the test seed", () => {
  it.each([
    // env: the environment read; want: the seed
    { name: "the default when APPSET_TEST_SEED is unset", env: {}, want: DEFAULT_TEST_SEED },
    { name: "the default when it is empty", env: { APPSET_TEST_SEED: " " }, want: DEFAULT_TEST_SEED },
    { name: "the integer it holds", env: { APPSET_TEST_SEED: "42" }, want: 42 },
    { name: "a negative integer too", env: { APPSET_TEST_SEED: "-7" }, want: -7 },
  ])("is $name", ({ env, want }) => {
    expect(seedFrom(env)).toBe(want);
  });

  it.each(["abc", "1.5", "1e30"])("rejects APPSET_TEST_SEED=%s", (raw) => {
    expect(() => seedFrom({ APPSET_TEST_SEED: raw })).toThrow("APPSET_TEST_SEED must be an integer");
  });

  it("is fast-check's global seed, so properties draw the same values on every run", () => {
    expect(fc.readConfigureGlobal().seed).toBe(TEST_SEED);
    const draw = (): number[] => fc.sample(fc.integer(), { numRuns: 5 });
    expect(draw()).toEqual(draw());
  });
});
