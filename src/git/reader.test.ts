import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GitRepoReader, isRelativeLocalPath, LOCAL_REPOSITORY_REASON } from "./reader.js";
import { isLocalRepositoryURL } from "./url.js";

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

  it.each(["./repo", "../other", "repo", "/var/run/secrets/repo", "file:///tmp/appset-git-cache/x", "FILE://localhost/x"])(
    "refuses the local repository %s with a clear error and runs no git unless local repositories are read",
    async (url) => {
      const reader = new GitRepoReader({ cacheDir: join(tmpdir(), "appset-cache-unused"), env: {} });
      await expect(reader.resolveRevision(url, "main")).rejects.toMatchObject({
        reason: LOCAL_REPOSITORY_REASON,
        message: `repository URL ${JSON.stringify(url)} names a local path or a file:// URL, which this controller does not read; use an https, ssh or git URL`,
      });
      await expect(reader.listTree(url, "0".repeat(40))).rejects.toMatchObject({ reason: LOCAL_REPOSITORY_REASON });
      expect(reader.stats).toEqual({ lsRemote: 0, lsRemoteCached: 0, fetch: 0, lsTree: 0, catFile: 0 });
    },
  );

  it.each([
    { url: "https://git.example/o/r", local: false },
    { url: "git@git.example:o/r.git", local: false },
    { url: "ssh://git@git.example/o/r", local: false },
    { url: "git://git.example/o/r", local: false },
    { url: " file:///srv/r", local: true },
    { url: "/srv/r", local: true },
    { url: "srv/r:x", local: true },
    { url: "", local: false },
  ])("$url is local: $local", ({ url, local }) => {
    expect(isLocalRepositoryURL(url)).toBe(local);
  });

  it("rejects a relative path with a clear error and runs no git when there is no base directory", async () => {
    const reader = new GitRepoReader({ cacheDir: join(tmpdir(), "appset-cache-unused"), env: {}, localRepositories: true });
    await expect(reader.resolveRevision("./repo", "main")).rejects.toThrow('repository URL "./repo" is a relative local path');
    expect(reader.stats).toEqual({ lsRemote: 0, lsRemoteCached: 0, fetch: 0, lsTree: 0, catFile: 0 });
  });
});
