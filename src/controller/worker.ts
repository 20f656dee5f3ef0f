/**
 * The worker pool: N loops (`--concurrent-reconciliations`) take keys from the {@link WorkQueue},
 * run the {@link Reconciler} on each, and turn every outcome into exactly one queue operation and
 * one metric label in {@link settle} (controller-runtime's `reconcileHandler`):
 *
 * | outcome | queue operation | `result` label |
 * | --- | --- | --- |
 * | thrown error | `addRateLimited` (exponential backoff) | `error` |
 * | thrown {@link TerminalError} | `forget` (no retry; logged) | `error` (and the terminal counter) |
 * | `requeueAfterMs > 0` | `forget`, then `addAfter` | `requeue_after` |
 * | success | `forget` | `success` |
 *
 * Each reconcile gets a fresh `reconcileId`, a child logger bound to it and to the key, and an
 * AbortSignal that fires when the pool is stopped and its grace period runs out. The queue is the
 * only source of keys, so a key is never reconciled twice at once.
 */
import { randomUUID } from "node:crypto";
import type { Clock } from "../clock/index.js";
import { errorMessage, isTerminal } from "../errors.js";
import type { Logger } from "../log/logger.js";
import type { WorkQueue } from "./workqueue.js";

/** What a successful reconcile asks for: nothing, or to be looked at again after a delay. */
export interface ReconcileResult {
  /** Reconcile the same key again after this many milliseconds (ignored unless > 0). */
  requeueAfterMs?: number;
}

/** Everything one reconcile receives besides its key. */
export interface ReconcileContext {
  /** Unique per reconcile; every log line of the pass carries it. */
  readonly reconcileId: string;
  /** A child of the pool's logger bound to `reconcileId` and `appset` (the key). */
  readonly logger: Logger;
  /** Aborted when the pool stops and the stop grace period has run out: stop promptly. */
  readonly signal: AbortSignal;
}

/**
 * The level-triggered reconcile contract (controller-runtime `reconcile.Reconciler`). `key` is only
 * `namespace/name`: the reconciler reads the current state itself and carries no event.
 * Returning means success (with an optional requeue). Throwing means retry with exponential
 * backoff, unless the error is or wraps a {@link TerminalError}, which is logged and not retried.
 */
export interface Reconciler {
  reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileResult>;
}

/** controller-runtime's `result` label values of `controller_runtime_reconcile_total`. */
export const RECONCILE_RESULTS = ["success", "error", "requeue", "requeue_after"] as const;
/** One `result` label value. */
export type ReconcileResultLabel = (typeof RECONCILE_RESULTS)[number];

/** What the pool reports (implemented by src/metrics). */
export interface WorkerMetrics {
  /** One reconcile finished with `result`; `terminal` marks a TerminalError. */
  reconciled(event: { result: ReconcileResultLabel; terminal: boolean; seconds: number }): void;
  /** Workers currently running a reconcile. */
  activeWorkers(n: number): void;
}

/** Options of {@link WorkerPool}. */
export interface WorkerPoolOptions {
  queue: WorkQueue;
  reconciler: Reconciler;
  /** Number of concurrent reconciles (≥ 1). */
  concurrency: number;
  clock: Clock;
  logger: Logger;
  metrics?: WorkerMetrics;
  /** Source of reconcile ids (default: random UUIDs). */
  newReconcileId?: () => string;
}

/** How {@link WorkerPool.stop} ended. */
export interface StopReport {
  /** Reconciles still running when the grace period ran out, whose signals were aborted. */
  aborted: number;
}

/** How a reconcile ended, before it is mapped to a queue operation. */
type Outcome =
  | { kind: "success" }
  | { kind: "requeueAfter"; ms: number }
  | { kind: "error"; error: unknown }
  | { kind: "terminal"; error: unknown };

/** Classifies a settled reconcile. */
function outcomeOf(settled: PromiseSettledResult<ReconcileResult>): Outcome {
  if (settled.status === "rejected") {
    return isTerminal(settled.reason) ? { kind: "terminal", error: settled.reason } : { kind: "error", error: settled.reason };
  }
  const ms = settled.value?.requeueAfterMs;
  return typeof ms === "number" && ms > 0 ? { kind: "requeueAfter", ms } : { kind: "success" };
}

