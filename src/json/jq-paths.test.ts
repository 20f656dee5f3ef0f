import { describe, expect, it } from "vitest";
import { deletePath, jqSelectPaths, jqSupported, jqSyntaxError } from "./jq-paths.js";

const doc = {
  spec: {
    sources: [
      { repoURL: "https://charts.example.com", targetRevision: "1" },
      { repoURL: "https://git.example.com", targetRevision: "2" },
    ],
  },
};

describe("jqSelectPaths", () => {
  it.each([
    {
      name: "a select inside a list",
      expr: '.spec.sources[] | select(.repoURL == "https://charts.example.com") | .targetRevision',
      want: [["spec", "sources", "0", "targetRevision"]],
    },
    {
      name: "a negated select",
      expr: '.spec.sources[] | select(.repoURL != "https://charts.example.com") | .targetRevision',
      want: [["spec", "sources", "1", "targetRevision"]],
    },
    {
      name: "every item",
      expr: ".spec.sources[].targetRevision",
      want: [
        ["spec", "sources", "0", "targetRevision"],
        ["spec", "sources", "1", "targetRevision"],
      ],
    },
    { name: "a field that is not there", expr: ".spec.source.path", want: [] },
    { name: "an unsupported function", expr: ".spec | keys", want: undefined },
  ])("$name", ({ expr, want }) => {
    expect(jqSelectPaths(expr, doc)).toEqual(want);
  });

  it("deletes a selected field in place", () => {
    const d = structuredClone(doc);
    deletePath(d, ["spec", "sources", "0", "targetRevision"]);
    expect(d.spec.sources[0]).toEqual({ repoURL: "https://charts.example.com" });
  });
});

describe("jqSyntaxError", () => {
  it.each([
    // expression; gojq's error for del(expression), or undefined
    { expr: ".spec.syncPolicy", want: undefined },
    { expr: '.spec.sources[] | select(.repoURL == "a)") | .path', want: undefined },
    { expr: '.metadata.annotations["a\\"]"]', want: undefined },
    { expr: ".spec.[", want: 'unexpected token ")"' },
    { expr: ".a]", want: 'unexpected token "]"' },
    { expr: ".a | select(.b == 1", want: "unexpected EOF" },
    { expr: "{a: .b", want: 'unexpected token ")"' },
    { expr: '.a["b', want: "unterminated string literal" },
    { expr: ".a # a comment", want: "unexpected EOF" },
  ])("$expr", ({ expr, want }) => {
    expect(jqSyntaxError(expr)).toBe(want);
  });
});

describe("jqSupported", () => {
  it.each([
    { expr: ".spec.syncPolicy.automated", want: true },
    { expr: '.spec.sources[] | select(.repoURL == "x") | .targetRevision', want: true },
    { expr: ".spec.sources | map(.path)", want: false },
    { expr: ".spec.[", want: false },
  ])("$expr", ({ expr, want }) => {
    expect(jqSupported(expr)).toBe(want);
  });
});
