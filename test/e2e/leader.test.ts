/**
 * Leader election against the real apiserver: of several candidates exactly one leads and the Lease
 * names it; when the leader's loop is killed without releasing, another takes over only once the
 * lease has expired; when the leader releases, another takes over at once; when the leader is cut
 * off from the apiserver, it steps down before anyone else can take over. A watch on the Lease and
 * the candidates' callbacks both show that there are never two leaders at once.
 *
 * Timings are shortened (lease 4 s, renew deadline 3 s, retry 0.5 s) to keep the run short; the
 * semantics are those of the defaults (15 s / 10 s / 2 s).
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SystemClock } from "../../src/clock/index.js";
import { KubeApiClient, KubeApiError, KubeReason, resources, type KubeClient, type WatchEvent } from "../../src/kube/index.js";
import { LEASE_NAME, LeaderElector, Leases, type ElectionEnd, type Lease, type LeaseTimings } from "../../src/leader/index.js";
import { silentLogger } from "../../src/log/logger.js";

const TIMINGS: LeaseTimings = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
/** The longest a candidate sleeps between acquire attempts (retry period × 2.2, client-go's jitter). */
const MAX_RETRY_MS = TIMINGS.retryPeriodMs * 2.2;

let client: KubeApiClient;
const namespaces: string[] = [];

beforeAll(() => {
  client = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
});

afterAll(async () => {
  for (const ns of namespaces) await client.delete(resources.Namespaces, { name: ns });
  await client.transport.close();
});

async function namespace(): Promise<string> {
  const ns = `leader-${randomBytes(3).toString("hex")}`;
  await client.create(resources.Namespaces, { metadata: { name: ns } });
  namespaces.push(ns);
  return ns;
}

/** One leadership change as the callbacks report it, on the process's monotonic clock. */
type Transition = { at: number; who: string; kind: "start" | "stop" };

/** A client port that fails every call while `cut` is set: a network partition of one candidate. */
function partitionable(inner: KubeClient): { port: Pick<KubeClient, "get" | "create" | "update">; cut: { on: boolean } } {
  const cut = { on: false };
  const guard = <T>(call: () => Promise<T>): Promise<T> =>
    cut.on ? Promise.reject(new KubeApiError({ status: 0, reason: KubeReason.Network, message: "connect ECONNREFUSED" })) : call();
  return {
    cut,
    port: {
      get: (r, k) => guard(() => inner.get(r, k)),
      create: (r, o, opt) => guard(() => inner.create(r, o, opt)),
      update: (r, o, opt) => guard(() => inner.update(r, o, opt)),
    },
  };
}

interface Candidate {
  id: string;
  stop: AbortController;
  ended: Promise<ElectionEnd>;
  elector: LeaderElector;
  cut: { on: boolean };
}

/** Everything one scenario observes. */
class Election {
  readonly transitions: Transition[] = [];
  readonly holders: Array<{ at: number; holder: string }> = [];
  readonly candidates: Candidate[] = [];
  private readonly watchStop = new AbortController();
  private watching: Promise<void> | undefined;

  constructor(readonly ns: string) {}

  /** Watches the Lease and records every change of holder. */
  watchLease(): void {
    const onEvent = (e: WatchEvent): void => {
      const holder = (e.object as Lease).spec?.holderIdentity ?? "";
      if (this.holders.at(-1)?.holder !== holder) this.holders.push({ at: performance.now(), holder });
    };
    const options = { namespace: this.ns, fieldSelector: `metadata.name=${LEASE_NAME}`, signal: this.watchStop.signal };
    this.watching = client.watch(Leases, options, onEvent).catch(() => undefined);
  }

  start(id: string, releaseOnCancel: boolean): Candidate {
    const { port, cut } = partitionable(client);
    const stop = new AbortController();
    const elector = new LeaderElector({
      client: port,
      namespace: this.ns,
      identity: id,
      clock: new SystemClock(),
      logger: silentLogger(),
      timings: TIMINGS,
      releaseOnCancel,
      onStartedLeading: () => this.transitions.push({ at: performance.now(), who: id, kind: "start" }),
      onStoppedLeading: () => this.transitions.push({ at: performance.now(), who: id, kind: "stop" }),
    });
    const c = { id, stop, ended: elector.run(stop.signal), elector, cut };
    this.candidates.push(c);
    return c;
  }

