/**
 * An informer: a local cache of one resource kept current by list+watch, with add/update/delete
 * handlers, built to survive what client-node's `ListWatch` does not:
 *
 * - any failure (network, 5xx, a dead connection, an `ERROR` event) restarts the loop after a capped,
 *   jittered exponential backoff ({@link backoffDelay}) on the injected Clock, never in a tight loop;
 * - HTTP 410 / an `ERROR` event with code 410 (expired resourceVersion or continue token) relists;
 * - a watch that is silently dead (no event and no bookmark for `idleTimeoutMs`; bookmarks are
 *   requested and arrive about once a minute) is aborted and reopened from the last resourceVersion
 *   (on a new connection: the transport gives every watch a connection of its own);
 * - a server-side close (`timeoutSeconds`) reopens the watch from the last resourceVersion at once;
 * - a relist is diffed against the cache ({@link diffRelist}): unchanged objects deliver nothing, so
 *   a relist never repeats an "added";
 * - objects are parsed once, at ingress, by the optional `parse`; a failure is logged and reported
 *   to `onInvalid`, and the last valid version (if any) stays in the cache;
 * - lists are paginated (`limit`/`continue`);
 * - with `resyncPeriodMs`, the cache is forcefully resynced with the apiserver that often: the open
 *   watch is ended and a full relist is diffed against the cache (controller-runtime's `SyncPeriod`,
 *   Argo CD's `--cache-sync-period`), so an event the watch never delivered is still seen;
 * - read-your-writes ({@link Informer.written}, {@link Informer.evict}): a writer stores what the
 *   apiserver answered at once, and the cache never goes back to an older version for it (an older
 *   event, or a list taken before the write, changes nothing: {@link IndexedStore.accepts}).
 *
 * Decision: this runs its own list+watch loop over `ListWatchSource` (our adapter's raw watch
 * stream) rather than wrapping client-node's `ListWatch` or `Watch`. `ListWatch` stops for good on
 * any error other than 410/timeout and re-adds on relist; `Watch` drops unparsable lines silently,
 * cannot be aborted while connecting, and runs its own 30 s real-time inactivity timer. Owning the
 * loop keeps one state machine with every timer on the Clock and every request on one AbortSignal,
 * so {@link Informer.stop} leaves nothing behind.
 */
import { BackoffWait, backoffDelay, defaultBackoff } from "./backoff.js";
import { diffRelist } from "./diff.js";
import { fromStatus, isGone, toKubeApiError, type KubeApiError } from "./errors.js";
import type { InformerHandlers, InformerLog, InformerOptions, InformerStats } from "./informer-types.js";
import { objectKey, type KubeObject, type WatchEvent } from "./ports.js";
import { IndexedStore, type IndexFunc } from "./store.js";
import { guardWatch } from "./watch-guard.js";

export type { InformerHandlers, InformerLog, InformerOptions, InformerStats } from "./informer-types.js";

const silentLog: InformerLog = { debug: () => undefined, info: () => undefined, warn: () => undefined };

/** A watch that ends normally sooner than this without any event counts as a failure. */
const minHealthyWatchMs = 1_000;

type WatchOutcome = "closed" | "idle" | "resync";

/** List+watch cache of one resource. Create, register handlers and indexes, then {@link start}. */
export class Informer<T> {
  private readonly store = new IndexedStore<T>();
  private readonly handlers = new Set<InformerHandlers<T>>();
  private readonly stopController = new AbortController();
  private readonly log: InformerLog;
  private readonly counters: InformerStats = {
    lists: 0,
    watches: 0,
    events: 0,
    gone: 0,
    failures: 0,
    idleRestarts: 0,
    invalid: 0,
    resyncs: 0,
  };
  private synced = false;
  private syncWaiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  private running: Promise<void> | undefined;
  private resourceVersion = "";
  /** When the last complete list finished (Clock ms). */
  private listedAt = 0;
  /** The back-off wait between failed lists and watches, which {@link retryNow} ends early. */
  private readonly backoffWait: BackoffWait;

