import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basename, dirname, join } from "node:path";
import { encodeSecretData } from "../../../src/api/index.js";
import { credentialsFromSecrets } from "../../../src/git/credentials.js";
import { GitRepoReader, REVISION_NOT_FOUND_REASON } from "../../../src/git/reader.js";
import { serveGitHttp, type GitHttpServer } from "../support/git-http.js";
import { commit, git, gitEnv, gitReader, makeRepo, TempDirs } from "../support/git-repos.js";

const temp = new TempDirs();
afterAll(() => temp.cleanup());

describe("resolving revisions", () => {
  const repo = makeRepo(temp, { "a.txt": "one\n" });
  const first = git(repo, "rev-parse", "HEAD").trim();
  git(repo, "tag", "v1");
  git(repo, "tag", "-a", "v1-annotated", "-m", "annotated");
  git(repo, "branch", "release");
  const second = commit(repo, { "a.txt": "two\n" });

  it.each([
    // name; revision asked; expected commit
    { name: "HEAD resolves to the default branch tip", revision: "HEAD", want: () => second },
    { name: "an empty revision means HEAD", revision: "", want: () => second },
    { name: "a branch resolves to its tip", revision: "release", want: () => first },
    { name: "a lightweight tag resolves to its commit", revision: "v1", want: () => first },
    { name: "an annotated tag is peeled to its commit", revision: "v1-annotated", want: () => first },
    { name: "a full ref resolves", revision: "refs/heads/main", want: () => second },
    { name: "a commit SHA is its own resolution", revision: first, want: () => first },
  ])("$name", async ({ revision, want }) => {
    await expect(gitReader(temp).resolveRevision(repo, revision)).resolves.toBe(want());
  });

  it("rejects a revision that names nothing with a typed error", async () => {
    await expect(gitReader(temp).resolveRevision(repo, "no-such-branch")).rejects.toMatchObject({ reason: REVISION_NOT_FOUND_REASON });
  });

  it("rejects an unreachable repository instead of returning nothing", async () => {
    await expect(gitReader(temp).resolveRevision(join(repo, "missing"), "HEAD")).rejects.toThrow(/git ls-remote/);
  });
});

describe("reading a commit", () => {
  it("lists the tree with directories and reads blobs by entry", async () => {
    const repo = makeRepo(temp, { "apps/a/config.json": '{"a":1}', "apps/b/x.yaml": "b: 2\n", "README.md": "hi\n" });
    const reader = gitReader(temp);
    const sha = await reader.resolveRevision(`file://${repo}`, "main");
    const tree = await reader.listTree(`file://${repo}`, sha);
    expect(tree.map((e) => `${e.type}:${e.path}`)).toEqual([
      "blob:README.md",
      "tree:apps",
      "tree:apps/a",
      "blob:apps/a/config.json",
      "tree:apps/b",
      "blob:apps/b/x.yaml",
    ]);
    const blobs = await reader.readBlobs(
      `file://${repo}`,
      sha,
      tree.filter((e) => e.type === "blob"),
    );
    expect(blobs.map((b) => b.toString("utf8"))).toEqual(["hi\n", '{"a":1}', "b: 2\n"]);
  });

  it.each([
    // name; byte budget of the blob cache; cat-file runs for three reads of the same two blobs (40 and 60 bytes)
    { name: "blobs within the byte budget are read once", maxBlobBytes: 1000, catFiles: 1 },
    { name: "blobs over the byte budget are still answered, and read again each time", maxBlobBytes: 50, catFiles: 3 },
  ])("$name", async ({ maxBlobBytes, catFiles }) => {
    const repo = makeRepo(temp, { "a.yaml": "a".repeat(40), "b.yaml": "b".repeat(60) });
    const reader = new GitRepoReader({
      localRepositories: true,
      cacheDir: temp.make("appset-cache-"),
      env: gitEnv(),
      revisionCacheMs: 0,
      maxBlobBytes,
    });
    const sha = await reader.resolveRevision(repo, "HEAD");
    const blobs = (await reader.listTree(repo, sha)).filter((e) => e.type === "blob");
    for (let i = 0; i < 3; i++) {
      const got = await reader.readBlobs(repo, sha, blobs);
      expect(got.map((b) => b.length)).toEqual([40, 60]);
    }
    expect(reader.stats.catFile).toBe(catFiles);
  });

  it("costs one ls-remote and no fetch when the repository has not changed", async () => {
    const repo = makeRepo(temp, { "apps/a/config.json": "{}" });
    const reader = gitReader(temp);
    for (let i = 0; i < 3; i++) {
      const sha = await reader.resolveRevision(repo, "HEAD");
      await reader.listTree(repo, sha);
    }
    expect(reader.stats).toMatchObject({ lsRemote: 3, fetch: 1, lsTree: 1 });
    commit(repo, { "apps/b/config.json": "{}" });
    const sha = await reader.resolveRevision(repo, "HEAD");
    const tree = await reader.listTree(repo, sha);
    expect(tree.some((e) => e.path === "apps/b")).toBe(true);
    expect(reader.stats).toMatchObject({ lsRemote: 4, fetch: 2, lsTree: 2 });
  });

  it("serializes concurrent reads of one repository and fetches once", async () => {
    const repo = makeRepo(temp, { "f.txt": "x" });
    const reader = gitReader(temp);
    const sha = await reader.resolveRevision(repo, "HEAD");
    const trees = await Promise.all([1, 2, 3, 4].map(() => reader.listTree(repo, sha)));
    expect(new Set(trees.map((t) => t.length))).toEqual(new Set([1]));
    expect(reader.stats.fetch).toBe(1);
  });
});

