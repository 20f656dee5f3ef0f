/**
 * A level-triggered work queue with client-go's semantics (`workqueue.TypedRateLimitingInterface`).
 *
 * - **De-duplication.** A key is either absent, queued, processing, or processing and dirty. Adding a
 *   queued key does nothing; adding a key that is being processed marks it dirty, and {@link
 *   WorkQueue.done} puts it back in the queue. So a key is never handed out twice at once, and any
 *   add that happened after a key was handed out leads to one more hand-out.
 * - **Urgent keys.** {@link WorkQueue.add} with `urgent` puts a key in a second FIFO that is served
 *   first (a key already queued moves up), so work that moves a rollout forward does not wait
 *   behind a full re-compare after a restart. client-go has one FIFO; this is our addition.
 * - **Delays.** {@link WorkQueue.addAfter} holds a key until its time comes; when a key is already
 *   waiting, the earlier time wins. {@link WorkQueue.addRateLimited} asks the {@link RateLimiter} for
 *   the delay (client-go's default controller limiter unless another is given). {@link
 *   WorkQueue.addPaced} waits a fixed delay, or the limiter's overall (token bucket) wait if longer,
 *   without counting a failure of the key: the retry pace of a key that could not reach the
 *   apiserver. {@link WorkQueue.addNow} adds a key at once and drops its pending delayed add.
 * - **Shut down.** {@link WorkQueue.shutDown} abandons queued and waiting keys at once;
 *   {@link WorkQueue.shutDownWithDrain} stops accepting keys but hands out what is already queued
 *   (or dirty while processing) and resolves when nothing is queued or processing. Either way, waiting `get` calls resolve with
 *   `undefined`.
 *
 * Time comes only from the injected Clock.
 */
import type { Clock, TimerHandle } from "../clock/index.js";
import { defaultControllerRateLimiter, type RateLimiter } from "./ratelimit.js";

/** What the queue reports, shaped like client-go's `workqueue.MetricsProvider`. */
export interface QueueMetrics {
  /** A key entered the queue (an add that de-duplicated into an already queued key does not count). */
  add(): void;
  /** Keys currently queued or dirty (added but not yet handed out). */
  depth(n: number): void;
  /** A key was re-added through {@link WorkQueue.addRateLimited}. */
  retry(): void;
  /** Seconds between a key's add and its hand-out. */
  queueLatency(seconds: number): void;
  /** Seconds between a key's hand-out and its {@link WorkQueue.done}. */
  workDuration(seconds: number): void;
  /**
   * Work in progress ({@link WorkQueue.unfinishedWork}), reported every
   * {@link UNFINISHED_WORK_UPDATE_MS} while a key is processed, and once more when none is.
   */
  updateUnfinishedWork?(seconds: number, longestSeconds: number): void;
}

/** client-go's period of the unfinished-work updates (`unfinishedWorkUpdatePeriod`). */
export const UNFINISHED_WORK_UPDATE_MS = 500;

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions {
  clock: Clock;
  /** Delays of {@link WorkQueue.addRateLimited}; default {@link defaultControllerRateLimiter}. */
  rateLimiter?: RateLimiter;
  metrics?: QueueMetrics;
}

type State = "running" | "draining" | "stopped";

