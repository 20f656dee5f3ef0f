import { describe, expect, it } from "vitest";
import { BadPatternError, compileDoublestar, compilePathMatch } from "./glob.js";

// Git pathspecs, checked against git ls-files, are in test/integration/git/glob.test.ts.

describe("Go path.Match patterns", () => {
  it.each([
    // name: what the row shows; pattern: the rule; path: the candidate; want: match or not
    { name: "a star matches within one segment", pattern: "apps/*", path: "apps/guestbook", want: true },
    { name: "a star does not cross a slash", pattern: "apps/*", path: "apps/guestbook/dev", want: false },
    { name: "a top-level star selects top-level directories only", pattern: "*", path: "apps", want: true },
    { name: "a question mark matches one character", pattern: "app?", path: "apps", want: true },
    { name: "a class matches one of its characters", pattern: "env-[ab]", path: "env-b", want: true },
    { name: "a negated class excludes its characters", pattern: "env-[^ab]", path: "env-b", want: false },
    { name: "a range matches inside the range", pattern: "v[0-9]", path: "v7", want: true },
    { name: "an escaped star is literal", pattern: "a\\*", path: "a*", want: true },
    { name: "a double star is two single stars", pattern: "**", path: "a/b", want: false },
    { name: "literal dots are not wildcards", pattern: "a.b", path: "axb", want: false },
  ])("$name", ({ pattern, path, want }) => {
    expect(compilePathMatch(pattern)(path)).toBe(want);
  });

  it.each([
    { name: "an unclosed class is a bad pattern", pattern: "a[b" },
    { name: "an empty class is a bad pattern", pattern: "a[]" },
    { name: "a trailing backslash is a bad pattern", pattern: "a\\" },
  ])("$name", ({ pattern }) => {
    expect(() => compilePathMatch(pattern)).toThrow(BadPatternError);
  });
});

describe("doublestar patterns (new file globbing)", () => {
  it.each([
    { name: "a double star spans directories", pattern: "apps/**/config.json", path: "apps/a/b/config.json", want: true },
    { name: "a double star also matches zero directories", pattern: "apps/**/config.json", path: "apps/config.json", want: true },
    { name: "a single star stays in one segment", pattern: "apps/*/config.json", path: "apps/a/b/config.json", want: false },
    { name: "hidden files are matched", pattern: "apps/*.json", path: "apps/.hidden.json", want: true },
    { name: "alternatives are supported", pattern: "apps/{a,b}.json", path: "apps/b.json", want: true },
  ])("$name", ({ pattern, path, want }) => {
    expect(compileDoublestar(pattern)(path)).toBe(want);
  });
});
