import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { appControllerRateLimiter, DEFAULT_WORKQUEUE_RATE_LIMIT } from "./app-ratelimit.js";
import { defaultControllerRateLimiter, ExponentialFailureRateLimiter } from "./ratelimit.js";
import { WorkQueue, type QueueMetrics } from "./workqueue.js";

function queue(clock = new FakeClock()): { q: WorkQueue; clock: FakeClock } {
  return { q: new WorkQueue({ clock }), clock };
}

/** Takes every queued key without waiting. */
function drainKeys(q: WorkQueue): string[] {
  const keys: string[] = [];
  for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) keys.push(k);
  return keys;
}

/** Fails key "a" `times` times in a row; returns how long each retry took to be handed out (ms). */
function retryDelays(q: WorkQueue, clock: FakeClock, times: number): number[] {
  const readyAfter: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = clock.now();
    q.addRateLimited("a");
    while (q.len() === 0) clock.advance(1);
    readyAfter.push(clock.now() - start);
    expect(q.tryGet()).toBe("a");
    q.done("a");
  }
  return readyAfter;
}

describe("WorkQueue de-duplication", () => {
  it("hands keys out in the order they were first added, once each", () => {
    const { q } = queue();
    for (const k of ["a", "b", "a", "c", "b"]) q.add(k);
    expect(q.len()).toBe(3);
    expect(drainKeys(q)).toEqual(["a", "b", "c"]);
  });

  it("re-queues a key added while it is processing only after done, and never hands it out twice at once", () => {
    const { q } = queue();
    q.add("a");
    expect(q.tryGet()).toBe("a");
    q.add("a");
    q.add("a");
    expect(q.len()).toBe(0);
    expect(q.tryGet()).toBeUndefined();
    q.done("a");
    expect(q.len()).toBe(1);
    expect(q.tryGet()).toBe("a");
    q.done("a");
    expect(q.tryGet()).toBeUndefined();
  });

  it("ignores done for a key that is not processing", () => {
    const { q } = queue();
    q.add("a");
    q.done("a");
    expect(q.len()).toBe(1);
    expect(q.processingCount()).toBe(0);
  });

  it("resolves a waiting get as soon as a key is added", async () => {
    const { q } = queue();
    const first = q.get();
    const second = q.get();
    q.add("a");
    q.add("b");
    await expect(first).resolves.toBe("a");
    await expect(second).resolves.toBe("b");
    expect(q.processingCount()).toBe(2);
  });
});

describe("WorkQueue delays", () => {
  it.each([
    // first/second: the two addAfter delays (ms); due: when the key becomes ready
    { name: "an earlier second delay replaces a later first one", first: 1_000, second: 100, due: 100 },
    { name: "a later second delay does not postpone an earlier first one", first: 100, second: 1_000, due: 100 },
    { name: "equal delays keep the first timer", first: 300, second: 300, due: 300 },
  ])("$name", ({ first, second, due }) => {
    const { q, clock } = queue();
    q.addAfter("a", first);
    q.addAfter("a", second);
    expect(q.waitingCount()).toBe(1);
    clock.advance(due - 1);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    expect(q.waitingCount()).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it("adds at once when the delay is zero or negative", () => {
    const { q } = queue();
    q.addAfter("a", 0);
    q.addAfter("b", -5);
    expect(drainKeys(q)).toEqual(["a", "b"]);
  });

  it("keeps a waiting key waiting when it is also added directly, as client-go does", () => {
    const { q, clock } = queue();
    q.addAfter("a", 50);
    q.add("a");
    expect(q.tryGet()).toBe("a");
    q.done("a");
    clock.advance(50);
    expect(q.tryGet()).toBe("a");
  });

  it("backs a failing key off exponentially and starts over after forget", () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock, rateLimiter: new ExponentialFailureRateLimiter(5, 1_000_000) });
    expect(retryDelays(q, clock, 4)).toEqual([5, 10, 20, 40]);
    expect(q.numRequeues("a")).toBe(4);
    q.forget("a");
    expect(q.numRequeues("a")).toBe(0);
  });

  it("with Argo CD's --wq-* limiter, retries after the base delay times the factor while failures come within the cooldown", () => {
    const clock = new FakeClock();
    const cfg = { ...DEFAULT_WORKQUEUE_RATE_LIMIT, baseDelayMs: 10, backoffFactor: 3, cooldownMs: 60_000 };
    const q = new WorkQueue({ clock, rateLimiter: appControllerRateLimiter(clock, cfg) });
    expect(retryDelays(q, clock, 3)).toEqual([10, 30, 90]);
  });
});

