/**
 * The process's lifecycle, in controller-runtime's shape: one {@link SharedCache} for every loop;
 * `start` starts the cache, waits until it has synced, then starts the loops (the ApplicationSet
 * controller, the sync engine); `stop` stops the loops (no new work, running reconciles aborted
 * through their signals and awaited for a grace period), then the cache, then closes the clients.
 * Loops can be started later than the cache (leader election starts them when this process leads).
 */
import type { Logger } from "../log/logger.js";
import type { SharedCache } from "./cache.js";

/** One reconcile loop the manager runs. */
export interface Loop {
  /** The loop's name in logs. */
  readonly name: string;
  /** Starts the loop's workers; the cache has synced. */
  start(): void;
  /** Stops taking work, aborts running reconciles and waits up to `graceMs` for them. */
  stop(graceMs: number): Promise<unknown>;
}

/** Options of {@link Manager}. */
export interface ManagerOptions {
  readonly cache: SharedCache;
  readonly logger: Logger;
  /** Closed last, after the loops and the cache (the clients' transports). */
  readonly closers?: ReadonlyArray<() => Promise<void>>;
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

  /** Adds a loop; it starts with {@link startLoops}. */
  add(loop: Loop): void {
    this.loops.push(loop);
  }

  /** Starts the cache and resolves once it has synced (rejects when `signal` aborts first). */
  async startCache(signal?: AbortSignal): Promise<void> {
    this.opts.cache.start();
    await this.opts.cache.waitForSync(signal);
  }

  /** Waits for the cache, then starts every loop not yet running. */
  async startLoops(signal?: AbortSignal): Promise<void> {
    await this.startCache(signal);
    if (this.stopped) return;
    for (const loop of this.loops) {
      if (this.running.has(loop)) continue;
      this.running.add(loop);
      loop.start();
    }
    this.opts.logger.info({ loops: this.loops.map((l) => l.name), informers: this.opts.cache.size }, "caches synced, loops started");
  }

  /** Stops the loops (each within `graceMs`), then the cache, then the clients. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops.map((l) => l.stop(graceMs)));
    await this.opts.cache.stop();
    for (const close of this.opts.closers ?? []) await close();
  }
}
