import { describe, expect, it } from "vitest";
import { globMatch, globSource } from "./glob.js";

describe("Argo CD's glob dialect", () => {
  it.each([
    // pattern, text, expected match
    { name: "a literal matches itself only", pattern: "apps/Deployment", text: "apps/Deployment", match: true },
    { name: "a literal does not match another key", pattern: "apps/Deployment", text: "apps/StatefulSet", match: false },
    { name: "* crosses a slash (no separators)", pattern: "*", text: "apps/Deployment", match: true },
    { name: "*.crossplane.io/* matches a provider kind", pattern: "*.crossplane.io/*", text: "pkg.crossplane.io/Provider", match: true },
    {
      name: "*.crossplane.io/* does not match another family",
      pattern: "*.crossplane.io/*",
      text: "s3.aws.upbound.io/Bucket",
      match: false,
    },
    { name: "dots are literal", pattern: "a.b", text: "axb", match: false },
    { name: "? matches one character", pattern: "Pod?", text: "Pods", match: true },
    { name: "? needs a character", pattern: "Pod?", text: "Pod", match: false },
    { name: "a class matches one of its characters", pattern: "[DS]*", text: "StatefulSet", match: true },
    { name: "a negated class refuses its characters", pattern: "[!D]*", text: "Deployment", match: false },
    { name: "a range matches within it", pattern: "v[0-9]", text: "v1", match: true },
    { name: "alternatives match either", pattern: "{apps,batch}/*", text: "batch/Job", match: true },
    { name: "alternatives match nothing else", pattern: "{apps,batch}/*", text: "policy/PodDisruptionBudget", match: false },
    { name: "an escaped star is literal", pattern: "a\\*", text: "a*", match: true },
    { name: "an escaped star does not glob", pattern: "a\\*", text: "ab", match: false },
    { name: "https cluster URLs glob across slashes", pattern: "https://*.example.com", text: "https://prod.example.com", match: true },
    { name: "the empty pattern matches the core group", pattern: "", text: "", match: true },
    { name: "the empty pattern matches no other group", pattern: "", text: "apps", match: false },
    { name: "an unclosed class matches nothing", pattern: "[abc", text: "[abc", match: false },
    { name: "an unclosed alternative matches nothing", pattern: "{a,b", text: "a", match: false },
    { name: "a trailing backslash matches nothing", pattern: "a\\", text: "a\\", match: false },
  ])("$name", ({ pattern, text, match }) => {
    expect(globMatch(pattern, text)).toBe(match);
  });

  it("reports a malformed pattern as no pattern at all", () => {
    expect(globSource("[")).toBeUndefined();
    expect(globSource("a*")).toBe("a(?s:.)*");
  });
});

describe("Argo CD's glob dialect with separators", () => {
  it.each([
    // pattern, text, separators, expected match
    { name: "* stops at a separator", pattern: "https://github.com/*", text: "https://github.com/o/r", separators: "/", match: false },
    {
      name: "* matches within one segment",
      pattern: "https://github.com/o/*",
      text: "https://github.com/o/r",
      separators: "/",
      match: true,
    },
    { name: "** crosses separators", pattern: "https://github.com/**", text: "https://github.com/o/r/s", separators: "/", match: true },
    { name: "? does not match a separator", pattern: "a?b", text: "a/b", separators: "/", match: false },
    { name: "? matches another character", pattern: "a?b", text: "a-b", separators: "/", match: true },
    { name: "a class may match a separator", pattern: "a[/]b", text: "a/b", separators: "/", match: true },
    { name: "without separators * crosses a slash", pattern: "a*", text: "a/b", separators: "", match: true },
  ])("$name", ({ pattern, text, separators, match }) => {
    expect(globMatch(pattern, text, separators)).toBe(match);
  });

  it("keeps the compiled globs of one pattern apart per separators", () => {
    expect(globMatch("x*", "x/y", "/")).toBe(false);
    expect(globMatch("x*", "x/y")).toBe(true);
  });
});
