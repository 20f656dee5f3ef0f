/**
 * The lock of a cache repository (`withRepoLock`, over real lock directories): one holder at a
 * time, a wait bounded by the time limit and the caller's signal, and a dead holder's lock taken
 * over once stale.
 */
import { mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SystemClock } from "../../../src/clock/index.js";
import { GIT_ERROR_REASON } from "../../../src/git/index.js";
import { STALE_MS, withRepoLock } from "../../../src/git/lock.js";
import { TempDirs } from "../support/git-repos.js";

const temp = new TempDirs();
afterAll(() => temp.cleanup());

const clock = new SystemClock();
const what = "git cache lock (test)";

/** Holds the lock of `dir` until the returned `release` is called. */
async function hold(dir: string): Promise<{ release: () => void; done: Promise<void> }> {
  let release = (): void => undefined;
  let held = (): void => undefined;
  const acquired = new Promise<void>((r) => (held = r));
  const done = withRepoLock(dir, { clock, what }, () => {
    held();
    return new Promise<void>((r) => (release = r));
  });
  await acquired;
  return { release, done };
}

describe("the lock of a cache repository", () => {
  it("lets one holder in at a time: the next runs once the first has released it", async () => {
    const dir = join(temp.make("appset-lock-"), "repo");
    const events: string[] = [];
    const first = await hold(dir);
    const second = withRepoLock(dir, { clock, what }, () => {
      events.push("second runs");
      return Promise.resolve();
    });
    await new Promise((resolve) => setImmediate(resolve));
    events.push("first releases");
    first.release();
    await Promise.all([first.done, second]);
    expect(events).toEqual(["first releases", "second runs"]);
  });

  it.each([
    // name; what ends the wait; the error expected
    {
      name: "the time limit",
      timeoutMs: 200,
      abort: false,
      failure: "timeout",
      message: `${what}: waiting for the lock: timed out after 200ms`,
    },
    { name: "the caller's signal", timeoutMs: 0, abort: true, failure: "aborted", message: `${what}: waiting for the lock: aborted` },
  ])("stops waiting for a held lock at $name", async ({ timeoutMs, abort, failure, message }) => {
    const dir = join(temp.make("appset-lock-"), "repo");
    const first = await hold(dir);
    const ac = new AbortController();
    let ran = false;
    const waiting = withRepoLock(dir, { clock, what, timeoutMs, signal: ac.signal }, () => {
      ran = true;
      return Promise.resolve();
    });
    if (abort) ac.abort();
    await expect(waiting).rejects.toMatchObject({ reason: GIT_ERROR_REASON, failure, message });
    expect(ran).toBe(false);
    first.release();
    await first.done;
  });

  it("takes over the lock of a holder that stopped refreshing it", async () => {
    const parent = temp.make("appset-lock-");
    const dir = join(parent, "repo");
    mkdirSync(`${dir}.lock`);
    const past = new Date(clock.now() - 2 * STALE_MS);
    utimesSync(`${dir}.lock`, past, past);
    await expect(withRepoLock(dir, { clock, what, timeoutMs: 5000 }, () => Promise.resolve("ran"))).resolves.toBe("ran");
  });

  it("does not take over a lock its holder refreshed recently", async () => {
    const dir = join(temp.make("appset-lock-"), "repo");
    mkdirSync(`${dir}.lock`);
    await expect(withRepoLock(dir, { clock, what, timeoutMs: 300 }, () => Promise.resolve("ran"))).rejects.toMatchObject({
      failure: "timeout",
    });
  });
});
