import { describe, expect, it } from "vitest";
import { failureLimit } from "./failure-budget.js";

describe("failure budget arithmetic (floor, never raised to 1)", () => {
  it.each([
    // name; the maxFailures value; Applications in the step; failures tolerated
    { name: "absent tolerates none", value: undefined, total: 10, limit: 0 },
    { name: "a count is taken as-is", value: 2, total: 10, limit: 2 },
    { name: "a count above the total is kept", value: 20, total: 10, limit: 20 },
    { name: "a negative count tolerates none", value: -1, total: 10, limit: 0 },
    { name: "10% of 10 is 1", value: "10%", total: 10, limit: 1 },
    { name: "10% of 5 rounds down to 0", value: "10%", total: 5, limit: 0 },
    { name: "50% of 7 rounds down to 3", value: "50%", total: 7, limit: 3 },
    { name: "34% of 3 rounds down to 1", value: "34%", total: 3, limit: 1 },
    { name: "100% of 7 is 7", value: "100%", total: 7, limit: 7 },
    { name: "150% is clamped to the total", value: "150%", total: 4, limit: 4 },
    { name: "a negative percentage tolerates none", value: "-10%", total: 10, limit: 0 },
    { name: "a string without % is invalid: none", value: "5", total: 10, limit: 0 },
  ])("$name", ({ value, total, limit }) => {
    expect(failureLimit(value, total)).toBe(limit);
  });
});
