/**
 * A tenant who can push to a repository that the controller or the sync engine reads, attacking
 * the disk of the process: tree entries that climb out of the workspace, and symbolic links that
 * lead out of it, on their own or in chains. Real `git` on both sides (crafted objects, git's own
 * smart-HTTP backend); each test asserts the refusal, its message, and that nothing outside was
 * written or read.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitRepoReader, LOCAL_REPOSITORY_REASON } from "../../src/git/index.js";
import { writeWorkspace } from "../../src/syncwaves/render/workspace.js";
import { serveGitHttp, type GitHttpServer } from "../integration/support/git-http.js";
import { git, gitEnv, makeRepo, TempDirs } from "../integration/support/git-repos.js";
import { blob, commitTree, rawTree } from "./support/crafted-git.js";

const temp = new TempDirs();
let root: string;
let server: GitHttpServer;

beforeAll(async () => {
  root = temp.make("appset-hostile-");
  server = await serveGitHttp(root);
});
afterAll(async () => {
  await server.stop();
  temp.cleanup();
});

/** A bare repository `name.git` under the served root, built by `build`. */
function bare(name: string, build: (repo: string) => void): string {
  const repo = join(root, `${name}.git`);
  mkdirSync(repo);
  git(repo, "init", "-q", "--bare", "-b", "main");
  build(repo);
  return `${server.url}/${name}.git`;
}

/** A work tree of these files pushed to a served bare repository. */
function pushed(name: string, files: Parameters<typeof makeRepo>[1]): string {
  const work = makeRepo(temp, files);
  return bare(name, (repo) => git(work, "push", "-q", repo, "main"));
}

function reader(): { git: GitRepoReader; cacheDir: string } {
  const cacheDir = join(temp.make("appset-cache-parent-"), "cache");
  return { git: new GitRepoReader({ cacheDir, env: gitEnv(), revisionCacheMs: 0 }), cacheDir };
}

describe("a crafted tree", () => {
  it.each([
    { name: "dotdot", entry: "..", check: "hasDotdot" },
    { name: "dotgit", entry: ".git", check: "hasDotgit" },
    { name: "dot", entry: ".", check: "hasDot" },
  ])("holding an entry named '$entry' is refused by the fetch, and nothing is written beside the cache", async ({ name, entry, check }) => {
    const url = bare(name, (repo) => {
      const config = blob(repo, "[core]\n\thooksPath = /tmp\n");
      const inner = rawTree(repo, [{ mode: "100644", name: "config", oid: config }]);
      const ok = blob(repo, "ok");
      commitTree(
        repo,
        rawTree(repo, [
          { mode: "40000", name: entry, oid: inner },
          { mode: "100644", name: "ok.yaml", oid: ok },
        ]),
      );
    });
    const { git: r, cacheDir } = reader();
    const sha = await r.resolveRevision(url, "main");
    await expect(r.listTree(url, sha)).rejects.toThrow(check);
    // the only thing beside the cache is the cache itself
    expect(readdirSync(dirname(cacheDir))).toEqual(["cache"]);
    expect(existsSync(join(cacheDir, "config"))).toBe(false);
  });
});

describe("symbolic links of a repository", () => {
  const secret = (): string => {
    const dir = temp.make("appset-secret-");
    writeFileSync(join(dir, "token"), "s3cr3t");
    return join(dir, "token");
  };

  it.each([
    { name: "absolute", files: (s: string) => ({ "values.yaml": { symlink: s } }), refused: "out-of-bounds symlinks. file: values.yaml" },
    {
      name: "climbing",
      files: () => ({ "app/values.yaml": { symlink: "../../../../../../../../../../etc/hostname" } }),
      refused: "out-of-bounds symlinks. file: app/values.yaml",
    },
    {
      // each link looks inside on its own text: a → ., b → a/.. (b is the parent of the workspace)
      name: "chained",
      files: () => ({ a: { symlink: "." }, b: { symlink: "a/.." }, "values.yaml": { symlink: "b/repo/values.yaml" } }),
      refused: "a symlink to a directory, which is not supported. file: a",
    },
    {
      name: "through-a-link",
      files: () => ({ "x.yaml": { symlink: "y.yaml" }, "y.yaml": { symlink: "../scratch/x" } }),
      refused: "out-of-bounds symlinks. file: x.yaml",
    },
  ])("$name: the render workspace is refused with Argo CD's message", async ({ name, files, refused }) => {
    const url = pushed(`links-${name}`, { "Chart.yaml": "name: c\nversion: 1.0.0\n", ...files(secret()) });
    const { git: r } = reader();
    const sha = await r.resolveRevision(url, "main");
    const tree = await r.listTree(url, sha);
    await expect(writeWorkspace({ git: r, repoURL: url, commit: sha, tree })).rejects.toThrow(`repository contains ${refused}`);
  });

  it("a link to a file inside is kept and reads that file", async () => {
    const url = pushed("links-inside", { "base/values.yaml": "replicas: 2\n", "prod/values.yaml": { symlink: "../base/values.yaml" } });
    const { git: r } = reader();
    const sha = await r.resolveRevision(url, "main");
    const ws = await writeWorkspace({ git: r, repoURL: url, commit: sha, tree: await r.listTree(url, sha) });
    try {
      expect(readFileSync(join(ws.dir, "prod/values.yaml"), "utf8")).toBe("replicas: 2\n");
    } finally {
      await ws.dispose();
    }
  });
});

describe("a submodule naming this machine's disk", () => {
  it.each(["file", "path"])("(%s) is refused before git reads it, and the other team's cache is not read", async (form) => {
    // another team's private repository, already in the shared cache
    const { git: r, cacheDir } = reader();
    const privateURL = pushed(`private-${form}`, { "secret.yaml": "token: team-b" });
    const stolen = await r.resolveRevision(privateURL, "main");
    await r.listTree(privateURL, stolen);
    const cached = readdirSync(cacheDir).find((e) => e !== "cache-key")!;
    const target = form === "file" ? `file://${join(cacheDir, cached)}` : join(cacheDir, cached);
    // a gitlink to the private commit, and a .gitmodules naming the cache folder that holds it
    const work = makeRepo(temp, { "app.yaml": "x", ".gitmodules": `[submodule "stolen"]\n\tpath = stolen\n\turl = ${target}\n` });
    git(work, "update-index", "--add", "--cacheinfo", `160000,${stolen},stolen`);
    git(work, "commit", "-q", "-m", "submodule into the cache");
    const url = bare(`thief-${form}`, (repo) => git(work, "push", "-q", repo, "main"));
    const thief = new GitRepoReader({ cacheDir, env: gitEnv(), revisionCacheMs: 0, submodules: true });
    const sha = await thief.resolveRevision(url, "main");
    await expect(thief.listTree(url, sha)).rejects.toMatchObject({ reason: LOCAL_REPOSITORY_REASON });
  });
});
