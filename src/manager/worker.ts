/**
 * The worker pool: N loops (`--concurrent-reconciliations`) take keys from the {@link WorkQueue},
 * run the {@link Reconciler} on each, and turn every outcome into exactly one queue operation and
 * one metric label in {@link settle} (controller-runtime's `reconcileHandler`):
 *
 * | outcome | queue operation | `result` label |
 * | --- | --- | --- |
 * | thrown error | `addRateLimited` (exponential backoff) | `error` |
 * | thrown error, a server unreachable | `addPaced` ({@link OUTAGE_RETRY_MS}; `pacedOutageRetry` false: `addRateLimited`) | `error` |
 * | thrown {@link TerminalError} | `forget` (no retry; logged) | `error` (and the terminal counter) |
 * | `requeueAfterMs > 0` | `forget`, then `addAfter` | `requeue_after` |
 * | `requeue` (again at once) | `forget`, then `add` | `requeue` |
 * | success | `forget` | `success` |
 *
 * Each reconcile gets a fresh `reconcileId`, a child logger bound to it and to the key, and an
 * AbortSignal that fires when the pool stops or the reconcile's deadline passes
 * (`--reconcile-timeout-seconds`): everything a reconcile waits for (Git, HTTP, the apiserver)
 * takes that signal, so a stalled call ends at the deadline as an error, retried with backoff, and
 * the worker is free again. The queue is the only source of keys, so a key is never reconciled
 * twice at once.
 *
 * Outages. An error the `unreachableServer` option classifies as a failure to reach a server (the
 * apiserver, or for the sync engine a destination cluster: no connection, reset, timeout, 5xx, 429)
 * says nothing about the key, so it does not grow the key's exponential back-off: the key is
 * re-added after {@link OUTAGE_RETRY_MS} (1 s), or the rate limiter's overall token-bucket wait if
 * that is longer, and its failure count stays where it was (a later ordinary error backs off from
 * there). Where `pacedOutageRetry` says no for that server (the sync engine's remote clusters, where
 * a steady retry of every Application would keep the workers on a cluster that does not answer),
 * the key backs off exponentially instead. Either way the key is remembered as waiting for that
 * server, and when the server answers again every key waiting for it is handed to the queue at once
 * (`addNow`, paced by the worker concurrency) with its back-off reset. The signal is either one of
 * them reconciling without such an error, or a call to {@link WorkerPool.serverReachable} by
 * whatever else saw the server answer (a watch or list that succeeds again, any request). Every
 * other error keeps controller-runtime's exponential back-off.
 *
 * Both loops of the process (the ApplicationSet controller and the sync engine) run
 * on this pool, each with its own queue and metrics.
 */
import { randomUUID } from "node:crypto";
import type { Clock } from "../clock/index.js";
import { AppSetError, errorMessage, isTerminal } from "../errors.js";
import type { Logger } from "../log/logger.js";
import { LogLimiter } from "./log-limiter.js";
import type { WorkQueue } from "./workqueue.js";

/** What a successful reconcile asks for: nothing, or to be looked at again at once or after a delay. */
export interface ReconcileResult {
  /** Reconcile the same key again after this many milliseconds (ignored unless > 0). */
  readonly requeueAfterMs?: number;
  /** Reconcile the same key again at once, with no backoff (the next step of a sync); `requeueAfterMs` wins. */
  readonly requeue?: boolean;
}

/**
 * The delay before a key whose reconcile could not reach the apiserver is tried again (unless the
 * rate limiter's token bucket asks for longer); its exponential back-off is not grown.
 */
export const OUTAGE_RETRY_MS = 1_000;

/** Reason of a reconcile that ran past its deadline. */
export const DEADLINE_EXCEEDED_REASON = "DeadlineExceeded";

/** The abort reason of a reconcile's signal at its deadline. */
export class DeadlineExceededError extends AppSetError {
  constructor(readonly deadlineMs: number) {
    super(DEADLINE_EXCEEDED_REASON, `reconcile deadline of ${String(deadlineMs / 1000)}s exceeded`);
  }
}