/** A FIFO of keys with O(1) amortised push and shift. */
class Fifo {
  private items: string[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(key: string): void {
    this.items.push(key);
  }

  shift(): string | undefined {
    if (this.head >= this.items.length) return undefined;
    const key = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return key;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

/** The controller's work queue of `namespace/name` keys. */
export class WorkQueue {
  private readonly clock: Clock;
  private readonly limiter: RateLimiter;
  private readonly metrics: QueueMetrics | undefined;
  private readonly queue = new Fifo();
  private readonly urgent = new Fifo();
  /** Keys in either FIFO that are still to be handed out (a key moved up stays behind in `queue`, skipped). */
  private readonly queued = new Set<string>();
  /** Keys that need processing: queued, or added again while processing. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly waiting = new Map<string, { at: number; handle: TimerHandle }>();
  private readonly addedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();
  private readonly getters: Array<(key: string | undefined) => void> = [];
  private drained: Array<() => void> = [];
  private state: State = "running";
  private unfinishedTimer: TimerHandle | undefined;

  constructor(options: WorkQueueOptions) {
    this.clock = options.clock;
    this.limiter = options.rateLimiter ?? defaultControllerRateLimiter(options.clock);
    this.metrics = options.metrics;
  }

  /**
   * Marks `key` as needing processing; `urgent` serves it before the keys added without (and moves
   * it up when it is already queued). Ignored once the queue is shutting down.
   */
  add(key: string, urgent = false): void {
    if (this.state !== "running") return;
    if (this.dirty.has(key)) {
      if (urgent && this.queued.has(key)) this.urgent.push(key);
      return;
    }
    this.dirty.add(key);
    this.addedAt.set(key, this.clock.now());
    this.metrics?.add();
    this.metrics?.depth(this.dirty.size);
    if (this.processing.has(key)) return;
    this.enqueue(key, urgent);
    this.handOut();
  }

  private enqueue(key: string, urgent: boolean): void {
    this.queued.add(key);
    (urgent ? this.urgent : this.queue).push(key);
  }

  /** The next queued key: the urgent ones first; entries of keys already handed out are skipped. */
  private next(): string | undefined {
    for (;;) {
      const key = this.urgent.shift() ?? this.queue.shift();
      if (key === undefined) return undefined;
      if (this.queued.delete(key)) return key;
    }
  }

  /**
   * Adds `key` after `ms` milliseconds (at once when `ms <= 0`). If `key` is already waiting, the
   * earlier of the two times wins.
   */
  addAfter(key: string, ms: number): void {
    if (this.state !== "running") return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.clock.now() + ms;
    const existing = this.waiting.get(key);
    if (existing !== undefined) {
      if (existing.at <= at) return;
      this.clock.clearTimeout(existing.handle);
    }
    const handle = this.clock.setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, ms);
    this.waiting.set(key, { at, handle });
  }

  /** Adds `key` after the rate limiter's delay for it, counting one more failure of `key`. */
  addRateLimited(key: string): void {
    if (this.state !== "running") return;
    this.metrics?.retry();
    this.addAfter(key, this.limiter.when(key));
  }

  /**
   * Adds `key` after `ms`, or after the rate limiter's overall wait ({@link RateLimiter.overallDelay})
   * if that is longer, without counting a failure of `key`: its per-key back-off stays where it was.
   */
  addPaced(key: string, ms: number): void {
    if (this.state !== "running") return;
    this.metrics?.retry();
    this.addAfter(key, Math.max(ms, this.limiter.overallDelay?.() ?? 0));
  }

  /**
   * Adds `key` at once and drops a delayed add of it that is still pending (it would only hand the
   * key out once more). The reconcile this add leads to asks again for any later delay it needs.
   */
  addNow(key: string): void {
    if (this.state !== "running") return;
    const waiting = this.waiting.get(key);
    if (waiting !== undefined) {
      this.clock.clearTimeout(waiting.handle);
      this.waiting.delete(key);
    }
    this.add(key);
  }

  /** Clears `key`'s failure history (its next {@link addRateLimited} starts at the base delay). */
  forget(key: string): void {
    this.limiter.forget(key);
  }

  /** Failures of `key` counted since it was last forgotten. */
  numRequeues(key: string): number {
    return this.limiter.numRequeues(key);
  }

  /**
   * The next key to process, waiting until there is one; `undefined` once the queue has shut down
   * (or, when draining, once nothing is left). The caller must call {@link done} with the key.
   */
  get(): Promise<string | undefined> {
    const key = this.tryGet();
    if (key !== undefined || this.state === "stopped" || (this.state === "draining" && this.dirty.size === 0)) {
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** The next key to process without waiting, or `undefined` when none is queued. */
  tryGet(): string | undefined {
    const key = this.take();
    this.settleShutdown();
    return key;
  }

  /** Moves the head of the queue to processing. */
  private take(): string | undefined {
    if (this.state === "stopped") return undefined;
    const key = this.next();
    if (key === undefined) return undefined;
    const now = this.clock.now();
    this.dirty.delete(key);
    this.processing.add(key);
    this.startedAt.set(key, now);
    this.metrics?.depth(this.dirty.size);
    this.metrics?.queueLatency((now - (this.addedAt.get(key) ?? now)) / 1000);
    this.addedAt.delete(key);
    this.reportUnfinishedWork();
    return key;
  }

  /**
   * Reports the work in progress, and keeps reporting it every {@link UNFINISHED_WORK_UPDATE_MS}
   * through the clock while a key is processed (client-go's `updateUnfinishedWorkLoop`, with no
   * timer left behind once nothing is).
   */
  private reportUnfinishedWork(): void {
    if (this.metrics?.updateUnfinishedWork === undefined) return;
    const work = this.unfinishedWork();
    this.metrics.updateUnfinishedWork(work.seconds, work.longestSeconds);
    if (this.processing.size > 0) {
      this.unfinishedTimer ??= this.clock.setTimeout(() => {
        this.unfinishedTimer = undefined;
        this.reportUnfinishedWork();
      }, UNFINISHED_WORK_UPDATE_MS);
    } else if (this.unfinishedTimer !== undefined) {
      this.clock.clearTimeout(this.unfinishedTimer);
      this.unfinishedTimer = undefined;
    }
  }

  /** Ends the processing of `key`; if it was added meanwhile, it goes back in the queue. */
  done(key: string): void {
    if (!this.processing.delete(key)) return;
    const started = this.startedAt.get(key);
    this.startedAt.delete(key);
    if (started !== undefined) this.metrics?.workDuration((this.clock.now() - started) / 1000);
    this.reportUnfinishedWork();
    if (this.dirty.has(key) && this.state !== "stopped") {
      this.enqueue(key, false);
      this.handOut();
    }
    this.settleShutdown();
  }

  /** Keys queued and ready to hand out. */
  len(): number {
    return this.queued.size;
  }

  /** Keys being processed. */
  processingCount(): number {
    return this.processing.size;
  }

  /**
   * Work in progress (client-go's unfinished-work metrics): the seconds all keys being processed have
   * spent so far, and the longest any one of them has.
   */
  unfinishedWork(): { seconds: number; longestSeconds: number } {
    const now = this.clock.now();
    let seconds = 0;
    let longestSeconds = 0;
    for (const started of this.startedAt.values()) {
      const s = (now - started) / 1000;
      seconds += s;
      longestSeconds = Math.max(longestSeconds, s);
    }
    return { seconds, longestSeconds };
  }

  /** Keys waiting for their {@link addAfter} time. */
  waitingCount(): number {
    return this.waiting.size;
  }

  /** True once {@link shutDown} or {@link shutDownWithDrain} was called. */
  get shuttingDown(): boolean {
    return this.state !== "running";
  }

  /** Stops at once: drops queued and waiting keys; waiting and later `get` calls return `undefined`. */
  shutDown(): void {
    this.state = "stopped";
    this.queue.clear();
    this.urgent.clear();
    this.queued.clear();
    this.dirty.clear();
    this.addedAt.clear();
    this.clearWaiting();
    this.metrics?.depth(0);
    this.settleShutdown();
  }

  /**
   * Stops accepting keys (and drops the ones waiting for a delay) but still hands out what is
   * queued; resolves once nothing is queued or processing.
   */
  shutDownWithDrain(): Promise<void> {
    if (this.state === "running") this.state = "draining";
    this.clearWaiting();
    const done = new Promise<void>((resolve) => this.drained.push(resolve));
    this.settleShutdown();
    return done;
  }

  private clearWaiting(): void {
    for (const { handle } of this.waiting.values()) this.clock.clearTimeout(handle);
    this.waiting.clear();
  }

  /** Gives queued keys to waiting `get` calls. */
  private handOut(): void {
    while (this.getters.length > 0 && this.queued.size > 0) {
      const key = this.take();
      this.getters.shift()?.(key);
    }
    this.settleShutdown();
  }

  /**
   * Releases `get` calls and drain waiters once shutting down has nothing left to do. While draining,
   * a key added during its processing still counts as work: it is handed out after its `done`.
   */
  private settleShutdown(): void {
    if (this.state === "running" || this.dirty.size > 0) return;
    for (const resolve of this.getters.splice(0)) resolve(undefined);
    if (this.processing.size === 0) for (const resolve of this.drained.splice(0)) resolve();
  }
}
