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
  OUTAGE_RETRY_MS,
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
  extra: {
    logger?: Logger;
    reconcileTimeoutMs?: number;
    unreachableServer?: (err: unknown) => string | undefined;
    pacedOutageRetry?: (server: string) => boolean;
  } = {},
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
    ...(extra.unreachableServer ? { unreachableServer: extra.unreachableServer } : {}),
    ...(extra.pacedOutageRetry !== undefined ? { pacedOutageRetry: extra.pacedOutageRetry } : {}),
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
    expect(lines.map((l) => [l.msg, l.reconcileID, l.applicationset])).toEqual([
      ["generating", "r1", { Namespace: "ns", Name: "a" }],
      ["generating", "r2", { Namespace: "ns", Name: "b" }],
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
      error: "apiserver unavailable",
      applicationset: { Namespace: "ns", Name: "a" },
      reconcileID: "r1",
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

describe("WorkerPool during and after an apiserver outage", () => {
  class Unreachable extends Error {
    constructor(readonly server: string) {
      super(`connect ECONNREFUSED ${server}`);
    }
  }
  type Fate = "down" | "bad" | "ok";
  /**
   * A pool whose reconciler fails each key as `fate(key)` says ("down": its server is unreachable,
   * "bad": an ordinary error) and records when each key ran. A key's server is the part of its name
   * before "/" (the apiserver, "", without one).
   */
  function world(fate: (key: string, run: number) => Fate, options: { pacedOutageRetry?: (server: string) => boolean } = {}) {
    const runs = new Map<string, number[]>();
    let now = (): number => 0;
    const reconciler: Reconciler = {
      reconcile: (key) => {
        const times = runs.get(key) ?? [];
        runs.set(key, [...times, now()]);
        const f = fate(key, times.length);
        if (f === "down") return Promise.reject(new Unreachable(key.includes("/") ? key.slice(0, key.indexOf("/")) : ""));
        if (f === "bad") return Promise.reject(new Error("a bad template"));
        return Promise.resolve({});
      },
    };
    const p = pool(reconciler, 1, { unreachableServer: (err) => (err instanceof Unreachable ? err.server : undefined), ...options });
    const t0 = p.clock.now();
    now = () => p.clock.now() - t0;
    p.workers.start();
    return { ...p, runs, now: () => now() };
  }

  /** Advances the clock in 100 ms steps until `until` ms after the world was made. */
  async function runUntil(w: ReturnType<typeof world>, until: number): Promise<void> {
    await flush();
    while (w.now() < until) await w.clock.advanceAsync(Math.min(100, until - w.now()));
    await flush();
  }

  const gaps = (times: readonly number[]): number[] => times.slice(1).map((t, i) => t - times[i]!);

  it.each<{ name: string; fate: Fate; gap: (n: number) => number; requeues: number; paced?: boolean }>([
    {
      name: "a key that cannot reach the apiserver 12 times in a row retries every OUTAGE_RETRY_MS, its back-off not grown",
      fate: "down",
      gap: () => OUTAGE_RETRY_MS,
      requeues: 0,
    },
    {
      name: "a key that fails otherwise 12 times in a row still doubles its back-off",
      fate: "bad",
      gap: (n: number) => 5 * 2 ** n,
      requeues: 13,
    },
    {
      name: "without paced outage retries for its server (the sync engine's remote clusters), a key that cannot reach it doubles its back-off",
      fate: "down",
      gap: (n: number) => 5 * 2 ** n,
      requeues: 13,
      paced: false,
    },
  ])("$name", async ({ fate, gap, requeues, paced }) => {
    const w = world(() => fate, paced === undefined ? {} : { pacedOutageRetry: () => paced });
    w.queue.add("a");
    await runUntil(w, 25_000);
    const seen = gaps(w.runs.get("a") ?? []).slice(0, 11);
    expect({ seen, requeues: w.queue.numRequeues("a") }).toEqual({ seen: Array.from({ length: 11 }, (_, n) => gap(n)), requeues });
  });

  it.each([
    // signal: how the apiserver's return becomes known; first: when each key first runs after it is
    // back (t = 15 100): b's probe at 15 500 gets through and brings a and c with it
    { name: "a key that gets through", signal: () => {}, first: 15_500 },
    { name: "serverReachable()", signal: (w: ReturnType<typeof world>) => w.workers.serverReachable(), first: 15_100 },
    { name: 'serverReachable("")', signal: (w: ReturnType<typeof world>) => w.workers.serverReachable(""), first: 15_100 },
  ])(
    "after an outage of 15 s, when $name says the apiserver is back, every waiting key runs at once, once, its back-off reset",
    async ({ signal, first }) => {
      let down = true;
      // d fails for another reason: it keeps its own back-off.
      const w = world((key) => (key === "d" ? "bad" : down ? "down" : "ok"));
      w.queue.add("a");
      w.queue.add("d");
      await runUntil(w, 500);
      w.queue.add("b");
      w.queue.add("c");
      await runUntil(w, 15_100);
      down = false;
      signal(w);
      await runUntil(w, 19_000);
      const after = (k: string): number[] => (w.runs.get(k) ?? []).filter((t) => t >= 15_100);
      expect({
        a: after("a"),
        b: after("b"),
        c: after("c"),
        d: after("d").filter((t) => t < first + OUTAGE_RETRY_MS),
        requeues: ["a", "b", "c"].map((k) => w.queue.numRequeues(k)),
      }).toEqual({ a: [first], b: [first], c: [first], d: [], requeues: [0, 0, 0] });
    },
  );

  it("a key that could not reach the apiserver and then fails otherwise backs off from where its ordinary count stood", async () => {
    const script: Fate[] = ["bad", "bad", "bad", "down", "down", "down", "down", "bad", "bad", "ok"];
    const w = world((_, run) => script[run] ?? "ok");
    w.queue.add("a");
    await runUntil(w, 10_000);
    expect(gaps(w.runs.get("a") ?? [])).toEqual([5, 10, 20, 1_000, 1_000, 1_000, 1_000, 40, 80]);
  });

  it("the signal leaves alone a key that failed otherwise after failing to reach the apiserver", async () => {
    const script: Fate[] = ["down", "bad", "ok"];
    const w = world((_, run) => script[run] ?? "ok");
    w.queue.add("a");
    await runUntil(w, 1_001);
    w.workers.serverReachable();
    await runUntil(w, 2_000);
    expect(w.runs.get("a")).toEqual([0, 1_000, 1_005]);
  });
});

describe("WorkerPool when several servers cannot be reached (the sync engine's clusters)", () => {
  class Unreachable extends Error {
    constructor(readonly server: string) {
      super(`connect ECONNREFUSED ${server}`);
    }
  }

  /** Keys named `<server>/<app>`; `down` holds the servers that do not answer. */
  function clusters(down: Set<string>, paced: (server: string) => boolean) {
    const runs = new Map<string, number[]>();
    const clock = new FakeClock();
    const t0 = clock.now();
    const reconciler: Reconciler = {
      reconcile: (key) => {
        runs.set(key, [...(runs.get(key) ?? []), clock.now() - t0]);
        const server = key.slice(0, key.indexOf("/"));
        return down.has(server) ? Promise.reject(new Unreachable(server)) : Promise.resolve({});
      },
    };
    const queue = new WorkQueue({ clock, rateLimiter: new ExponentialFailureRateLimiter(5, 1_000_000) });
    const workers = new WorkerPool({
      queue,
      reconciler,
      concurrency: 1,
      clock,
      logger: silentLogger(),
      unreachableServer: (err) => (err instanceof Unreachable ? err.server : undefined),
      pacedOutageRetry: paced,
    });
    workers.start();
    const runUntil = async (until: number): Promise<void> => {
      await flush();
      while (clock.now() - t0 < until) await clock.advanceAsync(Math.min(100, until - (clock.now() - t0)));
      await flush();
    };
    const after = (key: string, t: number): number[] => (runs.get(key) ?? []).filter((x) => x >= t);
    return { queue, workers, runs, runUntil, after };
  }

  it("paces the apiserver's keys and backs a remote cluster's off, as pacedOutageRetry says per server", async () => {
    const w = clusters(new Set(["api", "remote"]), (server) => server === "api");
    w.queue.add("api/a");
    w.queue.add("remote/b");
    await w.runUntil(10_000);
    const gaps = (k: string): number[] => (w.runs.get(k) ?? []).slice(1, 6).map((t, i) => t - w.runs.get(k)![i]!);
    expect({ api: gaps("api/a"), remote: gaps("remote/b") }).toEqual({
      api: [1_000, 1_000, 1_000, 1_000, 1_000],
      remote: [5, 10, 20, 40, 80],
    });
    await w.workers.stop(1_000);
  });

  it.each([
    // how the return of cluster "one" becomes known
    { name: 'serverReachable("one")', signal: (w: ReturnType<typeof clusters>) => w.workers.serverReachable("one") },
    { name: "one of its keys getting through", signal: () => {} },
  ])("when $name, only the keys waiting for that cluster run at once, their back-off reset", async ({ signal }) => {
    const down = new Set(["one", "two"]);
    const w = clusters(down, () => false);
    for (const k of ["one/a", "one/b", "two/c", "two/d"]) w.queue.add(k);
    await w.runUntil(60_000);
    down.delete("one");
    signal(w);
    // Without the signal, the first key of "one" to get through is the one whose back-off ends first.
    await w.runUntil(60_000 + 70_000);
    const firstOf = (k: string): number | undefined => w.after(k, 60_000)[0];
    const one = [firstOf("one/a"), firstOf("one/b")];
    expect(Math.max(...one.map((t) => t ?? Infinity)) - Math.min(...one.map((t) => t ?? Infinity))).toBeLessThan(10);
    expect([w.queue.numRequeues("one/a"), w.queue.numRequeues("one/b")]).toEqual([0, 0]);
    expect([w.queue.numRequeues("two/c"), w.queue.numRequeues("two/d")].every((n) => n > 10)).toBe(true);
    await w.workers.stop(1_000);
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
