import { describe, expect, it } from "vitest";
import { matchStringInList, patternListMatcher } from "./list.js";

describe("Argo CD's pattern lists", () => {
  it.each([
    // entries, text, expected match
    { name: "an exact name matches itself", entries: ["team-a"], text: "team-a", match: true },
    { name: "an exact name matches no other", entries: ["team-a"], text: "team-ab", match: false },
    { name: "a glob matches by prefix", entries: ["team-*"], text: "team-b", match: true },
    { name: "a glob must match the whole text", entries: ["team-*"], text: "x-team-b", match: false },
    { name: "a regular expression matches anywhere unless anchored", entries: ["/team/"], text: "my-team-x", match: true },
    { name: "an anchored regular expression matches from the start", entries: ["/^team-[a-z]+$/"], text: "team-1", match: false },
    { name: "an anchored regular expression matches its names", entries: ["/^team-[a-z]+$/"], text: "team-foo", match: true },
    { name: "a negative lookahead works as in regexp2", entries: ["/^(?!kube-).*$/"], text: "kube-system", match: false },
    { name: "a negative lookahead lets the others through", entries: ["/^(?!kube-).*$/"], text: "apps", match: true },
    { name: "two slashes alone are a glob, not an empty expression", entries: ["//"], text: "anything", match: false },
    { name: "a broken expression matches nothing", entries: ["/(/"], text: "(", match: false },
    { name: "any entry of the list may match", entries: ["a", "b*"], text: "bc", match: true },
    { name: "an empty list matches nothing", entries: [], text: "a", match: false },
  ])("$name", ({ entries, text, match }) => {
    expect(matchStringInList(entries, text)).toBe(match);
  });
});

describe("allowed-namespace lists as the controllers use them", () => {
  it.each([
    { name: "a glob", patterns: ["team-*"], ns: "team-a", want: true },
    { name: "a glob that does not match", patterns: ["team-*"], ns: "other", want: false },
    { name: "a regex with a lookahead", patterns: ["/^((?!not-allowed).)*$/"], ns: "allowed", want: true },
    { name: "a regex that rejects", patterns: ["/^((?!not-allowed).)*$/"], ns: "is-not-allowed", want: false },
  ])("matches $name", ({ patterns, ns, want }) => {
    expect(patternListMatcher(patterns)(ns)).toBe(want);
  });
});