describe("smart HTTP with credentials from repository Secrets", () => {
  let server: GitHttpServer;
  let open: GitHttpServer;
  let sha = "";
  beforeAll(async () => {
    const work = makeRepo(temp, { "apps/x/config.json": '{"x":true}' });
    sha = git(work, "rev-parse", "HEAD").trim();
    const root = temp.make("appset-served-");
    git(root, "clone", "-q", "--bare", work, join(root, "repo.git"));
    server = await serveGitHttp(root, { username: "alice", password: "s3cret" });
    open = await serveGitHttp(root);
  });
  afterAll(async () => {
    await server.stop();
    await open.stop();
  });

  const secret = (url: string, type: string, data: Record<string, string>) => ({
    metadata: { name: "repo", labels: { "argocd.argoproj.io/secret-type": type } },
    data: encodeSecretData({ url, ...data }),
  });

  it.each([
    // name; the Secrets; whether the fetch succeeds
    {
      name: "an exact repository Secret authenticates",
      secrets: (u: string) => [secret(u, "repository", { username: "alice", password: "s3cret" })],
      ok: true,
    },
    {
      name: "a repo-creds prefix authenticates",
      secrets: (u: string) => [secret(u.replace(/repo\.git$/, ""), "repo-creds", { username: "alice", password: "s3cret" })],
      ok: true,
    },
    {
      name: "a wrong password is refused",
      secrets: (u: string) => [secret(u, "repository", { username: "alice", password: "nope" })],
      ok: false,
    },
    { name: "no credentials are refused", secrets: () => [], ok: false },
  ])("$name", async ({ secrets, ok }) => {
    const url = `${server.url}/repo.git`;
    const reader = gitReader(temp, credentialsFromSecrets(secrets(url)));
    const run = async () => reader.listTree(url, await reader.resolveRevision(url, "main"));
    if (ok) await expect(run()).resolves.toHaveLength(3);
    else await expect(run()).rejects.toThrow(/git ls-remote/);
  });

  it("never shows the password in an error message", async () => {
    const url = `${server.url}/repo.git`;
    const reader = gitReader(temp, credentialsFromSecrets([secret(url, "repository", { username: "alice", password: "wrong-pass" })]));
    const err = await reader.resolveRevision(url, "main").catch((e: unknown) => e as Error);
    expect(String(err)).not.toContain("wrong-pass");
  });

  it("fetches a commit named by SHA over smart HTTP without resolving a ref", async () => {
    const url = `${open.url}/repo.git`;
    const reader = gitReader(temp);
    const tree = await reader.listTree(url, await reader.resolveRevision(url, sha));
    expect(tree.map((e) => e.path)).toContain("apps/x/config.json");
    expect(reader.stats.lsRemote).toBe(0);
  });
});

describe("relative local paths", () => {
  it("reads a repository named relative to the base directory, even though git runs in the cache", async () => {
    const repo = makeRepo(temp, { "apps/a.txt": "a\n" });
    const reader = new GitRepoReader({
      localRepositories: true,
      cacheDir: temp.make("appset-cache-"),
      env: gitEnv(),
      baseDir: dirname(repo),
    });
    const url = `./${basename(repo)}`;
    const sha = await reader.resolveRevision(url, "main");
    const tree = await reader.listTree(url, sha);
    const blobs = await reader.readBlobs(
      url,
      sha,
      tree.filter((e) => e.type === "blob"),
    );
    expect(blobs.map((b) => b.toString("utf8"))).toEqual(["a\n"]);
  });
});
