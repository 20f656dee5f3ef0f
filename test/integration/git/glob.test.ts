import { afterAll, describe, expect, it } from "vitest";
import { compilePathspec } from "../../../src/git/glob.js";
import { git, makeRepo, TempDirs } from "../support/git-repos.js";

describe("git pathspecs agree with git ls-files", () => {
  const temp = new TempDirs();
  afterAll(() => temp.cleanup());
  const files = [
    "apps/a/config.json",
    "apps/a/deep/config.json",
    "apps/b/config.yaml",
    "apps/config.json",
    "apps-extra/x.json",
    "cluster-config/engineering/dev/config.json",
    "cluster-config/engineering/prod/config.json",
    "root.json",
    "env-a/v1.json",
    ".hidden/config.json",
  ];
  const repo = makeRepo(temp, Object.fromEntries(files.map((f) => [f, "{}\n"])));

  it.each([
    { name: "a star crosses directories", pattern: "apps/*/config.json" },
    { name: "a trailing star takes everything below", pattern: "apps/*" },
    { name: "a literal directory takes everything below it", pattern: "apps" },
    { name: "a literal directory with a slash takes everything below it", pattern: "apps/" },
    { name: "a literal file takes that file", pattern: "root.json" },
    { name: "a literal prefix is not a directory match", pattern: "app" },
    { name: "a double star behaves like a star", pattern: "cluster-config/**/config.json" },
    { name: "a question mark matches one character", pattern: "env-?/v1.json" },
    { name: "a class matches one character", pattern: "env-[ab]/*.json" },
    { name: "a leading star matches hidden directories too", pattern: "*/config.json" },
    { name: "a pattern matching nothing yields nothing", pattern: "nothing/*.json" },
  ])("$name", ({ pattern }) => {
    const want = git(repo, "ls-files", "--full-name", "-z", "--", pattern)
      .split("\u0000")
      .filter((s) => s !== "")
      .sort();
    const match = compilePathspec(pattern);
    expect(files.filter(match).sort()).toEqual(want);
  });
});
