import { describe, expect, it } from "vitest";
import { deletePath, jqSelectPaths } from "./jq-paths.js";

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
