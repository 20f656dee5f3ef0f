import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { AppSetError, TerminalError } from "../errors.js";
import { silentLogger, type Logger } from "../log/logger.js";
import { ExponentialFailureRateLimiter } from "./ratelimit.js";
import {
  DeadlineExceededError,
  deadlinePassed,
  isPanic,
  WorkerPool,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  type WorkerMetrics,
} from "./worker.js";
import { WorkQueue } from "./workqueue.js";

/** Lets pending promise callbacks run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

function captureLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "debug", base: undefined }, { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) });
  return { logger, lines };
}

function recordingMetrics(): WorkerMetrics & { results: string[]; active: number[] } {
  const results: string[] = [];
  const active: number[] = [];
  return {
    results,
    active,
    reconciled: (e) => results.push(e.terminal ? `${e.result}(terminal)` : e.result),
    activeWorkers: (n) => active.push(n),
  };
}

/** A reconciler whose every call waits until the test settles it. */
class Gate implements Reconciler {
  readonly calls: Array<{ key: string; ctx: ReconcileContext; resolve: (r: ReconcileResult) => void; reject: (e: unknown) => void }> = [];
  running = new Set<string>();
  maxConcurrent = 0;
  overlapped = false;

  reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileResult> {
    if (this.running.has(key)) this.overlapped = true;
    this.running.add(key);
    this.maxConcurrent = Math.max(this.maxConcurrent, this.running.size);
    return new Promise((resolve, reject) => {
      const end = (): boolean => this.running.delete(key);
      this.calls.push({
        key,
        ctx,
        resolve: (r) => (end(), resolve(r)),
        reject: (e) => (end(), reject(e instanceof Error ? e : new Error(String(e)))),
      });
    });
  }
}

function pool(
  reconciler: Reconciler,
  concurrency = 1,
  extra: { logger?: Logger; reconcileTimeoutMs?: number; unreachable?: (err: unknown) => boolean } = {},
) {
  const clock = new FakeClock();
  const queue = new WorkQueue({ clock, rateLimiter: new ExponentialFailureRateLimiter(5, 1_000_000) });
  const metrics = recordingMetrics();
  let n = 0;
  const workers = new WorkerPool({
    queue,
    reconciler,
    concurrency,
    clock,
    logger: extra.logger ?? silentLogger(),
    metrics,
    newReconcileId: () => `r${++n}`,
    ...(extra.reconcileTimeoutMs !== undefined ? { reconcileTimeoutMs: extra.reconcileTimeoutMs } : {}),
    ...(extra.unreachable ? { unreachable: extra.unreachable } : {}),
  });
  return { clock, queue, metrics, workers };
}

