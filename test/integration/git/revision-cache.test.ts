/**
 * The revision cache of the Git reader against real repositories: what `ls-remote` returned is
 * kept for `revisionCacheMs` on the injected clock, per repository URL and credentials, callers
 * asking at once share one `ls-remote`, and `invalidate` drops a repository's entries.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeSecretData } from "../../../src/api/index.js";
import { FakeClock } from "../../../src/clock/index.js";
import { credentialsFromSecrets, GitRepoReader, type CredentialsLookup } from "../../../src/git/index.js";
import { serveGitHttp, type GitHttpServer } from "../support/git-http.js";
import { commit, git, gitEnv, makeRepo, TempDirs } from "../support/git-repos.js";

const temp = new TempDirs();
afterAll(() => temp.cleanup());

function reader(clock: FakeClock, opts: { revisionCacheMs?: number; credentials?: CredentialsLookup } = {}): GitRepoReader {
  return new GitRepoReader({
    localRepositories: true,
    cacheDir: temp.make("appset-cache-"),
    env: gitEnv(),
    clock,
    timeoutMs: 60_000,
    ...opts,
  });
}

describe("the revision cache over a local repository", () => {
  it.each([
    // name; callers at once; the interval; ls-remotes run; resolutions served without one
    { name: "five callers at once share one ls-remote", callers: 5, revisionCacheMs: 3000, lsRemote: 1, lsRemoteCached: 4 },
    { name: "with the cache off each caller runs its own", callers: 5, revisionCacheMs: 0, lsRemote: 5, lsRemoteCached: 0 },
  ])("$name", async ({ callers, revisionCacheMs, lsRemote, lsRemoteCached }) => {
    const repo = makeRepo(temp, { "a.txt": "1" });
    const head = git(repo, "rev-parse", "HEAD").trim();
    const r = reader(new FakeClock(0), { revisionCacheMs });
    const got = await Promise.all(Array.from({ length: callers }, (_, i) => r.resolveRevision(repo, i % 2 === 0 ? "main" : "HEAD")));
    expect(got).toEqual(Array.from({ length: callers }, () => head));
    expect(r.stats).toMatchObject({ lsRemote, lsRemoteCached });
  });

  it("keeps a branch's commit for the interval, then asks the remote again", async () => {
    const repo = makeRepo(temp, { "a.txt": "1" });
    const first = git(repo, "rev-parse", "HEAD").trim();
    const clock = new FakeClock(0);
    const r = reader(clock);
    expect(await r.resolveRevision(repo, "main")).toBe(first);
    const second = commit(repo, { "a.txt": "2" });
    clock.advance(2999);
    expect(await r.resolveRevision(repo, "main")).toBe(first);
    expect(r.stats).toMatchObject({ lsRemote: 1, lsRemoteCached: 1 });
    clock.advance(1);
    expect(await r.resolveRevision(repo, "main")).toBe(second);
    expect(r.stats).toMatchObject({ lsRemote: 2, lsRemoteCached: 1 });
  });

  it("does not keep a failed ls-remote", async () => {
    const repo = makeRepo(temp, { "a.txt": "1" });
    const r = reader(new FakeClock(0));
    await expect(r.resolveRevision(join(repo, "missing"), "main")).rejects.toThrow(/git ls-remote/);
    await expect(r.resolveRevision(join(repo, "missing"), "main")).rejects.toThrow(/git ls-remote/);
    expect(r.stats).toMatchObject({ lsRemote: 0, lsRemoteCached: 0 });
  });
});

describe("the revision cache over smart HTTP with credentials", () => {
  let server: GitHttpServer;
  let work = "";
  let url = "";
  beforeAll(async () => {
    work = makeRepo(temp, { "a.txt": "1" });
    const root = temp.make("appset-served-");
    git(root, "clone", "-q", "--bare", work, join(root, "repo.git"));
    git(work, "remote", "add", "served", join(root, "repo.git"));
    server = await serveGitHttp(root, { username: "alice", password: "s3cret" });
    url = `${server.url}/repo.git`;
  });
  afterAll(() => server.stop());

  /**
   * Project `good` has the right password, `bad` a wrong one, `other` the right one with
   * `insecure` set: other credentials, which the server accepts too.
   */
  const credentials = (): CredentialsLookup => {
    const secret = (project: string, data: Record<string, string>) => ({
      metadata: { name: `repo-${project}`, labels: { "argocd.argoproj.io/secret-type": "repository" } },
      data: encodeSecretData({ url, project, username: "alice", ...data }),
    });
    return credentialsFromSecrets([
      secret("good", { password: "s3cret" }),
      secret("bad", { password: "wrong" }),
      secret("other", { password: "s3cret", insecure: "true" }),
    ]);
  };

  it("never answers a caller whose credentials differ from those the remote accepted", async () => {
    const r = reader(new FakeClock(0), { credentials: credentials() });
    const head = await r.resolveRevision(url, "main", undefined, { project: "good" });
    await expect(r.resolveRevision(url, "main", undefined, { project: "bad" })).rejects.toThrow(/git ls-remote/);
    expect(await r.resolveRevision(url, "main", undefined, { project: "good" })).toBe(head);
    expect(r.stats).toMatchObject({ lsRemote: 1, lsRemoteCached: 1 });
  });

  it("keeps separate entries for separate credentials", async () => {
    const r = reader(new FakeClock(0), { credentials: credentials() });
    const good = await r.resolveRevision(url, "main", undefined, { project: "good" });
    const other = await r.resolveRevision(url, "main", undefined, { project: "other" });
    await r.resolveRevision(url, "main", undefined, { project: "good" });
    await r.resolveRevision(url, "main", undefined, { project: "other" });
    expect(other).toBe(good);
    expect(r.stats).toMatchObject({ lsRemote: 2, lsRemoteCached: 2 });
  });

  it("drops a repository's entries on invalidate, whatever form of its URL names it", async () => {
    const r = reader(new FakeClock(0), { credentials: credentials() });
    const before = await r.resolveRevision(url, "main", undefined, { project: "good" });
    await r.resolveRevision(url, "main", undefined, { project: "other" });
    const after = commit(work, { "a.txt": `pushed ${before}` });
    git(work, "push", "-q", "served", "main");
    expect(await r.resolveRevision(url, "main", undefined, { project: "good" })).toBe(before);
    r.invalidate(url.replace(/\.git$/, "").toUpperCase());
    expect(await r.resolveRevision(url, "main", undefined, { project: "good" })).toBe(after);
    expect(await r.resolveRevision(url, "main", undefined, { project: "other" })).toBe(after);
    expect(r.stats).toMatchObject({ lsRemote: 4, lsRemoteCached: 1 });
  });
});
