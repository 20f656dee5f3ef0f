import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GitRepoReader, isRelativeLocalPath } from "./reader.js";

// Reading real repositories (local, and over smart HTTP) is tested in test/integration/git/reader.test.ts.

describe("relative local paths", () => {
  it.each([
    // name; repository URL; whether git would read it as a path relative to its working directory
    { name: "a ./ path", url: "./repo", relative: true },
    { name: "a ../ path", url: "../up/repo", relative: true },
    { name: "a bare name", url: "repo", relative: true },
    { name: "a path with a colon after its first slash", url: "./a:b", relative: true },
    { name: "an absolute path", url: "/srv/repo", relative: false },
    { name: "a file URL", url: "file:///srv/repo", relative: false },
    { name: "an https URL", url: "https://example.com/org/repo.git", relative: false },
    { name: "an ssh URL", url: "ssh://git@example.com/org/repo.git", relative: false },
    { name: "an scp-like address", url: "git@example.com:org/repo.git", relative: false },
    { name: "an scp-like address without a user", url: "example.com:repo", relative: false },
    { name: "an empty URL", url: "", relative: false },
  ])("$name is relative: $relative", ({ url, relative }) => {
    expect(isRelativeLocalPath(url)).toBe(relative);
  });

  it("rejects a relative path with a clear error and runs no git when there is no base directory", async () => {
    const reader = new GitRepoReader({ cacheDir: join(tmpdir(), "appset-cache-unused"), env: {} });
    await expect(reader.resolveRevision("./repo", "main")).rejects.toThrow('repository URL "./repo" is a relative local path');
    expect(reader.stats).toEqual({ lsRemote: 0, lsRemoteCached: 0, fetch: 0, lsTree: 0, catFile: 0 });
  });
});
