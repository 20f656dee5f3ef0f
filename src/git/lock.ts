/**
 * A lock per cache repository shared by every process that uses the cache directory: git takes
 * its own lock files (`shallow.lock`, `config.lock`, ref locks) and fails at once when another
 * process holds them, so whatever writes a bare cache repository (init, fetch) runs holding
 * {@link withRepoLock}. The lock is `proper-lockfile`'s: a directory `<repository>.lock` created
 * atomically beside the repository and refreshed while held, taken over once its holder has
 * stopped refreshing it for {@link STALE_MS} (the holder died). In-process callers queue on it
 * like other processes do.
 *
 * Commands that only read objects (`ls-tree`, `cat-file`) need no lock: git adds objects and packs
 * with an atomic rename, so a reader sees a commit's objects whole or not at all.
 */
import { watch, type FSWatcher } from "node:fs";
import { dirname } from "node:path";
import lockfile from "proper-lockfile";
import type { Clock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { abortedError, GitCommandError, timeoutError } from "./exec.js";

/** A held lock not refreshed for this long is taken over: its holder is gone. */
export const STALE_MS = 10_000;

/** First pause between two attempts at a held lock; it doubles up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 10;
const MAX_RETRY_MS = 200;

/** Options of {@link withRepoLock}. */
export interface RepoLockOptions {
  /** Measures the wait and paces the attempts. */
  readonly clock: Clock;
  /** Aborting it stops the wait (rejects "aborted"), or the locked work once the lock is held. */
  readonly signal?: AbortSignal;
  /** Longest wait for the lock, in ms; unset or 0: no limit. */
  readonly timeoutMs?: number;
  /** Names the locked repository in error messages, e.g. `git cache lock (https://…)`. */
  readonly what: string;
}

/**
 * Runs `fn` holding the exclusive lock of the repository at `dir` (its parent directory must
 * exist), waiting while another holder has it. `fn` receives the signal to run its commands with:
 * the caller's, also aborted if the lock is lost (taken over as stale) while held. Rejects with a
 * {@link GitCommandError} when the wait times out or is aborted, or the lock cannot be taken.
 */
export async function withRepoLock<T>(dir: string, opts: RepoLockOptions, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const lost = new AbortController();
  const release = await acquire(dir, opts, (err) => lost.abort(err));
  const signal = opts.signal === undefined ? lost.signal : AbortSignal.any([opts.signal, lost.signal]);
  try {
    return await fn(signal);
  } catch (err) {
    if (lost.signal.aborted)
      throw new GitCommandError(`${opts.what}: lock lost while held: ${errorMessage(lost.signal.reason)}`, undefined, "lock");
    throw err;
  } finally {
    // A lost lock is no longer ours to release; any other failure leaves it to go stale.
    await release().catch(() => undefined);
  }
}

/** Takes the lock, retrying while it is held, within the signal and the time limit. */
async function acquire(dir: string, opts: RepoLockOptions, onCompromised: (err: Error) => void): Promise<() => Promise<void>> {
  const limit = opts.timeoutMs ?? 0;
  const deadline = opts.clock.now() + limit;
  const changes = DirChanges.open(dirname(dir));
  try {
    for (let pause = FIRST_RETRY_MS; ; pause = Math.min(pause * 2, MAX_RETRY_MS)) {
      if (opts.signal?.aborted === true) throw abortedError(`${opts.what}: waiting for the lock`);
      try {
        return await lockfile.lock(dir, { realpath: false, stale: STALE_MS, retries: 0, onCompromised });
      } catch (err) {
        if (!isHeld(err)) throw new GitCommandError(`${opts.what}: unable to lock ${dir}: ${errorMessage(err)}`, undefined, "lock");
      }
      const left = deadline - opts.clock.now();
      if (limit > 0 && left <= 0) throw timeoutError(`${opts.what}: waiting for the lock`, limit);
      await pauseOrChange(limit > 0 ? Math.min(pause, left) : pause, opts, changes);
    }
  } finally {
    changes?.close();
  }
}

/**
 * Waits `ms` on the clock, or less if the lock's directory changes (the lock released). Rejects
 * "aborted" when the caller's signal aborts.
 */
async function pauseOrChange(ms: number, opts: RepoLockOptions, changes: DirChanges | undefined): Promise<void> {
  const tick = new AbortController();
  const signal = opts.signal === undefined ? tick.signal : AbortSignal.any([opts.signal, tick.signal]);
  try {
    await Promise.race([opts.clock.sleep(ms, signal), ...(changes === undefined ? [] : [changes.next()])]);
  } catch {
    throw abortedError(`${opts.what}: waiting for the lock`);
  } finally {
    tick.abort();
  }
}

/**
 * The changes of a directory's entries (`fs.watch`). Besides waking a waiter as soon as the lock
 * is released, the watcher keeps the process alive while it waits for a lock another process
 * holds: the clock's timers do not.
 */
class DirChanges {
  private pending: { promise: Promise<void>; resolve: () => void } | undefined;

  private constructor(private readonly watcher: FSWatcher) {
    watcher.on("change", () => this.fire());
    watcher.on("error", () => this.fire());
  }

  /** Watches `dir`; undefined when it cannot be watched (then the waiter only polls). */
  static open(dir: string): DirChanges | undefined {
    try {
      return new DirChanges(watch(dir));
    } catch {
      return undefined;
    }
  }

  /** Resolves at the next change. */
  next(): Promise<void> {
    if (this.pending === undefined) {
      let resolve = (): void => undefined;
      const promise = new Promise<void>((r) => (resolve = r));
      this.pending = { promise, resolve };
    }
    return this.pending.promise;
  }

  close(): void {
    this.fire();
    this.watcher.close();
  }

  private fire(): void {
    const p = this.pending;
    this.pending = undefined;
    p?.resolve();
  }
}

function isHeld(err: unknown): boolean {
  return err instanceof Error && (err as { code?: unknown }).code === "ELOCKED";
}