/** Whether `signal` was aborted by a reconcile deadline (not by a stop). */
export function deadlinePassed(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof DeadlineExceededError;
}

/** The abort reason of every running reconcile's signal when the pool stops. */
export class StoppingError extends AppSetError {
  constructor() {
    super("Stopping", "the controller is stopping");
  }
}

/** Everything one reconcile receives besides its key. */
export interface ReconcileContext {
  /** Unique per reconcile; every log line of the pass carries it. */
  readonly reconcileId: string;
  /** A child of the pool's logger bound to `reconcileId` and the key. */
  readonly logger: Logger;
  /** Aborted when the pool stops or the reconcile's deadline passes: stop waiting, fail promptly. */
  readonly signal: AbortSignal;
  /**
   * Aborted only when the pool stops. What must still be written after the deadline (the
   * condition that reports it) is written under this signal.
   */
  readonly stopping: AbortSignal;
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
  reconciled(event: { result: ReconcileResultLabel; terminal: boolean; seconds: number; panicked?: boolean }): void;
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
  /** Each reconcile's deadline in ms (absent or 0: none). */
  reconcileTimeoutMs?: number;
  /**
   * The fields naming the key in each reconcile's log lines (default: `applicationset` as Argo CD's
   * reconcile lines carry it, a `{Namespace, Name}` object).
   */
  keyFields?: (key: string) => Record<string, unknown>;
  /**
   * The server an error failed to reach (network, 5xx, timeout, 429), or undefined when the error
   * is of another kind. Keys that failed so are retried every {@link OUTAGE_RETRY_MS} without
   * growing their back-off, and at once, their back-off reset, when one of the keys waiting for the
   * same server next reconciles without such an error or {@link WorkerPool.serverReachable} is
   * called for it.
   */
  unreachableServer?: (err: unknown) => string | undefined;
  /** The retry delay of a key that could not reach the apiserver (default {@link OUTAGE_RETRY_MS}). */
  outageRetryMs?: number;
  /**
   * False for a server: a key that could not reach it backs off exponentially as for any error (it
   * still goes again at once when the server answers). For servers that may stay down for long (the
   * sync engine's remote clusters), where a steady retry would keep workers on them. Default: every
   * server paced.
   */
  pacedOutageRetry?: (server: string) => boolean;
}

/** How {@link WorkerPool.stop} ended. */
export interface StopReport {
  /** Reconciles running when the pool stopped, whose signals were aborted. */
  aborted: number;
  /** Of those, the ones still running when the grace period ran out. */
  unfinished: number;
}

/** How a reconcile ended, before it is mapped to a queue operation. */
type Outcome =
  | { kind: "success" }
  | { kind: "requeueAfter"; ms: number }
  | { kind: "requeue" }
  | { kind: "error"; error: unknown; unreachable: string | undefined }
  | { kind: "terminal"; error: unknown };

/**
 * Whether a reconcile failed the way a Go reconcile panics: the runtime's own errors (TypeError,
 * RangeError, ReferenceError, SyntaxError, …) or a thrown non-Error, as opposed to the typed errors
 * the code raises on purpose. It is recovered like any failure (logged, retried with back-off) and
 * counted by `controller_runtime_reconcile_panics_total`.
 */
export function isPanic(reason: unknown): boolean {
  if (!(reason instanceof Error)) return true;
  const proto = Object.getPrototypeOf(reason) as unknown;
  return [TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError].some((k) => proto === k.prototype);
}

/** Classifies a settled reconcile; `unreachable` names the server an error failed to reach. */
function outcomeOf(settled: PromiseSettledResult<ReconcileResult>, unreachable: (err: unknown) => string | undefined): Outcome {
  if (settled.status === "rejected") {
    const error: unknown = settled.reason;
    return isTerminal(error) ? { kind: "terminal", error } : { kind: "error", error, unreachable: unreachable(error) };
  }
  const ms = settled.value?.requeueAfterMs;
  if (typeof ms === "number" && ms > 0) return { kind: "requeueAfter", ms };
  return settled.value?.requeue === true ? { kind: "requeue" } : { kind: "success" };
}

