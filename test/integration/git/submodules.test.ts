/**
 * Submodules read as a checkout with `git submodule update --init --recursive` has them, against
 * real repositories: a submodule's files appear under its path, nested submodules too, relative
 * URLs resolve against the superproject's, and with submodules off the submodule stays one entry.
 * Behind credentials, over HTTP with basic auth: a submodule on its own server is read with the
 * credentials a repo-creds template gives its URL, one on the superproject's server borrows the
 * superproject's, and one on another server never receives them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeSecretData, type Secret } from "../../../src/api/index.js";
import { credentialsFromSecrets } from "../../../src/git/credentials.js";
import { GitRepoReader } from "../../../src/git/reader.js";
import { commit, git, gitEnv, makeRepo, repoSecret, TempDirs } from "../support/git-repos.js";
import { serveGitHttp, type GitHttpServer } from "../support/git-http.js";

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

describe("submodules behind credentials", () => {
  const alice = { username: "alice", password: "parent-secret" };
  const bob = { username: "bob", password: "other-secret" };
  const basic = (u: { username: string; password: string }): string =>
    `Basic ${Buffer.from(`${u.username}:${u.password}`).toString("base64")}`;
  let parentServer: GitHttpServer;
  let otherServer: GitHttpServer;
  let parentRoot = "";
  let otherRoot = "";

  /** A bare repository `name` under `dir` holding `files`; returns its head commit. */
  const served = (dir: string, name: string, files: Record<string, string>): string => {
    const work = makeRepo(temp, files);
    git(dir, "clone", "-q", "--bare", work, join(dir, name));
    return git(work, "rev-parse", "HEAD").trim();
  };

  /** A superproject `name` on the parent server whose `.gitmodules` names `modules` (path → URL and commit). */
  const superproject = (name: string, modules: Record<string, { url: string; commit: string }>): string => {
    const work = makeRepo(temp, { "apps/app/config.json": '{"app":1}' });
    let gitmodules = "";
    for (const [path, m] of Object.entries(modules)) {
      // A gitlink without cloning: the submodule's server wants credentials git here has not got.
      git(work, "update-index", "--add", "--cacheinfo", `160000,${m.commit},${path}`);
      gitmodules += `[submodule "${path}"]\n\tpath = ${path}\n\turl = ${m.url}\n`;
    }
    writeFileSync(join(work, ".gitmodules"), gitmodules);
    // Not `git add -A`: the gitlinks have no directory in the work tree, and would be dropped.
    git(work, "add", ".gitmodules");
    git(work, "commit", "-q", "-m", "submodules");
    git(parentRoot, "clone", "-q", "--bare", work, join(parentRoot, name));
    return `${parentServer.url}/${name}`;
  };

  const credsTemplate = (url: string, data: Record<string, string>): Secret => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "creds", namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "repo-creds" } },
    data: encodeSecretData({ url, ...data }),
  });

  const reader = (secrets: Secret[]): GitRepoReader =>
    new GitRepoReader({
      cacheDir: temp.make("appset-cache-"),
      env: gitEnv(),
      submodules: true,
      credentials: credentialsFromSecrets(secrets),
      revisionCacheMs: 0,
    });

  beforeAll(async () => {
    parentRoot = temp.make("appset-parent-server-");
    otherRoot = temp.make("appset-other-server-");
    parentServer = await serveGitHttp(parentRoot, alice);
    otherServer = await serveGitHttp(otherRoot, bob);
  });
  afterAll(async () => {
    await parentServer.stop();
    await otherServer.stop();
  });

  it("reads a submodule on another server with its repo-creds template, and one beside the superproject with the superproject's", async () => {
    const libCommit = served(parentRoot, "lib.git", { "apps/lib/config.json": '{"lib":1}' });
    const otherCommit = served(otherRoot, "other.git", { "apps/other/config.json": '{"other":1}' });
    const url = superproject("app.git", {
      "vendor/lib": { url: "../lib.git", commit: libCommit },
      "vendor/other": { url: `${otherServer.url}/other.git`, commit: otherCommit },
    });
    const r = reader([repoSecret(url, alice), credsTemplate(otherServer.url, bob)]);
    const sha = await r.resolveRevision(url, "HEAD");
    const tree = await r.listTree(url, sha);
    const files = tree.filter((e) => e.path.endsWith("config.json"));
    expect(files.map((e) => e.path).sort()).toEqual([
      "apps/app/config.json",
      "vendor/lib/apps/lib/config.json",
      "vendor/other/apps/other/config.json",
    ]);
    const contents = (await r.readBlobs(url, sha, files)).map((b) => b.toString("utf8"));
    expect(contents.sort()).toEqual(['{"app":1}', '{"lib":1}', '{"other":1}']);

    // Each server saw its own credentials only.
    expect(otherServer.authorizations).toContain(basic(bob));
    expect(otherServer.authorizations).not.toContain(basic(alice));
    expect(parentServer.authorizations).toContain(basic(alice));
    expect(parentServer.authorizations).not.toContain(basic(bob));
    expect(parentServer.requests.some((q) => q.startsWith("GET /lib.git/info/refs"))).toBe(true);
  });

  it("never sends the superproject's credentials to a submodule on another server that has none of its own", async () => {
    const otherCommit = served(otherRoot, "private.git", { "apps/private/config.json": '{"private":1}' });
    const url = superproject("leaky.git", { "vendor/private": { url: `${otherServer.url}/private.git`, commit: otherCommit } });
    const before = otherServer.authorizations.length;
    const r = reader([repoSecret(url, alice)]);
    const sha = await r.resolveRevision(url, "HEAD");
    const err = await r.listTree(url, sha).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String(err)).not.toContain(alice.password);
    const seen = otherServer.authorizations.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((a) => a === "")).toBe(true);
    // With credentials of its own for that server, the same superproject reads.
    const withCreds = reader([repoSecret(url, alice), credsTemplate(`${otherServer.url}/private.git`, bob)]);
    const tree = await withCreds.listTree(url, await withCreds.resolveRevision(url, "HEAD"));
    expect(tree.map((e) => e.path)).toContain("vendor/private/apps/private/config.json");
  });
});
