import { describe, expect, it } from "vitest";
import { repoOrganisation } from "./git.js";

describe("the organisation of a repository URL", () => {
  it.each([
    ["https://github.com/argoproj/argo-cd.git", "argoproj"],
    ["git@github.com:argoproj/argo-cd.git", "argoproj"],
    ["ssh://git@github.com/org/repo", "org"],
    ["https://github.com/", ""],
  ])("the organisation of %s is %j", (url, org) => {
    expect(repoOrganisation(url)).toBe(org);
  });
});