/** Runs reconciles for the keys of one queue on N concurrent loops. */
export class WorkerPool {
  private readonly inFlight = new Map<string, { stop: AbortController; done: Promise<void> }>();
  /** Which failure lines are written (repeats limited per key). */
  private readonly failureLogs: LogLimiter;
  /** Keys whose last reconcile failed because a server could not be reached, by that server. */
  private readonly awaiting = new Map<string, string>();
  private loops: Promise<void>[] = [];
  private stopping = false;
  private readonly newId: () => string;

  constructor(private readonly options: WorkerPoolOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError(`concurrency must be an integer ≥ 1, got ${options.concurrency}`);
    }
    this.newId = options.newReconcileId ?? randomUUID;
    this.failureLogs = new LogLimiter(options.clock);
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
   * so the next start re-lists everything), aborts the signals of the running reconciles at once (as
   * controller-runtime cancels its context) and waits up to `graceMs` for them to return.
   */
  async stop(graceMs: number): Promise<StopReport> {
    this.stopping = true;
    this.options.queue.shutDown();
    const running = [...this.inFlight.values()];
    if (running.length === 0) return { aborted: 0, unfinished: 0 };
    for (const r of running) r.stop.abort(new StoppingError());
    const timer = new AbortController();
    const allDone = Promise.all(running.map((r) => r.done)).then(() => true);
    const finished = await Promise.race([allDone, this.options.clock.sleep(graceMs, timer.signal).then(() => false)]);
    timer.abort(new Error("stopped"));
    const unfinished = finished ? 0 : this.inFlight.size;
    if (unfinished > 0) this.options.logger.warn({ unfinished, graceMs }, "reconciles still running after the stop grace period");
    return { aborted: running.length, unfinished };
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
    const logger = this.options.logger.child({ reconcileID: reconcileId, ...(this.options.keyFields ?? applicationSetFields)(key) });
    const stop = new AbortController();
    const work = new AbortController();
    const onStop = (): void => work.abort(stop.signal.reason);
    stop.signal.addEventListener("abort", onStop, { once: true });
    const timeoutMs = this.options.reconcileTimeoutMs ?? 0;
    const deadline = timeoutMs > 0 ? clock.setTimeout(() => work.abort(new DeadlineExceededError(timeoutMs)), timeoutMs) : undefined;
    let finish = (): void => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    this.inFlight.set(key, { stop, done });
    metrics?.activeWorkers(this.inFlight.size);
    const started = clock.now();
    try {
      const ctx: ReconcileContext = { reconcileId, logger, signal: work.signal, stopping: stop.signal };
      const [settled] = await Promise.allSettled([Promise.resolve().then(() => reconciler.reconcile(key, ctx))]);
      const outcome = outcomeOf(settled, this.options.unreachableServer ?? (() => undefined));
      const { result, terminal } = this.settle(key, outcome, logger, work.signal);
      const panicked = settled.status === "rejected" && isPanic(settled.reason);
      metrics?.reconciled({ result, terminal, seconds: (clock.now() - started) / 1000, panicked });
    } finally {
      if (deadline !== undefined) clock.clearTimeout(deadline);
      stop.signal.removeEventListener("abort", onStop);
      this.inFlight.delete(key);
      metrics?.activeWorkers(this.inFlight.size);
      finish();
    }
  }

  /**
   * Says a server answers again (a watch or list that failed now succeeds, any request answered):
   * every key waiting because it could not reach that server (every waiting key, without one) is
   * retried at once, its back-off reset.
   */
  serverReachable(server?: string): void {
    this.releaseAwaiting(server);
  }

  /**
   * After a reconcile: a key that failed because a server was unreachable waits for that server in
   * {@link awaiting}; one that failed otherwise stops waiting (it now waits out its ordinary
   * back-off); one that was waiting and went through means its server is back, so the other keys
   * waiting for it are retried at once with their back-off reset.
   */
  private trackReachability(key: string, outcome: Outcome): void {
    if (outcome.kind === "error") {
      if (outcome.unreachable !== undefined) this.awaiting.set(key, outcome.unreachable);
      else this.awaiting.delete(key);
      return;
    }
    const server = this.awaiting.get(key);
    if (server === undefined) return;
    this.awaiting.delete(key);
    this.releaseAwaiting(server);
  }

  /** Hands every key waiting for `server` (for any server, without one) to the queue at once, its back-off reset. */
  private releaseAwaiting(server: string | undefined): void {
    if (this.stopping) return;
    const keys = [...this.awaiting].filter(([, s]) => server === undefined || s === server).map(([k]) => k);
    if (keys.length === 0) return;
    const where = server === undefined || server === "" ? "the apiserver" : server;
    this.options.logger.info({ keys: keys.length, server: where }, `${where} answers again: retrying what failed to reach it at once`);
    for (const key of keys) {
      this.awaiting.delete(key);
      this.options.queue.forget(key);
      this.options.queue.addNow(key);
    }
  }

  /** Logs a failed reconcile, repeats of the same failure of a key at most every 30 s ({@link LogLimiter}). */
  private logFailure(key: string, logger: Logger, err: string): void {
    const verdict = this.failureLogs.allow(key, err);
    if (!verdict.log) return;
    const held = verdict.suppressed > 0 ? { suppressed: verdict.suppressed } : {};
    logger.error({ error: err, requeues: this.options.queue.numRequeues(key), ...held }, "Reconciler error");
  }

  /** Queues a failed key again: paced when it could not reach a server whose retries are paced, else with back-off. */
  private retryFailed(key: string, unreachable: string | undefined): void {
    const { queue, pacedOutageRetry, outageRetryMs } = this.options;
    if (unreachable !== undefined && (pacedOutageRetry?.(unreachable) ?? true)) queue.addPaced(key, outageRetryMs ?? OUTAGE_RETRY_MS);
    else queue.addRateLimited(key);
  }

  /** The one switch: each outcome → one queue operation and one `result` label. */
  private settle(key: string, outcome: Outcome, logger: Logger, signal: AbortSignal): { result: ReconcileResultLabel; terminal: boolean } {
    const { queue } = this.options;
    this.trackReachability(key, outcome);
    switch (outcome.kind) {
      case "error":
        this.retryFailed(key, outcome.unreachable);
        if (signal.aborted && signal.reason instanceof StoppingError)
          logger.info({ error: errorMessage(outcome.error) }, "reconcile aborted by shutdown");
        else this.logFailure(key, logger, errorMessage(outcome.error));
        return { result: "error", terminal: false };
      case "terminal":
        queue.forget(key);
        logger.error({ error: errorMessage(outcome.error) }, "Reconciler error (terminal, not retried)");
        return { result: "error", terminal: true };
      case "requeueAfter":
        queue.forget(key);
        queue.addAfter(key, outcome.ms);
        return { result: "requeue_after", terminal: false };
      case "requeue":
        queue.forget(key);
        queue.add(key);
        return { result: "requeue", terminal: false };
      case "success":
        queue.forget(key);
        this.failureLogs.forget(key);
        return { result: "success", terminal: false };
    }
  }
}

/**
 * An ApplicationSet key's log field as Argo CD's reconcile lines carry it: `applicationset`, Go's
 * `types.NamespacedName` (JSON `{"Namespace":…,"Name":…}`, text `namespace/name`).
 */
export function applicationSetFields(key: string): Record<string, unknown> {
  const slash = key.indexOf("/");
  return { applicationset: slash < 0 ? { Namespace: "", Name: key } : { Namespace: key.slice(0, slash), Name: key.slice(slash + 1) } };
}
