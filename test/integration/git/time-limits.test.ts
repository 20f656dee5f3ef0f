/**
 * Time limits and aborts of git commands: a Git server that accepts the connection and never
 * answers holds `git ls-remote` (and `git fetch`) until the reader's `timeoutMs` or the caller's
 * signal ends it; then the command's whole process group (`git`, `git remote-http`,
 * `git-remote-http`) is killed and the call rejects with a `GitError` saying what happened.
 */
import { existsSync, readdirSync } from "node:fs";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeClock } from "../../../src/clock/index.js";
import { GIT_ERROR_REASON, GitCommandError, GitRepoReader } from "../../../src/git/index.js";
import { gitEnv, TempDirs } from "../support/git-repos.js";
import { eventually, groupMembers, processesMentioning, startSilentServer, type ProcessRow, type SilentServer } from "./processes.js";

const temp = new TempDirs();
afterAll(() => temp.cleanup());

let server: SilentServer;
let url = "";
beforeEach(async () => {
  server = await startSilentServer();
  url = `http://127.0.0.1:${String(server.port)}/repo.git`;
});
afterEach(() => server.stop());

/**
 * The process group of the git command talking to the server: every live process naming the
 * server's address shares one group, led by `git` itself, not the test's own group.
 */
function commandGroup(): { pgid: number; members: ProcessRow[] } {
  const rows = processesMentioning(`127.0.0.1:${String(server.port)}`);
  const pgids = [...new Set(rows.map((r) => r.pgid))];
  expect(pgids, JSON.stringify(rows)).toHaveLength(1);
  const leader = rows.find((r) => r.pid === pgids[0]);
  expect(leader?.args, JSON.stringify(rows)).toMatch(/^git (ls-remote|-c protocol.version=2 .* fetch )/);
  expect(
    rows.some((r) => /remote-https?/.test(r.args)),
    JSON.stringify(rows),
  ).toBe(true);
  return { pgid: pgids[0]!, members: rows };
}

/** What a settled call rejected with (undefined: it resolved). */
function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

/** True once the group has no live member and the server saw every connection closed by its client. */
async function groupGone(pgid: number): Promise<boolean> {
  return eventually(() => groupMembers(pgid).length === 0 && server.sockets.every((s) => s.destroyed));
}

describe("the time limit of a git command", () => {
  it("rejects ls-remote at timeoutMs on the injected clock, not before, and kills its whole process group", async () => {
    const clock = new FakeClock(0);
    const reader = new GitRepoReader({
      localRepositories: true,
      cacheDir: temp.make("appset-cache-"),
      env: gitEnv(),
      timeoutMs: 500,
      clock,
    });
    const connected = server.nextConnection();
    let settled = false;
    const result = rejection(reader.resolveRevision(url, "main")).finally(() => (settled = true));
    await connected;
    const { pgid, members } = commandGroup();
    expect(members.length).toBeGreaterThanOrEqual(2);
    clock.advance(499);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    clock.advance(1);
    const err = await result;
    expect(err).toBeInstanceOf(GitCommandError);
    expect(err).toMatchObject({ reason: GIT_ERROR_REASON, failure: "timeout", message: "git ls-remote: timed out after 500ms" });
    expect(await groupGone(pgid)).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it("rejects ls-remote at timeoutMs of the system clock and leaves no process behind", async () => {
    const reader = new GitRepoReader({ localRepositories: true, cacheDir: temp.make("appset-cache-"), env: gitEnv(), timeoutMs: 500 });
    const connected = server.nextConnection();
    const result = rejection(reader.resolveRevision(url, "main"));
    await connected;
    const { pgid } = commandGroup();
    expect(await result).toMatchObject({ reason: GIT_ERROR_REASON, failure: "timeout", message: "git ls-remote: timed out after 500ms" });
    expect(await groupGone(pgid)).toBe(true);
    expect(processesMentioning(`127.0.0.1:${String(server.port)}`)).toEqual([]);
  });

  it("applies to a fetch too, and releases the cache repository's lock", async () => {
    const clock = new FakeClock(0);
    const cacheDir = temp.make("appset-cache-");
    const reader = new GitRepoReader({ localRepositories: true, cacheDir, env: gitEnv(), timeoutMs: 2000, clock });
    const connected = server.nextConnection();
    const result = rejection(reader.listTree(url, "0123456789abcdef0123456789abcdef01234567"));
    await connected;
    const { pgid } = commandGroup();
    clock.advance(2000);
    expect(await result).toMatchObject({ reason: GIT_ERROR_REASON, failure: "timeout", message: "git fetch: timed out after 2s" });
    expect(await groupGone(pgid)).toBe(true);
    expect(readdirSync(cacheDir).filter((e) => e.endsWith(".lock"))).toEqual([]);
    expect(readdirSync(cacheDir).some((e) => existsSync(`${cacheDir}/${e}/shallow.lock`))).toBe(false);
  });
});

describe("aborting a git command", () => {
  it.each([
    // name; the reader's revision cache interval (a shared ls-remote, or the caller's own)
    { name: "a shared ls-remote whose only waiter gives up", revisionCacheMs: 3000 },
    { name: "the caller's own ls-remote (revision cache off)", revisionCacheMs: 0 },
  ])("kills the process group of $name and rejects as aborted", async ({ revisionCacheMs }) => {
    const reader = new GitRepoReader({
      localRepositories: true,
      cacheDir: temp.make("appset-cache-"),
      env: gitEnv(),
      revisionCacheMs,
      timeoutMs: 60_000,
    });
    const ac = new AbortController();
    const connected = server.nextConnection();
    const result = rejection(reader.resolveRevision(url, "main", ac.signal));
    await connected;
    const { pgid } = commandGroup();
    ac.abort();
    expect(await result).toMatchObject({ reason: GIT_ERROR_REASON, failure: "aborted", message: "git ls-remote: aborted" });
    expect(await groupGone(pgid)).toBe(true);
  });

  it("keeps a shared ls-remote running while another waiter still wants it", async () => {
    const clock = new FakeClock(0);
    const reader = new GitRepoReader({
      localRepositories: true,
      cacheDir: temp.make("appset-cache-"),
      env: gitEnv(),
      timeoutMs: 1000,
      clock,
    });
    const first = new AbortController();
    const connected = server.nextConnection();
    const quitter = rejection(reader.resolveRevision(url, "main", first.signal));
    const stayer = rejection(reader.resolveRevision(url, "main", new AbortController().signal));
    await connected;
    const { pgid } = commandGroup();
    first.abort();
    expect(await quitter).toMatchObject({ failure: "aborted" });
    expect(groupMembers(pgid).length).toBeGreaterThan(0);
    clock.advance(1000);
    expect(await stayer).toMatchObject({ failure: "timeout", message: "git ls-remote: timed out after 1s" });
    expect(await groupGone(pgid)).toBe(true);
    // One ls-remote served both callers: the server saw a single connection.
    expect(server.sockets).toHaveLength(1);
  });
});
