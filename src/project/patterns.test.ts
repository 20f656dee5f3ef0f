import { describe, expect, it } from "vitest";
import { isDenyPattern, negatableMatch } from "./patterns.js";

describe("negatable project patterns", () => {
  it.each([
    // pattern: the project's pattern
    // text: the value matched
    // separators: what * does not cross
    // match: the expected result
    { name: "an exact pattern matches its text", pattern: "foo", text: "foo", separators: "", match: true },
    { name: "a trailing star matches a longer text", pattern: "foo*", text: "foobar", separators: "", match: true },
    { name: "a trailing star does not match another prefix", pattern: "foo*", text: "bar", separators: "", match: false },
    { name: "a bare star matches anything", pattern: "*", text: "anything", separators: "", match: true },
    { name: "a bare star matches across separators", pattern: "*", text: "a/b/c", separators: "/", match: true },
    { name: "a denial is false for the text it names", pattern: "!foo", text: "foo", separators: "", match: false },
    { name: "a denial is true for another text", pattern: "!foo", text: "bar", separators: "", match: true },
    { name: "a denial's glob honours separators", pattern: "!a/*", text: "a/b/c", separators: "/", match: true },
  ])("$name", ({ pattern, text, separators, match }) => {
    expect(negatableMatch(pattern, text, separators)).toBe(match);
  });

  it("treats only a leading exclamation mark as a denial", () => {
    expect(isDenyPattern("!x")).toBe(true);
    expect(isDenyPattern("x!")).toBe(false);
  });
});