/** Runs reconciles for the keys of one queue on N concurrent loops. */
export class WorkerPool {
  private readonly inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private loops: Promise<void>[] = [];
  private stopping = false;
  private readonly newId: () => string;

  constructor(private readonly options: WorkerPoolOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError(`concurrency must be an integer ≥ 1, got ${options.concurrency}`);
    }
    this.newId = options.newReconcileId ?? randomUUID;
  }

  /** Starts the loops; they run until {@link stop}. Calling it twice does nothing. */
  start(): void {
    if (this.loops.length > 0 || this.stopping) return;
    this.options.metrics?.activeWorkers(0);
    this.loops = Array.from({ length: this.options.concurrency }, () => this.loop());
  }

  /** Reconciles running now. */
  get active(): number {
    return this.inFlight.size;
  }

  /**
   * Stops taking work (shuts the queue down, abandoning queued keys: the queue is level-triggered,
   * so the next start re-lists everything), waits up to `graceMs` for running reconciles, then aborts
   * the signals of those still running and returns without waiting further for them.
   */
  async stop(graceMs: number): Promise<StopReport> {
    this.stopping = true;
    this.options.queue.shutDown();
    const running = [...this.inFlight.values()];
    if (running.length === 0) return { aborted: 0 };
    const timer = new AbortController();
    const allDone = Promise.all(running.map((r) => r.done)).then(() => true);
    const finished = await Promise.race([allDone, this.options.clock.sleep(graceMs, timer.signal).then(() => false)]);
    timer.abort(new Error("stopped"));
    if (finished) return { aborted: 0 };
    const stuck = [...this.inFlight.values()];
    for (const r of stuck) r.controller.abort(new Error("the controller is stopping"));
    this.options.logger.warn({ aborted: stuck.length, graceMs }, "aborted reconciles still running after the stop grace period");
    return { aborted: stuck.length };
  }

  /** Resolves when every loop has exited (after {@link stop} and their last reconcile). */
  async stopped(): Promise<void> {
    await Promise.all(this.loops);
  }

  private async loop(): Promise<void> {
    for (;;) {
      const key = await this.options.queue.get();
      if (key === undefined) return;
      try {
        await this.process(key);
      } finally {
        this.options.queue.done(key);
      }
    }
  }

  /** Runs one reconcile of `key` and settles its outcome. */
  private async process(key: string): Promise<void> {
    const { clock, reconciler, metrics } = this.options;
    const reconcileId = this.newId();
    const logger = this.options.logger.child({ reconcileId, appset: key });
    const controller = new AbortController();
    let finish = (): void => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    this.inFlight.set(key, { controller, done });
    metrics?.activeWorkers(this.inFlight.size);
    const started = clock.now();
    try {
      const ctx: ReconcileContext = { reconcileId, logger, signal: controller.signal };
      const [settled] = await Promise.allSettled([Promise.resolve().then(() => reconciler.reconcile(key, ctx))]);
      const outcome = outcomeOf(settled);
      const { result, terminal } = this.settle(key, outcome, logger, controller.signal);
      metrics?.reconciled({ result, terminal, seconds: (clock.now() - started) / 1000 });
    } finally {
      this.inFlight.delete(key);
      metrics?.activeWorkers(this.inFlight.size);
      finish();
    }
  }

  /** The one switch: each outcome → one queue operation and one `result` label. */
  private settle(key: string, outcome: Outcome, logger: Logger, signal: AbortSignal): { result: ReconcileResultLabel; terminal: boolean } {
    const { queue } = this.options;
    switch (outcome.kind) {
      case "error":
        queue.addRateLimited(key);
        if (signal.aborted) logger.info({ err: errorMessage(outcome.error) }, "reconcile aborted by shutdown");
        else logger.error({ err: errorMessage(outcome.error), requeues: queue.numRequeues(key) }, "Reconciler error");
        return { result: "error", terminal: false };
      case "terminal":
        queue.forget(key);
        logger.error({ err: errorMessage(outcome.error) }, "Reconciler error (terminal, not retried)");
        return { result: "error", terminal: true };
      case "requeueAfter":
        queue.forget(key);
        queue.addAfter(key, outcome.ms);
        return { result: "requeue_after", terminal: false };
      case "success":
        queue.forget(key);
        return { result: "success", terminal: false };
    }
  }
}
