/**
 * The sync engine's loop: an informer on Applications feeds a de-duplicating queue; each key is
 * reconciled by {@link AppReconciler} (never two at once for one key), and requeued after the delay
 * the reconcile asks for, or with capped exponential backoff after an error. Changes to managed
 * resources (watched per cluster and kind, see {@link ResourceWatches}) requeue the Applications
 * that track them; a running operation is then re-checked on those events, with a slow poll as the
 * backstop.
 *
 * I/O boundary: the informers' list/watch, the reconciler's requests, timers on the injected Clock.
 */
import pLimit from "p-limit";
import { parseApplication, type Application } from "../api/index.js";
import type { Clock, TimerHandle } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { Informer, objectKey, resources, type ListWatchSource } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { AppReconciler, type ReconcilerDeps } from "./reconcile.js";
import { ResourceWatches } from "./watches.js";

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
  /**
   * Watch managed resources and requeue their Applications on change (default true). With watches
   * a running operation is polled every `operationPollMs` (default then 10 s) only as a backstop.
   */
  readonly watchResources?: boolean;
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
  /** Keys whose resource events wait until this time (the wave delay). */
  private readonly holds = new Map<string, number>();
  private stopped = false;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly watches: ResourceWatches | undefined;
  /** Tracking name → Application keys. */
  private readonly byTrackingName = new Map<string, Set<string>>();
  private readonly trackingName: (app: Application) => string;

  constructor(options: SyncEngineOptions) {
    this.clock = options.clock;
    this.log = options.log;
    this.trackingName = (app) => options.trackingName?.(app) ?? app.metadata.name ?? "";
    const watch = options.watchResources !== false;
    this.watches = watch ? new ResourceWatches({ clock: options.clock, onChange: (name) => this.changed(name) }) : undefined;
    this.reconciler = new AppReconciler({
      ...options,
      ...(watch ? { operationPollMs: options.operationPollMs ?? 10_000 } : {}),
      onManaged: (access, descriptors) => {
        this.watches?.ensure(access, descriptors);
        options.onManaged?.(access, descriptors);
      },
    });
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
      add: (app) => {
        this.index(app, true);
        this.add(objectKey(app));
      },
      update: (old, app) => {
        this.index(old, false);
        this.index(app, true);
        if (!statusOnlyChange(old, app)) this.add(objectKey(app));
      },
      delete: (app) => {
        this.index(app, false);
        this.add(objectKey(app));
      },
    });
  }

  private index(app: Application, present: boolean): void {
    const name = this.trackingName(app);
    const keys = this.byTrackingName.get(name) ?? new Set<string>();
    if (present) keys.add(objectKey(app));
    else keys.delete(objectKey(app));
    if (keys.size > 0) this.byTrackingName.set(name, keys);
    else this.byTrackingName.delete(name);
  }

  /** A managed object of `trackingName` changed: requeue its Applications. */
  private changed(trackingName: string): void {
    const now = this.clock.now();
    for (const key of this.byTrackingName.get(trackingName) ?? []) {
      if ((this.holds.get(key) ?? 0) <= now) this.add(key);
    }
  }

  /** The Applications the engine sees now (its informer cache). */
  applications(): Application[] {
    return this.informer.list();
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
    await Promise.all([this.informer.stop(), this.watches?.stop()]);
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
      if (result.holdMs !== undefined && result.holdMs > 0) this.holds.set(key, this.clock.now() + result.holdMs);
      else this.holds.delete(key);
    } catch (err) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      next = Math.min(60_000, 50 * 2 ** n);
      this.log.warn({ app: key, err: errorMessage(err) }, "reconcile failed");
    } finally {
      this.active.delete(key);
    }
    const held = Math.max(0, (this.holds.get(key) ?? 0) - this.clock.now());
    // A change seen while reconciling is looked at again at once, unless a wave delay holds the key.
    if (this.dirty.delete(key)) this.addAfter(key, held);
    else if (next !== undefined) this.addAfter(key, next);
  }
}
