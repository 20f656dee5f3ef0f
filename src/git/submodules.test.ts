import { describe, expect, it } from "vitest";
import { parseGitmodules, resolveSubmoduleURL } from "./submodules.js";

describe(".gitmodules", () => {
  it("maps every declared path to its URL, ignoring comments, other sections and incomplete entries", () => {
    const text = [
      '[submodule "lib"]',
      "\tpath = vendor/lib",
      "\turl = https://example.com/org/lib.git",
      "# a comment",
      '[submodule "quoted"]',
      '  path = "with space"',
      "  URL = ../other.git",
      "[core]",
      "  path = not-a-submodule",
      '[submodule "no-url"]',
      "  path = nothing",
    ].join("\n");
    expect([...parseGitmodules(text)]).toEqual([
      ["vendor/lib", "https://example.com/org/lib.git"],
      ["with space", "../other.git"],
    ]);
  });
});

describe("submodule URLs relative to the superproject", () => {
  it.each([
    ["https://h/org/app.git", "../lib.git", "https://h/org/lib.git"],
    ["https://h/org/app.git/", "./lib", "https://h/org/app.git/lib"],
    ["https://h/org/app.git", "../../other/lib.git", "https://h/other/lib.git"],
    ["ssh://git@h:2222/org/app.git", "../lib.git", "ssh://git@h:2222/org/lib.git"],
    ["git@github.com:org/app.git", "../lib.git", "git@github.com:org/lib.git"],
    ["/srv/git/app.git", "../lib.git", "/srv/git/lib.git"],
    ["https://h/org/app.git", "https://elsewhere/lib.git", "https://elsewhere/lib.git"],
  ])("%s + %s → %s", (superURL, url, want) => {
    expect(resolveSubmoduleURL(superURL, url)).toBe(want);
  });
});
