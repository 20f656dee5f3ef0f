import { describe, expect, it } from "vitest";
import { isVersion, maxVersion, parseConstraint, parseVersion } from "./versions.js";

// The tags of Argo CD's own tests of versions.MaxVersion.
const tags = ["0.7.1", "0.5.4", "0.5.3", "0.7.2", "0.5.2", "0.5.1", "0.5.0", "2024.03-LTS-RC19"];

describe("chart versions", () => {
  it.each(["1.2.3", "v1.2.3", "1.2", "v1", "1.0.0-rc.1", "1.0.0+build.5", "0.0.0"])("%s is a version", (v) => {
    expect(isVersion(v)).toBe(true);
  });

  it.each(["", "main", "^1.2.0", "~1", "1.x", "*", ">1.0.0", "01.2.3", "1.2.3.4", "2024.03-LTS-RC19"])("%s is not a version", (v) => {
    expect(isVersion(v)).toBe(false);
  });

  it("reads a short version as Masterminds does (v1.2 is 1.2.0)", () => {
    expect(parseVersion("v1.2")?.version).toBe("1.2.0");
    expect(parseVersion("1.0.0-rc.1+b")?.prerelease).toEqual(["rc", 1]);
  });
});

describe("maxVersion (Argo CD's versions.MaxVersion)", () => {
  it.each([
    ["0.5.3", "0.5.3"],
    ["2024.03-LTS-RC19", "2024.03-LTS-RC19"],
    ["> 0.5.3", "0.7.2"],
    ["> 0.0.0", "0.7.2"],
    [">0.5.0,<0.7.0", "0.5.4"],
    ["0.7.*", "0.7.2"],
    ["*", "0.7.2"],
    ["~0.5", "0.5.4"],
    ["^0.5.1", "0.5.4"],
    [">=0.5.0 <0.7.2, !=0.7.1", "0.5.4"],
    ["<0.5.2 || >=0.7.2", "0.7.2"],
    ["0.5.1 - 0.5.3", "0.5.3"],
  ])("resolves %s to %s", (revision, want) => {
    expect(maxVersion(revision, tags)).toBe(want);
  });

  it("returns an exact version even when the tags do not hold it", () => {
    expect(maxVersion("99.99", [])).toBe("99.99");
  });

  it("returns the tag as it is written", () => {
    expect(maxVersion("^1.0", ["v1.2", "1.1.0"])).toBe("v1.2");
  });

  it("keeps pre-releases out unless the constraint names one", () => {
    expect(maxVersion("*", ["1.0.0", "1.1.0-rc.1"])).toBe("1.0.0");
    expect(maxVersion(">=1.1.0-rc.0", ["1.0.0", "1.1.0-rc.1"])).toBe("1.1.0-rc.1");
  });

  it("fails with Argo CD's words when no tag meets the constraint", () => {
    expect(() => maxVersion("0.7.*", [])).toThrow(/^version matching constraint not found in 0 tags$/);
    expect(() => maxVersion("^9", tags)).toThrow(/^version matching constraint not found in 8 tags$/);
  });

  it("fails for a revision that is neither a version, a constraint nor a tag", () => {
    expect(() => maxVersion("main", tags)).toThrow(/^failed to determine semver constraint: improper constraint: main$/);
    expect(maxVersion("main", ["main"])).toBe("main");
  });

  it("does not parse empty constraints or a bad excluded version", () => {
    expect(parseConstraint("")).toBeUndefined();
    expect(parseConstraint("!=abc")).toBeUndefined();
    expect(parseConstraint("||")).toBeUndefined();
  });
});