  constructor(private readonly options: InformerOptions<T>) {
    this.log = options.log ?? silentLog;
    this.backoffWait = new BackoffWait(options.clock);
  }

  /** Starts listing and watching. Calling it again does nothing; after {@link stop} it throws. */
  start(): void {
    if (this.stopController.signal.aborted) throw new Error("informer was stopped");
    this.running ??= this.run();
  }

  /** Stops the loop, aborts any open request and cancels every timer; resolves when all is quiet. */
  async stop(): Promise<void> {
    this.stopController.abort(new Error("informer stopped"));
    for (const w of this.syncWaiters) w.reject(new Error("informer stopped before it synced"));
    this.syncWaiters = [];
    await this.running;
  }

  /** True once the first complete list has been loaded into the cache. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once synced; rejects if the informer stops or `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    if (this.stopController.signal.aborted) return Promise.reject(new Error("informer stopped before it synced"));
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const waiter = { resolve, reject };
      this.syncWaiters.push(waiter);
      signal?.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
    });
  }

  /**
   * Registers handlers; objects already cached are delivered to `add` at once. Returns a function
   * that unregisters them.
   */
  on(handlers: InformerHandlers<T>): () => void {
    this.handlers.add(handlers);
    for (const obj of this.store.list()) this.call("add", () => handlers.add?.(obj));
    return () => this.handlers.delete(handlers);
  }

  /** The cached object, or undefined. `namespace` is ignored for cluster-scoped resources. */
  get(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(this.keyOf(namespace, name))?.obj;
  }

  private keyOf(namespace: string | undefined, name: string): string {
    return this.options.resource.namespaced && namespace ? `${namespace}/${name}` : name;
  }

  /** Every cached object, or those of one namespace. */
  list(namespace?: string): T[] {
    if (namespace === undefined) return this.store.list();
    const prefix = `${namespace}/`;
    return [...this.store.entries()].filter(([k]) => k.startsWith(prefix)).map(([, e]) => e.obj);
  }

  /** Adds a secondary index (e.g. by owner uid). */
  addIndex(name: string, fn: IndexFunc<T>): void {
    this.store.addIndex(name, fn);
  }

  /** The cached objects whose index `name` includes `value`. */
  byIndex(name: string, value: string): T[] {
    return this.store.byIndex(name, value);
  }

  /**
   * Stores the object the apiserver returned for a write (docs/controller.md#read-your-writes),
   * with the handlers told as for a watch event; the watch event for it then changes nothing. Does
   * not move {@link lastSyncResourceVersion}.
   */
  written(raw: KubeObject): void {
    if (!this.stopped) this.upsert(raw);
  }

  /** Drops an object a write found gone; its older versions stay refused until a newer one or a relist. */
  evict(namespace: string | undefined, name: string): void {
    if (!this.stopped) this.remove(this.keyOf(namespace, name), "", true);
  }

  /** The resourceVersion the cache is current to ("" before the first list). */
  get lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  /** A copy of the counters. */
  stats(): InformerStats {
    return { ...this.counters };
  }

  private get stopped(): boolean {
    return this.stopController.signal.aborted;
  }

  private async run(): Promise<void> {
    let failures = 0;
    let needList = true;
    let lastWasGone = false;
    let started: number | undefined;
    let eventsBefore = 0;
    while (!this.stopped) {
      started = undefined;
      try {
        if (needList) {
          await this.relist();
          // The apiserver answered a whole list: what failed before is over.
          failures = 0;
        }
        needList = false;
        if (this.stopped) break;
        started = this.options.clock.now();
        eventsBefore = this.counters.events;
        const outcome = await this.watchOnce();
        if (outcome === "resync") {
          this.counters.resyncs++;
          needList = true;
          continue;
        }
        if (outcome === "idle" || this.healthySince(started, eventsBefore)) {
          failures = 0;
          lastWasGone = false;
          continue;
        }
        this.log.debug({ resource: this.options.resource.plural }, "watch closed without progress");
      } catch (err) {
        if (this.stopped) break;
        // A watch that was healthy before it failed (an apiserver restart) starts the backoff afresh.
        if (this.healthySince(started, eventsBefore)) failures = 0;
        if (this.noteFailure(err)) {
          needList = true;
          if (!lastWasGone) {
            lastWasGone = true;
            continue;
          }
        }
      }
      await this.backoff(failures++);
    }
  }

