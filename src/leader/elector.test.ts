/**
 * The election loop's timing on a FakeClock over the recording fake client (which only models
 * resourceVersion conflicts; the Lease itself on a real apiserver is tested in test/e2e/leader).
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { KubeApiError, KubeReason } from "../kube/index.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { silentLogger } from "../log/logger.js";
import { LeaderElector, type ElectionEnd } from "./elector.js";
import { LEASE_NAME, Leases, microTime, type Lease } from "./lease.js";

const NS = "argocd";
const T0 = Date.UTC(2026, 0, 1);

interface Candidate {
  elector: LeaderElector;
  stop: AbortController;
  ended: Promise<ElectionEnd>;
  /** [start, end) of each leadership period, in fake time. */
  periods: Array<[number, number | undefined]>;
  leadershipSignals: AbortSignal[];
}

function candidate(client: FakeKubeClient, clock: FakeClock, identity: string, releaseOnCancel = true): Candidate {
  const periods: Candidate["periods"] = [];
  const leadershipSignals: AbortSignal[] = [];
  const stop = new AbortController();
  const elector = new LeaderElector({
    client,
    namespace: NS,
    identity,
    clock,
    logger: silentLogger(),
    releaseOnCancel,
    random: () => 0,
    onStartedLeading: (signal) => {
      periods.push([clock.now(), undefined]);
      leadershipSignals.push(signal);
    },
    onStoppedLeading: () => {
      periods.at(-1)![1] = clock.now();
    },
  });
  return { elector, stop, ended: elector.run(stop.signal), periods, leadershipSignals };
}

/** Moves fake time forward in 100 ms steps, letting the loop's promise chains settle at each step. */
async function pass(clock: FakeClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    await clock.advanceAsync(Math.min(100, ms - t));
    for (let i = 0; i < 50; i++) await Promise.resolve();
  }
  for (let i = 0; i < 50; i++) await Promise.resolve();
}

function holder(client: FakeKubeClient): string | undefined {
  const lease: Lease | undefined = client.peek(Leases, { namespace: NS, name: LEASE_NAME });
  return lease?.spec?.holderIdentity;
}

const serverError = (): KubeApiError =>
  new KubeApiError({ status: 500, reason: KubeReason.ServerError, message: "etcdserver: request timed out" });

describe("LeaderElector", () => {
  it("creates a missing lease, renews it every retry period and releases it on a clean stop", async () => {
    const client = new FakeKubeClient();
    const clock = new FakeClock(T0);
    const a = candidate(client, clock, "a");
    await pass(clock, 0);
    expect(a.elector.isLeader()).toBe(true);
    expect(holder(client)).toBe("a");
    await pass(clock, 4_000);
    const lease = client.peek(Leases, { namespace: NS, name: LEASE_NAME }) as Lease;
    expect(lease.spec).toMatchObject({
      renewTime: microTime(T0 + 4_000),
      acquireTime: microTime(T0),
      leaseTransitions: 0,
      leaseDurationSeconds: 15,
    });
    a.stop.abort();
    await expect(a.ended).resolves.toBe("stopped");
    expect(holder(client)).toBe("");
    expect(a.periods).toEqual([[T0, T0 + 4_000]]);
    expect(a.leadershipSignals[0]!.aborted).toBe(true);
  });

  it("waits for another holder's lease to expire by its own clock before taking over", async () => {
    const client = new FakeKubeClient();
    client.seed(Leases, {
      metadata: { name: LEASE_NAME, namespace: NS },
      spec: { holderIdentity: "gone", leaseDurationSeconds: 15, leaseTransitions: 2 },
    });
    const clock = new FakeClock(T0);
    const b = candidate(client, clock, "b");
    await pass(clock, 14_000);
    expect(b.elector.isLeader()).toBe(false);
    await pass(clock, 2_000);
    expect(b.periods).toEqual([[T0 + 16_000, undefined]]);
    expect((client.peek(Leases, { namespace: NS, name: LEASE_NAME }) as Lease).spec?.leaseTransitions).toBe(3);
    b.stop.abort();
    await b.ended;
  });

  it("steps down, without releasing, when renewals fail for the renew deadline", async () => {
    const client = new FakeKubeClient();
    const clock = new FakeClock(T0);
    const a = candidate(client, clock, "a");
    await pass(clock, 0);
    client.interceptors.update = () => Promise.reject(serverError());
    await pass(clock, 12_000);
    await expect(a.ended).resolves.toBe("lost");
    expect(a.periods).toEqual([[T0, T0 + 10_000]]);
    expect(holder(client)).toBe("a");
  });

  it("steps down before the lease could expire when the apiserver stops answering", async () => {
    const client = new FakeKubeClient();
    const clock = new FakeClock(T0);
    const a = candidate(client, clock, "a");
    await pass(clock, 0);
    client.interceptors.get = () => new Promise(() => {});
    await pass(clock, 15_000);
    await expect(a.ended).resolves.toBe("lost");
    expect(a.periods[0]![1]).toBeLessThan(T0 + 15_000);
  });

  it("lets exactly one of two candidates lead, and the other take over only after a killed leader's lease expires", async () => {
    const client = new FakeKubeClient();
    const clock = new FakeClock(T0);
    const a = candidate(client, clock, "a", false);
    const b = candidate(client, clock, "b", false);
    await pass(clock, 30_000);
    expect([a.elector.isLeader(), b.elector.isLeader()]).toEqual([true, false]);
    a.stop.abort();
    await a.ended;
    await pass(clock, 30_000);
    const [[, aEnd]] = a.periods as [[number, number]];
    const [[bStart]] = b.periods as [[number, number | undefined]];
    expect(bStart).toBeGreaterThanOrEqual(aEnd + 15_000 - 2_000);
    expect(holder(client)).toBe("b");
    b.stop.abort();
    await b.ended;
  });

  it("refuses timings where the renew deadline is not shorter than the lease", () => {
    expect(
      () =>
        new LeaderElector({
          client: new FakeKubeClient(),
          namespace: NS,
          identity: "a",
          clock: new FakeClock(),
          logger: silentLogger(),
          timings: { leaseDurationMs: 10_000, renewDeadlineMs: 10_000 },
          onStartedLeading: () => {},
        }),
    ).toThrow("the lease duration must be greater than the renew deadline");
  });
});