describe("WorkerPool outcome mapping", () => {
  it.each([
    // behave: what the reconciler does; label: the recorded result; requeues: numRequeues after;
    // readyAfterMs: when the key is queued again (undefined: never)
    {
      name: "a success forgets the key and does not requeue it",
      behave: () => Promise.resolve({}),
      label: "success",
      requeues: 0,
      readyAfterMs: undefined,
    },
    {
      name: "a requeueAfter forgets the key and adds it after the delay",
      behave: () => Promise.resolve({ requeueAfterMs: 180_000 }),
      label: "requeue_after",
      requeues: 0,
      readyAfterMs: 180_000,
    },
    {
      name: "a zero requeueAfter is a plain success",
      behave: () => Promise.resolve({ requeueAfterMs: 0 }),
      label: "success",
      requeues: 0,
      readyAfterMs: undefined,
    },
    {
      name: "a thrown error requeues the key with rate-limited backoff",
      behave: () => Promise.reject(new Error("boom")),
      label: "error",
      requeues: 2,
      readyAfterMs: 10,
    },
    {
      name: "a synchronous throw is recovered and treated as an error",
      behave: () => {
        throw new TypeError("not a function");
      },
      label: "error",
      requeues: 2,
      readyAfterMs: 10,
    },
    {
      name: "a thrown non-Error value is treated as an error",
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the case under test
      behave: () => Promise.reject("a string"),
      label: "error",
      requeues: 2,
      readyAfterMs: 10,
    },
    {
      name: "a TerminalError is logged, forgotten and not requeued",
      behave: () => Promise.reject(new TerminalError(new AppSetError("ErrorOccurred", "bad spec"))),
      label: "error(terminal)",
      requeues: 0,
      readyAfterMs: undefined,
    },
    {
      name: "an error wrapping a TerminalError is terminal too",
      behave: () => Promise.reject(new Error("outer", { cause: new TerminalError(new Error("inner")) })),
      label: "error(terminal)",
      requeues: 0,
      readyAfterMs: undefined,
    },
  ])("$name", async ({ behave, label, requeues, readyAfterMs }) => {
    const calls: number[] = [];
    const { clock, queue, metrics, workers } = pool({
      reconcile: (key, ctx) => {
        calls.push(clock.now() - start);
        return calls.length === 1 ? (behave as Reconciler["reconcile"])(key, ctx) : Promise.resolve({});
      },
    });
    queue.addRateLimited("ns/a"); // one earlier failure, so forget is observable
    clock.advance(5);
    const start = clock.now();
    workers.start();
    await flush();
    expect(metrics.results).toEqual([label]);
    expect(queue.numRequeues("ns/a")).toBe(requeues);
    await clock.advanceAsync(1_000_000);
    expect(calls).toEqual(readyAfterMs === undefined ? [0] : [0, readyAfterMs]);
  });

  it.each([
    { name: "an error is retried after 5 ms, then 10 ms", outcomes: ["err", "err", "ok"], times: [0, 5, 15] },
    { name: "a requeueAfter comes back after its delay", outcomes: ["req", "ok"], times: [0, 1_000] },
  ])("$name", async ({ outcomes, times }) => {
    const seen: number[] = [];
    let i = 0;
    const { clock, queue, workers } = pool({
      reconcile: () => {
        seen.push(clock.now() - start);
        const o = outcomes[i++];
        if (o === "err") return Promise.reject(new Error("transient"));
        return Promise.resolve(o === "req" ? { requeueAfterMs: 1_000 } : {});
      },
    });
    const start = clock.now();
    workers.start();
    queue.add("ns/a");
    for (let t = 0; t < 2_000; t += 1) await clock.advanceAsync(1);
    expect(seen).toEqual(times);
  });
});

describe("WorkerPool concurrency", () => {
  it("runs at most N reconciles at once and never the same key twice at once", async () => {
    const gate = new Gate();
    const { queue, workers } = pool(gate, 3);
    workers.start();
    for (let k = 0; k < 8; k++) queue.add(`ns/k${k}`);
    await flush();
    expect(gate.calls).toHaveLength(3);
    queue.add("ns/k0"); // dirty while processing
    for (let handled = 0; handled < gate.calls.length; handled++) {
      gate.calls[handled]!.resolve({});
      await flush();
    }
    expect(gate.calls.map((c) => c.key)).toEqual(["ns/k0", "ns/k1", "ns/k2", "ns/k3", "ns/k4", "ns/k5", "ns/k6", "ns/k7", "ns/k0"]);
    expect(gate.maxConcurrent).toBe(3);
    expect(gate.overlapped).toBe(false);
  });

  it("refuses a concurrency below one", () => {
    expect(() => pool({ reconcile: () => Promise.resolve({}) }, 0)).toThrow("concurrency must be an integer ≥ 1, got 0");
  });
});

