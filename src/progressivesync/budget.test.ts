import { describe, expect, it } from "vitest";
import { batches, maxUpdateLimit, parseMaxUpdate } from "./budget.js";

describe("maxUpdate arithmetic (invalid values per the seed)", () => {
  it.each([
    // name; the maxUpdate value; the number of Applications in the step; the expected limit
    { name: "absent means no limit", value: undefined, total: 25, limit: Infinity },
    { name: "an integer is taken as-is", value: 3, total: 25, limit: 3 },
    { name: "0 means none", value: 0, total: 25, limit: 0 },
    { name: "a negative integer means none", value: -2, total: 25, limit: 0 },
    { name: "10% of 25 is 2 (floored)", value: "10%", total: 25, limit: 2 },
    { name: "10% of 5 is raised to 1", value: "10%", total: 5, limit: 1 },
    { name: "10% of 10 is 1", value: "10%", total: 10, limit: 1 },
    { name: "50% of 7 is 3", value: "50%", total: 7, limit: 3 },
    { name: "100% of 7 is 7", value: "100%", total: 7, limit: 7 },
    { name: "0% means none", value: "0%", total: 25, limit: 0 },
    { name: "1% of 0 is raised to 1", value: "1%", total: 0, limit: 1 },
    { name: "a negative percentage is raised to 1 (not exactly 0%)", value: "-10%", total: 25, limit: 1 },
    { name: "a string integer without % is invalid: no limit", value: "5", total: 25, limit: Infinity },
    { name: "a word is invalid: no limit", value: "abc", total: 25, limit: Infinity },
    { name: "a fractional percentage is invalid: no limit", value: "10.5%", total: 25, limit: Infinity },
  ])("$name", ({ value, total, limit }) => {
    expect(maxUpdateLimit(parseMaxUpdate(value), total)).toBe(limit);
  });

  it("parses each kind", () => {
    expect(parseMaxUpdate("25%")).toEqual({ kind: "percent", percent: 25, raw: "25%" });
    expect(parseMaxUpdate("x")).toEqual({ kind: "invalid", raw: "x" });
    expect(parseMaxUpdate(2)).toEqual({ kind: "count", count: 2 });
    expect(parseMaxUpdate(undefined)).toEqual({ kind: "unlimited" });
  });
});

describe("batches", () => {
  it.each([
    // name; names; limit; expected batches
    { name: "no limit is one batch", names: ["a", "b", "c"], limit: Infinity, out: [["a", "b", "c"]] },
    { name: "a limit of 2 makes batches of 2", names: ["a", "b", "c"], limit: 2, out: [["a", "b"], ["c"]] },
    { name: "a limit of 0 makes none", names: ["a"], limit: 0, out: [] },
    { name: "no names make none", names: [], limit: 1, out: [] },
  ])("$name", ({ names, limit, out }) => {
    expect(batches(names, limit)).toEqual(out);
  });
});
