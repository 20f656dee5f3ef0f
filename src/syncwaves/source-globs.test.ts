// The globs an Application's source names: minimatch's answers, each pattern compiled once, braces
// bounded, and pathological patterns answered against 200-character paths.
import { describe, expect, it } from "vitest";
import { isManifestError, selectsFile, sourceGlob } from "./manifests.js";
import { expandGlob } from "./render/repo-paths.js";

describe("directory include and exclude globs", () => {
  it.each([
    // name: what the row shows; path: the file; dir: the directory options; want: read or not
    { name: "an include list selects its members", path: "a.yaml", dir: { include: "{a,b}.yaml" }, want: true },
    { name: "an include list leaves out the others", path: "c.yaml", dir: { include: "{a,b}.yaml" }, want: false },
    { name: "an exclude glob matches the base name too", path: "x/skip.yaml", dir: { recurse: true, exclude: "skip*" }, want: false },
    {
      name: "many stars against a 200-character name",
      path: `${"a".repeat(195)}.yaml`,
      dir: { include: `${"*a".repeat(20)}*b.yaml` },
      want: false,
    },
  ])("$name", ({ path, dir, want }) => {
    expect(selectsFile(path, dir)).toBe(want);
  });

  it("refuses, as a manifest error, braces that expand past the cap", () => {
    let caught: unknown;
    try {
      selectsFile("a.yaml", { include: "{a,b}".repeat(16) });
    } catch (err) {
      caught = err;
    }
    expect(isManifestError(caught)).toBe(true);
  });

  it("compiles each pattern and options once", () => {
    expect(sourceGlob("*.yaml")("a.yaml")).toBe(true);
    expect(sourceGlob("*.yaml", { dot: true })(".a.yaml")).toBe(true);
    expect(sourceGlob("*.yaml")(".a.yaml")).toBe(false);
  });
});

describe("Helm value-file globs", () => {
  it("matches dot files and crosses directories with **", () => {
    expect(expandGlob("**/values*.yaml", ["b/values.yaml", ".x/values-a.yaml", "c.yaml"])).toEqual([".x/values-a.yaml", "b/values.yaml"]);
  });
});