describe("WorkerPool context", () => {
  it("gives each reconcile its own id and a logger bound to the id and the key", async () => {
    const { logger, lines } = captureLogger();
    const { queue, workers } = pool(
      {
        reconcile: (_key, ctx) => {
          ctx.logger.info("generating");
          return Promise.resolve({});
        },
      },
      1,
      { logger },
    );
    workers.start();
    queue.add("ns/a");
    queue.add("ns/b");
    await flush();
    expect(lines.map((l) => [l.msg, l.reconcileId, l.appset])).toEqual([
      ["generating", "r1", "ns/a"],
      ["generating", "r2", "ns/b"],
    ]);
  });

  it("logs a failed reconcile with its error and key", async () => {
    const { logger, lines } = captureLogger();
    const { queue, workers } = pool({ reconcile: () => Promise.reject(new Error("apiserver unavailable")) }, 1, { logger });
    workers.start();
    queue.add("ns/a");
    await flush();
    expect(lines[0]).toMatchObject({
      msg: "Reconciler error",
      err: "apiserver unavailable",
      appset: "ns/a",
      reconcileId: "r1",
      requeues: 1,
    });
  });
});

describe("WorkerPool failure logs", () => {
  it("writes one line for a key failing the same way many times within 30 s, and counts the rest on the next", async () => {
    const { logger, lines } = captureLogger();
    const { clock, queue, workers } = pool({ reconcile: () => Promise.reject(new Error("apiserver unavailable")) }, 1, { logger });
    workers.start();
    queue.add("ns/a");
    await flush();
    for (let i = 0; i < 12; i++) await clock.advanceAsync(2_000);
    const errors = lines.filter((l) => l["msg"] === "Reconciler error");
    expect(errors.map((l) => l["suppressed"])).toEqual([undefined]);
    await clock.advanceAsync(30_000);
    const later = lines.filter((l) => l["msg"] === "Reconciler error");
    expect(later.length).toBe(2);
    expect(later[1]!["suppressed"]).toBeGreaterThan(0);
  });
});

describe("WorkerPool deadline", () => {
  it("aborts a reconcile's signal at its deadline, leaves `stopping` alone, and retries the key with backoff", async () => {
    const gate = new Gate();
    const { clock, queue, workers, metrics } = pool(gate, 1, { reconcileTimeoutMs: 300_000 });
    workers.start();
    queue.add("ns/a");
    await flush();
    await clock.advanceAsync(299_999);
    expect(gate.calls[0]!.ctx.signal.aborted).toBe(false);
    await clock.advanceAsync(1);
    const { signal, stopping } = gate.calls[0]!.ctx;
    expect(signal.aborted).toBe(true);
    expect(deadlinePassed(signal)).toBe(true);
    expect(signal.reason).toBeInstanceOf(DeadlineExceededError);
    expect((signal.reason as Error).message).toBe("reconcile deadline of 300s exceeded");
    expect(stopping.aborted).toBe(false);
    gate.calls[0]!.reject(signal.reason);
    await flush();
    expect(metrics.results).toEqual(["error"]);
    expect(queue.numRequeues("ns/a")).toBe(1);
    expect(workers.active).toBe(0);
  });

  it("clears the deadline of a reconcile that returned in time", async () => {
    const { clock, queue, workers } = pool({ reconcile: () => Promise.resolve({}) }, 1, { reconcileTimeoutMs: 1_000 });
    workers.start();
    queue.add("ns/a");
    await flush();
    expect(clock.pendingTimers).toBe(0);
  });
});