  /** The first candidate (not in `except`) seen leading within `timeoutMs`, and when it started. */
  async leader(timeoutMs: number, except: string[] = []): Promise<{ c: Candidate; at: number }> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const c = this.candidates.find((x) => x.elector.isLeader() && !except.includes(x.id));
      if (c !== undefined) return { c, at: this.transitions.findLast((t) => t.who === c.id && t.kind === "start")!.at };
      if (performance.now() > deadline) throw new Error(`no leader within ${timeoutMs} ms`);
      await sleep(25);
    }
  }

  leaders(): string[] {
    return this.candidates.filter((c) => c.elector.isLeader()).map((c) => c.id);
  }

  /** Fails when two candidates' leadership periods overlap. */
  assertNeverTwoLeaders(): void {
    const leading = new Set<string>();
    for (const t of [...this.transitions].sort((a, b) => a.at - b.at || (a.kind === "stop" ? -1 : 1))) {
      if (t.kind === "start") {
        expect([...leading], `${t.who} started leading while others led`).toEqual([]);
        leading.add(t.who);
      } else leading.delete(t.who);
    }
  }

  /** Whenever the watch saw a new holder, every other candidate that had led had already stopped. */
  assertHandOversAfterStops(): void {
    for (const h of this.holders.filter((x) => x.holder !== "")) {
      for (const other of this.candidates.filter((c) => c.id !== h.holder)) {
        const mine = this.transitions.filter((t) => t.who === other.id && t.at <= h.at);
        expect(mine.at(-1)?.kind ?? "stop", `${h.holder} became the holder while ${other.id} still led`).toBe("stop");
      }
    }
  }

  async close(): Promise<void> {
    for (const c of this.candidates) c.stop.abort();
    await Promise.all(this.candidates.map((c) => c.ended));
    await sleep(500); // let the watch deliver the final release
    this.watchStop.abort();
    await this.watching;
  }
}

/** A watched election between candidates "a" and "b", once one of them has led for a second. */
async function twoCandidates(releaseOnCancel: boolean): Promise<{ e: Election; first: { c: Candidate; at: number } }> {
  const e = new Election(await namespace());
  e.watchLease();
  e.start("a", releaseOnCancel);
  e.start("b", releaseOnCancel);
  const first = await e.leader(10_000);
  await sleep(1_000);
  return { e, first };
}

describe("leader election on a real Lease", () => {
  it("lets exactly one of three candidates lead, named by the Lease", async () => {
    const e = new Election(await namespace());
    e.watchLease();
    for (const id of ["a", "b", "c"]) e.start(id, true);
    const { c } = await e.leader(10_000);
    await sleep(3 * TIMINGS.retryPeriodMs);
    expect(e.leaders()).toEqual([c.id]);
    const lease = await client.get<Lease>(Leases, { namespace: e.ns, name: LEASE_NAME });
    expect(lease.spec).toMatchObject({ holderIdentity: c.id, leaseDurationSeconds: 4, leaseTransitions: 0 });
    await e.close();
    e.assertNeverTwoLeaders();
  });

  it("hands over only after the lease expires when the leader is killed without releasing", async () => {
    const { e, first } = await twoCandidates(false);
    const killedAt = performance.now();
    first.c.stop.abort();
    await first.c.ended;
    const next = await e.leader(TIMINGS.leaseDurationMs + 4 * MAX_RETRY_MS, [first.c.id]);
    const takeoverMs = next.at - killedAt;
    // The last renewal was at most one retry period before the kill; the lease runs from the
    // moment the other candidate saw it.
    expect(takeoverMs).toBeGreaterThanOrEqual(TIMINGS.leaseDurationMs - TIMINGS.retryPeriodMs);
    expect(takeoverMs).toBeLessThan(TIMINGS.leaseDurationMs + 2 * MAX_RETRY_MS + 1_000);
    const lease = await client.get<Lease>(Leases, { namespace: e.ns, name: LEASE_NAME });
    expect(lease.spec).toMatchObject({ holderIdentity: next.c.id, leaseTransitions: 1 });
    await e.close();
    e.assertNeverTwoLeaders();
    e.assertHandOversAfterStops();
  });

  it("hands over at once when the leader releases the lease on a clean stop", async () => {
    const { e, first } = await twoCandidates(true);
    const stoppedAt = performance.now();
    first.c.stop.abort();
    const next = await e.leader(TIMINGS.leaseDurationMs, [first.c.id]);
    expect(next.at - stoppedAt).toBeLessThan(MAX_RETRY_MS + 1_000);
    expect(next.at - stoppedAt).toBeLessThan(TIMINGS.leaseDurationMs - TIMINGS.retryPeriodMs);
    await e.close();
    e.assertNeverTwoLeaders();
    e.assertHandOversAfterStops();
    expect(e.holders.map((h) => h.holder)).toEqual([first.c.id, "", next.c.id, ""]);
  });

  it("makes a leader cut off from the apiserver step down before another candidate takes over", async () => {
    const { e, first } = await twoCandidates(true);
    const cutAt = performance.now();
    first.c.cut.on = true;
    await expect(first.c.ended).resolves.toBe("lost");
    const stepDownMs = e.transitions.findLast((t) => t.who === first.c.id && t.kind === "stop")!.at - cutAt;
    expect(stepDownMs).toBeLessThanOrEqual(TIMINGS.renewDeadlineMs + 200);
    const next = await e.leader(TIMINGS.leaseDurationMs + 4 * MAX_RETRY_MS, [first.c.id]);
    expect(next.at - cutAt).toBeGreaterThanOrEqual(TIMINGS.leaseDurationMs - TIMINGS.retryPeriodMs);
    await e.close();
    e.assertNeverTwoLeaders();
    e.assertHandOversAfterStops();
  });
});