  /** Counts and logs a failed list or watch; true when it says the resourceVersion expired (410). */
  private noteFailure(err: unknown): boolean {
    const e = toKubeApiError(err);
    if (isGone(e)) {
      this.counters.gone++;
      this.log.info({ resource: this.options.resource.plural, message: e.message }, "resourceVersion expired, relisting");
      return true;
    }
    this.log.warn({ resource: this.options.resource.plural, reason: e.reason, message: e.message }, "list/watch failed");
    return false;
  }

  /** Whether the watch opened at `started` (undefined: none was) delivered events or stayed open long enough. */
  private healthySince(started: number | undefined, eventsBefore: number): boolean {
    if (started === undefined) return false;
    return this.counters.events > eventsBefore || this.options.clock.now() - started >= minHealthyWatchMs;
  }

  private async backoff(attempt: number): Promise<void> {
    if (this.stopped) return;
    this.counters.failures++;
    const delay = backoffDelay(this.options.backoff ?? defaultBackoff, attempt, this.options.random);
    await this.backoffWait.sleep(delay, this.stopController.signal);
  }

  /**
   * Ends the back-off wait after a failed list or watch at once, so the next one starts now: what
   * is told that the apiserver answers again calls it (docs/controller.md#when-the-apiserver-cannot-be-reached).
   * Nothing happens when the informer is not waiting.
   */
  retryNow(): void {
    this.backoffWait.wakeNow();
  }

  /** Lists every page, then brings the cache in line with the result. */
  private async relist(): Promise<void> {
    const { source, resource, namespace, labelSelector, fieldSelector } = this.options;
    const items: KubeObject[] = [];
    let resourceVersion = "";
    let token: string | undefined;
    do {
      const page = await source.list(resource, {
        namespace,
        labelSelector,
        fieldSelector,
        limit: this.options.pageSize ?? 500,
        continue: token,
        signal: this.stopController.signal,
      });
      if (token === undefined) resourceVersion = page.resourceVersion;
      items.push(...page.items);
      token = page.continue;
    } while (token !== undefined && !this.stopped);
    if (this.stopped) return;
    this.counters.lists++;
    this.listedAt = this.options.clock.now();
    this.applyList(items, resourceVersion);
    this.resourceVersion = resourceVersion;
    this.markSynced();
  }

  /** A relist at `listVersion`: an object written after the list began is neither deleted nor rolled back. */
  private applyList(items: KubeObject[], listVersion: string): void {
    const listed = items.map((raw) => ({ key: objectKey(raw), resourceVersion: rvOf(raw), uid: raw.metadata?.uid, raw }));
    for (const op of diffRelist(new Map(this.store.entries()), listed)) {
      if (op.type === "delete") this.remove(op.key, listVersion);
      else this.upsert(op.item.raw);
    }
    this.store.forgetTombstones(listVersion);
  }

  private markSynced(): void {
    if (this.synced) return;
    this.synced = true;
    for (const w of this.syncWaiters) w.resolve();
    this.syncWaiters = [];
  }