describe("WorkerPool stop", () => {
  it("stops taking work, aborts the running reconcile's signal at once and waits for it", async () => {
    const gate = new Gate();
    const { clock, queue, workers, metrics } = pool(gate, 1);
    workers.start();
    queue.add("ns/a");
    queue.add("ns/b");
    await flush();
    const stopping = workers.stop(10_000);
    await flush();
    expect(gate.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(gate.calls[0]!.ctx.stopping.aborted).toBe(true);
    expect((gate.calls[0]!.ctx.signal.reason as Error).message).toBe("the controller is stopping");
    await clock.advanceAsync(3_000);
    let settled = false;
    void stopping.then(() => (settled = true));
    await flush();
    expect(settled).toBe(false);
    gate.calls[0]!.resolve({});
    await expect(stopping).resolves.toEqual({ aborted: 1, unfinished: 0 });
    await workers.stopped();
    expect(gate.calls.map((c) => c.key)).toEqual(["ns/a"]);
    expect(metrics.active.at(-1)).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it("returns after the grace period with the reconciles that did not finish", async () => {
    const gate = new Gate();
    const { clock, queue, workers } = pool(gate, 2);
    workers.start();
    queue.add("ns/a");
    queue.add("ns/b");
    await flush();
    gate.calls[1]!.resolve({});
    await flush();
    const stopping = workers.stop(10_000);
    await clock.advanceAsync(10_000);
    await expect(stopping).resolves.toEqual({ aborted: 1, unfinished: 1 });
    gate.calls[0]!.reject(gate.calls[0]!.ctx.signal.reason);
    await workers.stopped();
    expect(queue.len()).toBe(0);
  });

  it("returns at once when nothing is running", async () => {
    const { workers } = pool({ reconcile: () => Promise.resolve({}) }, 2);
    workers.start();
    await expect(workers.stop(1_000)).resolves.toEqual({ aborted: 0, unfinished: 0 });
    await workers.stopped();
  });
});

describe("WorkerPool back-off reset when the apiserver is back", () => {
  class Unreachable extends Error {}
  /** Fails the keys in `broken` with another error, else those in `failing` with `Unreachable`; counts runs. */
  function world(opts: { unreachable: boolean }) {
    const failing = new Set<string>();
    const broken = new Set<string>();
    const runs = new Map<string, number>();
    const reconciler: Reconciler = {
      reconcile: (key) => {
        runs.set(key, (runs.get(key) ?? 0) + 1);
        if (broken.has(key)) return Promise.reject(new Error("a bad template"));
        if (failing.has(key)) return Promise.reject(new Unreachable("connect ECONNREFUSED"));
        return Promise.resolve({});
      },
    };
    const p = pool(reconciler, 1, opts.unreachable ? { unreachable: (err) => err instanceof Unreachable } : {});
    return { ...p, failing, broken, runs };
  }

  /** b and c fail six times (their next retry 320 ms away), then a fails once (5 ms away); then the apiserver is back. */
  async function outage(w: ReturnType<typeof world>): Promise<void> {
    w.workers.start();
    for (const k of ["b", "c"]) w.failing.add(k);
    w.queue.add("b");
    w.queue.add("c");
    await flush();
    for (const ms of [5, 10, 20, 40, 80]) await w.clock.advanceAsync(ms);
    w.failing.add("a");
    w.queue.add("a");
    await flush();
    w.failing.clear();
    await w.clock.advanceAsync(5);
    await flush();
  }

  it("retries at once, with the back-off reset, what failed to reach the apiserver when one of them goes through", async () => {
    const w = world({ unreachable: true });
    await outage(w);
    expect({ b: w.runs.get("b"), c: w.runs.get("c"), requeues: w.queue.numRequeues("b") }).toEqual({ b: 7, c: 7, requeues: 0 });
  });

  it("without the classifier the others wait out their back-off", async () => {
    const w = world({ unreachable: false });
    await outage(w);
    expect({ b: w.runs.get("b"), c: w.runs.get("c") }).toEqual({ b: 6, c: 6 });
  });

  it("leaves alone keys that failed for another reason", async () => {
    const w = world({ unreachable: true });
    w.broken.add("c");
    await outage(w);
    expect({ b: w.runs.get("b"), c: w.runs.get("c") }).toEqual({ b: 7, c: 6 });
  });
});

describe("isPanic", () => {
  it("is true for the runtime's own errors and thrown non-Errors, false for errors raised on purpose", () => {
    const panics = [new TypeError("x"), new RangeError("x"), new ReferenceError("x"), new SyntaxError("x"), "text", undefined];
    expect(panics.map(isPanic)).toEqual(panics.map(() => true));
    class Typed extends TypeError {}
    expect([new Error("x"), new TerminalError(new Error("x")), new Typed("x")].map(isPanic)).toEqual([false, false, false]);
  });
});
