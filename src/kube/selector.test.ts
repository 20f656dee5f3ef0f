import { describe, expect, it } from "vitest";
import { matchesLabelSelector } from "./selector.js";

const labels = { app: "web", tier: "front" };

describe("matchesLabelSelector", () => {
  it.each([
    // name: the requirement form; selector: the string; expected: whether `labels` match
    { name: "an empty selector matches everything", selector: "", expected: true },
    { name: "equality matches", selector: "app=web", expected: true },
    { name: "double equals matches", selector: "app==web", expected: true },
    { name: "equality on another value fails", selector: "app=db", expected: false },
    { name: "inequality with an absent key matches", selector: "env!=prod", expected: true },
    { name: "existence matches a present key", selector: "tier", expected: true },
    { name: "non-existence fails on a present key", selector: "!tier", expected: false },
    { name: "in matches a listed value", selector: "tier in (back, front)", expected: true },
    { name: "notin fails on a listed value", selector: "tier notin (front)", expected: false },
    { name: "notin matches an absent key", selector: "env notin (prod)", expected: true },
    { name: "every comma-joined requirement must hold", selector: "app=web,tier in (back)", expected: false },
  ])("$name", ({ selector, expected }) => {
    expect(matchesLabelSelector(selector, labels)).toBe(expected);
  });

  it("rejects syntax it does not understand rather than matching everything", () => {
    expect(() => matchesLabelSelector("app > 3", labels)).toThrow("unsupported label selector requirement");
  });
});