describe("WorkQueue paced retries", () => {
  it.each([
    // limiter: the queue's rate limiter; expected: the delays of 12 paced retries of "a" after 150 at once
    { name: "a per-key back-off alone", limiter: () => new ExponentialFailureRateLimiter(5, 1_000_000), expected: 1_000 },
    {
      name: "client-go's default (with its token bucket)",
      limiter: (clock: FakeClock) => defaultControllerRateLimiter(clock),
      expected: 5_100,
    },
  ])("with $name, waits the fixed delay or the overall wait if longer, and counts no failure of the key", ({ limiter, expected }) => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock, rateLimiter: limiter(clock) });
    // 150 retries of other keys at once: the default bucket (burst 100, 10/s) is 50 tokens short.
    for (let i = 0; i < 150; i++) q.addRateLimited(`k${i}`);
    const start = clock.now();
    q.addPaced("a", 1_000);
    while (q.len() <= 150 || !drainKeys(q).includes("a")) clock.advance(100);
    expect({ after: clock.now() - start, requeues: q.numRequeues("a") }).toEqual({ after: expected, requeues: 0 });
  });

  it("addNow hands a waiting key out at once, and only once", () => {
    const { q, clock } = queue();
    q.addAfter("a", 1_000);
    q.addNow("a");
    expect(drainKeys(q)).toEqual(["a"]);
    q.done("a");
    clock.advance(2_000);
    expect([q.len(), q.waitingCount()]).toEqual([0, 0]);
  });
});

describe("WorkQueue shut down", () => {
  it("abandons queued and waiting keys, releases waiting gets and ignores later adds", async () => {
    const { q, clock } = queue();
    const waiting = q.get();
    q.add("a");
    await expect(waiting).resolves.toBe("a");
    const idle = q.get();
    q.add("b");
    q.addAfter("c", 10);
    q.shutDown();
    // "b" went to the idle get before the shut down.
    await expect(idle).resolves.toBe("b");
    const later = q.get();
    await expect(later).resolves.toBeUndefined();
    q.add("d");
    q.addRateLimited("e");
    expect(q.len()).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    expect(q.shuttingDown).toBe(true);
  });

  it("does not re-queue a dirty key after an abandoning shut down", () => {
    const { q } = queue();
    q.add("a");
    q.tryGet();
    q.add("a");
    q.shutDown();
    q.done("a");
    expect(q.len()).toBe(0);
  });

  it("while draining, hands out queued keys and keys dirtied during processing, then resolves", async () => {
    const { q } = queue();
    q.add("a");
    q.add("b");
    expect(q.tryGet()).toBe("a");
    q.add("a");
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    q.add("c");
    expect(await q.get()).toBe("b");
    const next = q.get();
    q.done("b");
    q.done("a");
    await expect(next).resolves.toBe("a");
    await Promise.resolve();
    expect(drained).toBe(false);
    q.done("a");
    await drain;
    await expect(q.get()).resolves.toBeUndefined();
  });

  it("resolves a drain at once when nothing is queued or processing", async () => {
    const { q } = queue();
    await expect(q.shutDownWithDrain()).resolves.toBeUndefined();
  });
});

describe("WorkQueue metrics", () => {
  it("reports adds, depth, retries, queue latency and work duration", () => {
    const events: string[] = [];
    const metrics: QueueMetrics = {
      add: () => events.push("add"),
      depth: (n) => events.push(`depth ${n}`),
      retry: () => events.push("retry"),
      queueLatency: (s) => events.push(`latency ${s}`),
      workDuration: (s) => events.push(`work ${s}`),
    };
    const clock = new FakeClock();
    const q = new WorkQueue({ clock, metrics, rateLimiter: new ExponentialFailureRateLimiter(5, 10) });
    q.add("a");
    q.add("a");
    clock.advance(2_000);
    q.tryGet();
    clock.advance(500);
    q.done("a");
    q.addRateLimited("a");
    expect(events).toEqual(["add", "depth 1", "depth 0", "latency 2", "work 0.5", "retry"]);
  });
});

