/**
 * The sync engine's loop: an informer on Applications feeds a de-duplicating queue; each key is
 * reconciled by {@link AppReconciler} (never two at once for one key), and requeued after the delay
 * the reconcile asks for, or with capped exponential backoff after an error.
 *
 * I/O boundary: the informer's list/watch, the reconciler's requests, timers on the injected Clock.
 */
import pLimit from "p-limit";
import { parseApplication, type Application } from "../api/index.js";
import type { Clock, TimerHandle } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { Informer, objectKey, resources, type ListWatchSource } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { AppReconciler, type ReconcilerDeps } from "./reconcile.js";

/**
 * True when an update touched nothing but `status` (our own writes): such updates do not requeue,
 * so the engine never feeds on its own status writes. Running operations are polled instead.
 */
export function statusOnlyChange(old: Application, cur: Application): boolean {
  const strip = (a: Application): string =>
    JSON.stringify({ spec: a.spec, operation: a.operation, annotations: a.metadata.annotations, deletion: a.metadata.deletionTimestamp, finalizers: a.metadata.finalizers });
  return strip(old) === strip(cur);
}

/** Options of {@link SyncEngine}. */
export interface SyncEngineOptions extends ReconcilerDeps {
  readonly watch: ListWatchSource;
  /** Watch Applications of one namespace only. */
  readonly namespace?: string;
  /** Reconciles running at once (default 10). */
  readonly concurrency?: number;
}

/** Runs the sync engine until stopped. */
export class SyncEngine {
  private readonly informer: Informer<Application>;
  private readonly reconciler: AppReconciler;
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly timers = new Map<string, TimerHandle>();
  private readonly dirty = new Set<string>();
  private readonly active = new Set<string>();
  private readonly failures = new Map<string, number>();
  private stopped = false;
  private readonly clock: Clock;
  private readonly log: Logger;

  constructor(options: SyncEngineOptions) {
    this.clock = options.clock;
    this.log = options.log;
    this.reconciler = new AppReconciler(options);
    this.limit = pLimit(options.concurrency ?? 10);
    this.informer = new Informer<Application>({
      source: options.watch,
      resource: resources.Applications,
      clock: options.clock,
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      parse: (raw) => {
        const parsed = parseApplication(raw);
        if (!parsed.ok) throw parsed.error;
        return parsed.value;
      },
    });
    this.informer.on({
      add: (app) => this.add(objectKey(app)),
      update: (old, app) => {
        if (!statusOnlyChange(old, app)) this.add(objectKey(app));
      },
      delete: (app) => this.add(objectKey(app)),
    });
  }

  /** Starts watching and reconciling. */
  start(): void {
    this.informer.start();
  }

  /** Stops watching; reconciles in flight finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) this.clock.clearTimeout(t);
    this.timers.clear();
    await this.informer.stop();
  }

  /** Queues a key now. */
  add(key: string): void {
    if (this.stopped) return;
    const timer = this.timers.get(key);
    if (timer !== undefined) {
      this.clock.clearTimeout(timer);
      this.timers.delete(key);
    }
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.active.add(key);
    void this.limit(() => this.process(key));
  }

  private addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) return this.add(key);
    const existing = this.timers.get(key);
    if (existing !== undefined) this.clock.clearTimeout(existing);
    this.timers.set(key, this.clock.setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms));
  }

  private async process(key: string): Promise<void> {
    const [namespace, name] = key.includes("/") ? key.split("/", 2) : ["", key];
    let next: number | undefined;
    try {
      const result = await this.reconciler.reconcile(namespace ?? "", name ?? "");
      this.failures.delete(key);
      next = result.requeueAfterMs;
    } catch (err) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      next = Math.min(60_000, 50 * 2 ** n);
      this.log.warn({ app: key, err: errorMessage(err) }, "reconcile failed");
    } finally {
      this.active.delete(key);
    }
    if (this.dirty.delete(key)) this.add(key);
    else if (next !== undefined) this.addAfter(key, next);
  }
}
