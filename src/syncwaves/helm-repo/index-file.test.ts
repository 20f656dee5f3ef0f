import { describe, expect, it } from "vitest";
import { chartVersions, indexURL, parseIndex } from "./index-file.js";

describe("a Helm repository's index", () => {
  it.each([
    ["https://charts.example.com", "https://charts.example.com/index.yaml"],
    ["https://charts.example.com/", "https://charts.example.com/index.yaml"],
    ["https://charts.example.com/stable/", "https://charts.example.com/stable/index.yaml"],
    ["http://127.0.0.1:8080/a/b", "http://127.0.0.1:8080/a/b/index.yaml"],
  ])("of %s is %s", (repo, index) => {
    expect(indexURL(repo)).toBe(index);
  });

  it("lists each chart's versions", () => {
    const index = parseIndex("apiVersion: v1\nentries:\n  web:\n  - version: 1.0.0\n  - version: 0.9.0\n  db: []\n");
    expect(chartVersions(index, "web")).toEqual(["1.0.0", "0.9.0"]);
    expect(chartVersions(index, "db")).toEqual([]);
    expect(chartVersions(parseIndex("entries:\n  web:\n  - version: 1.10\n"), "web")).toEqual(["1.10"]);
    expect(() => chartVersions(index, "nope")).toThrow(/^chart 'nope' not found in index$/);
  });

  it("fails to decode what is not YAML", () => {
    expect(() => parseIndex("entries: [")).toThrow(/^error decoding index: /);
  });
});