type Op =
  | { op: "add"; key: number; urgent: boolean }
  | { op: "addAfter"; key: number; ms: number }
  | { op: "addRateLimited"; key: number }
  | { op: "get" }
  | { op: "done"; pick: number }
  | { op: "advance"; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("add" as const), key: fc.integer({ min: 0, max: 5 }), urgent: fc.boolean() }),
  fc.record({ op: fc.constant("addAfter" as const), key: fc.integer({ min: 0, max: 5 }), ms: fc.integer({ min: -5, max: 200 }) }),
  fc.record({ op: fc.constant("addRateLimited" as const), key: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ op: fc.constant("get" as const) }),
  fc.record({ op: fc.constant("done" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 300 }) }),
);

/** Runs one op against the queue, tracking which keys are processing and which still owe a hand-out. */
function step(q: WorkQueue, clock: FakeClock, model: { processing: string[]; owed: Set<string> }, o: Op): void {
  switch (o.op) {
    case "add":
      q.add(`k${o.key}`, o.urgent);
      model.owed.add(`k${o.key}`);
      return;
    case "addAfter":
      q.addAfter(`k${o.key}`, o.ms);
      model.owed.add(`k${o.key}`);
      return;
    case "addRateLimited":
      q.addRateLimited(`k${o.key}`);
      model.owed.add(`k${o.key}`);
      return;
    case "get": {
      const k = q.tryGet();
      if (k === undefined) return;
      expect(model.processing).not.toContain(k);
      model.processing.push(k);
      model.owed.delete(k);
      return;
    }
    case "done": {
      if (model.processing.length === 0) return;
      const [k] = model.processing.splice(o.pick % model.processing.length, 1);
      q.done(k!);
      return;
    }
    case "advance":
      clock.advance(o.ms);
  }
}

describe("WorkQueue properties", () => {
  it("never hands a key out while it is processing, and after quiescence every added key was handed out after its last add", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 120 }), (ops) => {
        const clock = new FakeClock();
        const q = new WorkQueue({ clock, rateLimiter: new ExponentialFailureRateLimiter(5, 100) });
        const model = { processing: [] as string[], owed: new Set<string>() };
        for (const o of ops) step(q, clock, model, o);
        // Quiescence: finish everything in flight, let every timer fire, process what remains.
        for (let round = 0; round < 50 && (model.processing.length > 0 || q.len() > 0 || q.waitingCount() > 0); round++) {
          for (const k of model.processing.splice(0)) q.done(k);
          clock.advance(1_000);
          for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) {
            expect(model.processing).not.toContain(k);
            model.processing.push(k);
            model.owed.delete(k);
          }
        }
        expect([...model.owed]).toEqual([]);
        expect(q.len()).toBe(0);
        expect(q.processingCount()).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it("hands out urgent keys first, in their order, then the others in theirs, each once", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ key: fc.integer({ min: 0, max: 20 }), urgent: fc.boolean() }), { maxLength: 60 }), (adds) => {
        const { q } = queue();
        for (const a of adds) q.add(`k${a.key}`, a.urgent);
        const out = drainKeys(q);
        const firstUrgent = new Map<string, number>();
        adds.forEach((a, i) => {
          if (a.urgent && !firstUrgent.has(`k${a.key}`)) firstUrgent.set(`k${a.key}`, i);
        });
        const urgent = [...firstUrgent.entries()].sort((a, b) => a[1] - b[1]).map(([k]) => k);
        const rest = [...new Set(adds.map((a) => `k${a.key}`))].filter((k) => !firstUrgent.has(k));
        expect(out).toEqual([...urgent, ...rest]);
        expect(q.len()).toBe(0);
      }),
    );
  });

  it("hands each de-duplicated key out exactly once when nothing is processing during the adds", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }), (keys) => {
        const { q } = queue();
        for (const k of keys) q.add(`k${k}`);
        const out = drainKeys(q);
        expect(out).toEqual([...new Set(keys.map((k) => `k${k}`))]);
      }),
    );
  });
});
