/**
 * The process's lifecycle, in controller-runtime's shape: one {@link SharedCache} for every loop;
 * {@link Manager.run} starts the cache in every replica, and the loops once it has synced: those
 * that need leadership only while this process leads (with leader election), the others at once.
 * `stop` stops the loops (no new work, running reconciles aborted through their signals and
 * awaited for a grace period), then the cache, then closes the servers and the clients.
 */
import { errorMessage } from "../errors.js";
import type { Logger } from "../log/logger.js";
import type { SharedCache } from "./cache.js";

/** One reconcile loop the manager runs. */
export interface Loop {
  /** The loop's name in logs. */
  readonly name: string;
  /** True when only the leader may run it (it writes); false when every replica runs it. */
  readonly leaderOnly: boolean;
  /** Starts the loop's workers; the cache has synced. */
  start(): void;
  /** Stops taking work, aborts running reconciles and waits up to `graceMs` for them. */
  stop(graceMs: number): Promise<unknown>;
}

/** How a process's run ended: stopped (SIGTERM/SIGINT) or leadership lost. */
export type RunEnd = "stopped" | "lost";

/**
 * Leader election as the manager uses it: `run` campaigns until `signal` aborts or leadership is
 * lost, and calls `started` with a signal that aborts when the leadership ends.
 */
export interface Leadership {
  run(signal: AbortSignal, started: (leading: AbortSignal) => void): Promise<RunEnd>;
}

/** Options of {@link Manager}. */
export interface ManagerOptions {
  readonly cache: SharedCache;
  readonly logger: Logger;
  /** Closed last, after the loops and the cache (the servers, the clients' transports). */
  readonly closers?: ReadonlyArray<() => Promise<void>>;
}

/** The loops that may run: all of them while this process leads, else those that need no leadership. */
export function runnableLoops(loops: readonly Loop[], leading: boolean): Loop[] {
  return loops.filter((l) => leading || !l.leaderOnly);
}

/** Runs the shared cache and the loops over it. */
export class Manager {
  private readonly loops: Loop[] = [];
  private readonly running = new Set<Loop>();
  private stopped = false;

  constructor(private readonly opts: ManagerOptions) {}

  /** The shared cache. */
  get cache(): SharedCache {
    return this.opts.cache;
  }

  /** Adds a loop; it starts with {@link run} (or {@link startLoops}). */
  add(loop: Loop): void {
    this.loops.push(loop);
  }

  /**
   * Runs until `signal` aborts ("stopped") or, with `leadership`, until leadership is lost ("lost").
   * Without leadership every loop starts once the cache has synced (a failure to sync that is not
   * the stop rejects). With it, the cache and the loops that need no leadership start in every
   * replica, and the leader-only loops when this process starts leading. Call {@link stop} after.
   */
  async run(signal: AbortSignal, leadership?: Leadership): Promise<RunEnd> {
    if (leadership === undefined) {
      if (signal.aborted) return "stopped";
      await this.startLoops(signal, true).catch((err: unknown) => {
        if (!signal.aborted) throw err;
      });
      await untilAborted(signal);
      return "stopped";
    }
    this.startLoops(signal, false).catch(this.failed(signal, "caches failed to sync"));
    return leadership.run(signal, (leading) => {
      this.startLoops(leading, true).catch(this.failed(leading, "loops failed to start"));
    });
  }

  /** Starts the cache and resolves once it has synced (rejects when `signal` aborts first). */
  async startCache(signal?: AbortSignal): Promise<void> {
    this.opts.cache.start();
    await this.opts.cache.waitForSync(signal);
  }

  /**
   * Waits for the cache, then starts every loop not yet running that may run ({@link runnableLoops}:
   * all of them when `leading`, the default).
   */
  async startLoops(signal?: AbortSignal, leading = true): Promise<void> {
    await this.startCache(signal);
    if (this.stopped) return;
    const started = runnableLoops(this.loops, leading).filter((l) => !this.running.has(l));
    for (const loop of started) {
      this.running.add(loop);
      loop.start();
    }
    if (started.length === 0) return;
    this.opts.logger.info({ loops: started.map((l) => l.name), informers: this.opts.cache.size }, "caches synced, loops started");
  }

  /** Stops the loops (each within `graceMs`), then the cache, then the servers and the clients. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops.map((l) => l.stop(graceMs)));
    await this.opts.cache.stop();
    for (const close of this.opts.closers ?? []) await close();
  }

  /** Logs a start that failed, unless `signal` (the stop, or the end of leadership) caused it. */
  private failed(signal: AbortSignal, msg: string): (err: unknown) => void {
    return (err) => {
      if (!signal.aborted) this.opts.logger.error({ error: errorMessage(err) }, msg);
    };
  }
}

/** Resolves once `signal` aborts, at once when it already has. */
function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