  /** Runs one watch from the current resourceVersion until it closes, goes idle, or fails. */
  private async watchOnce(): Promise<WatchOutcome> {
    const { source, resource, namespace, labelSelector, fieldSelector, clock } = this.options;
    const guard = guardWatch({
      clock,
      stop: this.stopController.signal,
      idleMs: this.options.idleTimeoutMs ?? 180_000,
      ...this.resyncDue(),
    });
    this.counters.watches++;
    try {
      const timeoutSeconds = this.options.watchTimeoutSeconds ?? Math.round(300 * (1 + (this.options.random ?? Math.random)()));
      await source.watch(
        resource,
        {
          namespace,
          labelSelector,
          fieldSelector,
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
          signal: guard.signal,
        },
        (event) => {
          guard.seen();
          this.onEvent(event);
        },
      );
      return "closed";
    } catch (err) {
      const why = guard.reason();
      if (why?.kind === "resync") return "resync";
      if (why?.kind === "idle") {
        this.counters.idleRestarts++;
        this.log.warn({ resource: resource.plural, message: why.message }, "watch went silent, restarting it");
        return "idle";
      }
      throw err;
    } finally {
      guard.dispose();
    }
  }

  /** When the next periodic relist is due (ms from now); nothing without a period. */
  private resyncDue(): { resyncDueMs?: number } {
    const period = this.options.resyncPeriodMs ?? 0;
    if (period <= 0) return {};
    return { resyncDueMs: Math.max(0, this.listedAt + period - this.options.clock.now()) };
  }

  /** Applies one watch event. Throws (ending the watch) on an ERROR event. */
  private onEvent(event: WatchEvent): void {
    if (this.stopped) return;
    this.counters.events++;
    switch (event.type) {
      case "ERROR":
        throw errorEvent(event.object);
      case "BOOKMARK":
        break;
      case "DELETED":
        this.remove(objectKey(event.object), rvOf(event.object));
        break;
      default:
        this.upsert(event.object);
    }
    const rv = rvOf(event.object);
    if (rv !== "") this.resourceVersion = rv;
  }

  /** Adds or updates one object: nothing when the cache already holds this version. */
  private upsert(raw: KubeObject): void {
    const key = objectKey(raw);
    const rv = rvOf(raw);
    const uid = raw.metadata?.uid;
    const old = this.store.get(key);
    if (!this.newer(key, rv, uid)) return;
    const obj = this.parse(raw);
    if (obj === undefined) return;
    let prev = old;
    if (prev !== undefined && prev.uid !== undefined && uid !== undefined && prev.uid !== uid) {
      this.remove(key);
      prev = undefined;
    }
    this.store.set(key, { obj, resourceVersion: rv, uid });
    for (const h of this.handlers) {
      if (prev === undefined) this.call("add", () => h.add?.(obj));
      else this.call("update", () => h.update?.(prev.obj, obj));
    }
  }

  /** Whether version `rv` (of object `uid`) would change what the cache holds under `key`. */
  private newer(key: string, rv: string, uid: string | undefined): boolean {
    const old = this.store.get(key);
    if (old !== undefined && old.resourceVersion === rv && old.uid === uid) return false;
    return this.store.accepts(key, rv);
  }

  /** Removes `key`, unless what is held is newer than `rv` ("" never is); `tombstone` as in {@link IndexedStore.delete}. */
  private remove(key: string, rv = "", tombstone = false): void {
    if (!this.store.accepts(key, rv)) return;
    const old = this.store.delete(key, tombstone);
    if (old === undefined) return;
    for (const h of this.handlers) this.call("delete", () => h.delete?.(old.obj));
  }

  private parse(raw: KubeObject): T | undefined {
    if (this.options.parse === undefined) return raw as T;
    try {
      return this.options.parse(raw);
    } catch (err) {
      this.counters.invalid++;
      this.log.warn({ resource: this.options.resource.plural, key: objectKey(raw), error: String(err) }, "object failed to parse; ignored");
      this.call("onInvalid", () => this.options.onInvalid?.(raw, err));
      return undefined;
    }
  }

  private call(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.warn({ resource: this.options.resource.plural, handler: what, error: String(err) }, "informer handler threw");
    }
  }
}

function rvOf(obj: KubeObject): string {
  return obj.metadata?.resourceVersion ?? "";
}

/** The error an `ERROR` watch event stands for (its object is a metav1.Status). */
function errorEvent(status: KubeObject): KubeApiError {
  const code = typeof status.code === "number" ? status.code : 0;
  return fromStatus(code, status);
}
