/**
 * A short-lived cache of what a remote advertises (`git ls-remote`), by key, with single flight:
 * callers asking for a key while its load runs share that load. Time is the injected clock's.
 * Pure bookkeeping over promises: the loading itself is the caller's.
 */
import type { Clock } from "../clock/index.js";

/** What {@link RevisionCache.get} resolves to. */
export interface Cached<V> {
  readonly value: V;
  /** True when no load ran for this caller: a kept value, or a load another caller started. */
  readonly cached: boolean;
}

/** A load in progress, shared by its waiters; aborted once every waiter has given up. */
interface Flight<V> {
  readonly promise: Promise<V>;
  readonly controller: AbortController;
  waiters: number;
}

interface Entry<V> {
  /** The repository URL the entry belongs to (what {@link RevisionCache.invalidate} matches). */
  readonly url: string;
  readonly flight?: Flight<V>;
  readonly value?: V;
  readonly expiresAt?: number;
}

/** Options of {@link RevisionCache}. */
export interface RevisionCacheOptions {
  readonly clock: Clock;
  /** How long a loaded value is kept, from the end of its load, in ms; 0 keeps nothing and shares nothing. */
  readonly ttlMs: number;
}

/** Values by key, each kept for `ttlMs` after its load, concurrent loads of one key shared. */
export class RevisionCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(private readonly opts: RevisionCacheOptions) {}

  /**
   * The value of `key` (belonging to repository `url`): kept, joined, or loaded by `load`. `load`
   * receives the signal to run with: aborted once every caller waiting for it has aborted its own
   * `signal`. A failed load is not kept; every caller sharing it receives its error. A caller whose
   * signal aborts rejects at once with the signal's reason.
   */
  async get(url: string, key: string, load: (signal?: AbortSignal) => Promise<V>, signal?: AbortSignal): Promise<Cached<V>> {
    if (this.opts.ttlMs <= 0) return { value: await load(signal), cached: false };
    if (signal?.aborted === true) throw signal.reason as Error;
    const entry = this.entries.get(key);
    if (entry?.value !== undefined && (entry.expiresAt ?? 0) > this.opts.clock.now()) return { value: entry.value, cached: true };
    if (entry?.flight !== undefined) return { value: await this.wait(key, entry.flight, signal), cached: true };
    const flight = this.start(url, key, load);
    return { value: await this.wait(key, flight, signal), cached: false };
  }

  /** Drops every entry of the repositories `matches` accepts; a load in progress is no longer kept when it ends. */
  invalidate(matches: (url: string) => boolean): number {
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      if (!matches(entry.url)) continue;
      this.entries.delete(key);
      dropped++;
    }
    return dropped;
  }

  /** Entries held (kept or loading), for tests and metrics. */
  get size(): number {
    return this.entries.size;
  }

  private start(url: string, key: string, load: (signal?: AbortSignal) => Promise<V>): Flight<V> {
    this.sweep();
    const controller = new AbortController();
    const promise = load(controller.signal);
    const flight: Flight<V> = { promise, controller, waiters: 0 };
    this.entries.set(key, { url, flight });
    promise.then(
      (value) => {
        if (this.entries.get(key)?.flight === flight)
          this.entries.set(key, { url, value, expiresAt: this.opts.clock.now() + this.opts.ttlMs });
      },
      () => {
        if (this.entries.get(key)?.flight === flight) this.entries.delete(key);
      },
    );
    return flight;
  }

  /**
   * Waits for a shared load on behalf of one caller, who may give up with its signal; a caller
   * without a signal never gives up, so the load then runs to its end.
   */
  private wait(key: string, flight: Flight<V>, signal: AbortSignal | undefined): Promise<V> {
    flight.waiters++;
    if (signal === undefined) return flight.promise;
    return new Promise<V>((resolve, reject) => {
      const onAbort = (): void => {
        if (--flight.waiters === 0) this.abandon(key, flight, signal.reason);
        reject(signal.reason as Error);
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener("abort", onAbort, { once: true });
      flight.promise.then(
        (v) => {
          signal.removeEventListener("abort", onAbort);
          resolve(v);
        },
        (e: Error) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      );
    });
  }

  /** Stops a load no one waits for any more; a later caller starts a new one. */
  private abandon(key: string, flight: Flight<V>, reason: unknown): void {
    if (this.entries.get(key)?.flight === flight) this.entries.delete(key);
    flight.controller.abort(reason);
  }

  /** Forgets expired values, so keys asked for once do not pile up. */
  private sweep(): void {
    const now = this.opts.clock.now();
    for (const [key, entry] of this.entries) if (entry.flight === undefined && (entry.expiresAt ?? 0) <= now) this.entries.delete(key);
  }
}
