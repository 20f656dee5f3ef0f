/**
 * Submodules read as a checkout with `git submodule update --init --recursive` has them, against
 * real repositories: a submodule's files appear under its path, nested submodules too, relative
 * URLs resolve against the superproject's, and with submodules off the submodule stays one entry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { GitRepoReader } from "../../../src/git/reader.js";
import { commit, git, gitEnv, makeRepo, TempDirs } from "../support/git-repos.js";

const temp = new TempDirs();
afterAll(() => temp.cleanup());

let root = "";
let superURL = "";
beforeAll(() => {
  root = temp.make("appset-submodules-");
  const bare = (name: string, files: Record<string, string>): string => {
    const work = makeRepo(temp, files);
    git(root, "clone", "-q", "--bare", work, join(root, name));
    return work;
  };
  bare("deep.git", { "deep/config.json": '{"deep":true}' });
  const lib = bare("lib.git", { "apps/lib/config.json": '{"lib":1}' });
  git(lib, "-c", "protocol.file.allow=always", "submodule", "add", "-q", join(root, "deep.git"), "nested");
  git(lib, "config", "-f", ".gitmodules", "submodule.nested.url", "../deep.git");
  commit(lib, {}, "nested submodule");
  git(lib, "push", "-q", join(root, "lib.git"), `HEAD:${git(lib, "symbolic-ref", "HEAD").trim()}`);
  const app = makeRepo(temp, { "apps/app/config.json": '{"app":1}' });
  // A relative URL, resolved against the superproject's URL as git does.
  git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", join(root, "lib.git"), "vendor/lib");
  git(app, "config", "-f", ".gitmodules", "submodule.vendor/lib.url", "../lib.git");
  commit(app, {}, "submodule");
  git(root, "clone", "-q", "--bare", app, join(root, "app.git"));
  superURL = join(root, "app.git");
});

const reader = (submodules: boolean) =>
  new GitRepoReader({ localRepositories: true, cacheDir: temp.make("appset-cache-"), env: gitEnv(), submodules });

describe("submodules", () => {
  it("expands submodules recursively: their directories and files appear under their paths, and read", async () => {
    const r = reader(true);
    const sha = await r.resolveRevision(superURL, "HEAD");
    const tree = await r.listTree(superURL, sha);
    const paths = tree.map((e) => `${e.type} ${e.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        "tree vendor/lib",
        "blob vendor/lib/apps/lib/config.json",
        "tree vendor/lib/nested",
        "blob vendor/lib/nested/deep/config.json",
      ]),
    );
    expect(paths.some((p) => p.startsWith("commit "))).toBe(false);
    const files = tree.filter((e) => e.path.endsWith("config.json"));
    const contents = (await r.readBlobs(superURL, sha, files)).map((b) => b.toString("utf8"));
    expect(contents.sort()).toEqual(['{"app":1}', '{"deep":true}', '{"lib":1}']);
  });

  it("leaves a submodule as one entry when submodules are off", async () => {
    const r = reader(false);
    const tree = await r.listTree(superURL, await r.resolveRevision(superURL, "HEAD"));
    expect(tree.filter((e) => e.path.startsWith("vendor/lib")).map((e) => `${e.type} ${e.path}`)).toEqual(["commit vendor/lib"]);
  });

  it("fails with git's reason when .gitmodules does not name a submodule's URL", async () => {
    const app = makeRepo(temp, { "a.json": "{}" });
    const lib = join(root, "lib.git");
    git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/x");
    commit(app, { ".gitmodules": "# emptied\n" }, "no submodule URL");
    const r = reader(true);
    await expect(r.listTree(app, await r.resolveRevision(app, "HEAD"))).rejects.toThrow(/no url found for submodule path 'vendor\/x'/);
  });
});
