/**
 * The membership loop's timing on a FakeClock over the recording fake client (which models
 * resourceVersions, label selectors and delete preconditions; the real apiserver is exercised in
 * test/integration/shard): joining, warm-up, renewals, graceful leave, death, partition, reaping,
 * and that no key ever has two owners along the way.
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { KubeApiError, KubeReason } from "../kube/index.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { Leases, type Lease } from "../leader/lease.js";
import { silentLogger } from "../log/logger.js";
import { memberLeaseName } from "./member-lease.js";
import { SHARD_GROUP_LABEL, type MembershipView } from "./membership.js";
import { ShardMembership } from "./membership-shell.js";

const NS = "argocd";
const GROUP = "appsets";
const T0 = Date.UTC(2026, 0, 1);
/** Lease 15 s, renew deadline 10 s, retry 2 s (the defaults). */
const L = 15_000;
const RENEW_DEADLINE = 10_000;
const RETRY = 2_000;
const KEYS = Array.from({ length: 60 }, (_, i) => `uid-${String(i)}`);

interface Member {
  identity: string;
  membership: ShardMembership;
  stop: AbortController;
  ended: Promise<void>;
  /** Every view reported, with the fake time it was reported at. */
  changes: Array<{ at: number; view: MembershipView }>;
}

function member(client: FakeKubeClient, clock: FakeClock, identity: string, deleteOnStop = true): Member {
  const changes: Member["changes"] = [];
  const stop = new AbortController();
  const membership = new ShardMembership({
    client,
    namespace: NS,
    group: GROUP,
    identity,
    clock,
    logger: silentLogger(),
    deleteOnStop,
    onChange: (view) => changes.push({ at: clock.now(), view }),
  });
  return { identity, membership, stop, ended: membership.run(stop.signal), changes };
}

/**
 * Moves fake time forward in 100 ms steps, letting the loops' promise chains settle at each step,
 * and checks at every step that no key has two owners.
 */
async function pass(clock: FakeClock, ms: number, members: readonly Member[] = []): Promise<void> {
  for (let t = 0; t <= ms; t += 100) {
    if (t > 0) await clock.advanceAsync(100);
    for (let i = 0; i < 50; i++) await Promise.resolve();
    for (const key of KEYS) expect(members.filter((m) => m.membership.owns(key)).length).toBeLessThanOrEqual(1);
  }
}

function ownLease(client: FakeKubeClient, identity: string): Lease | undefined {
  return client.peek(Leases, { namespace: NS, name: memberLeaseName(GROUP, identity) });
}

const unavailable = (): KubeApiError =>
  new KubeApiError({ status: 503, reason: KubeReason.ServerError, message: "etcdserver: request timed out" });

describe("ShardMembership", () => {
  it("creates its labelled Lease, counts itself after one renew deadline, renews every retry period and deletes its Lease on a clean stop", async () => {
    const client = new FakeKubeClient();
    const clock = new FakeClock(T0);
    const a = member(client, clock, "host-a_1");
    await pass(clock, 0);
    expect(ownLease(client, "host-a_1")).toMatchObject({
      metadata: { labels: { [SHARD_GROUP_LABEL]: GROUP } },
      spec: { holderIdentity: "host-a_1", leaseDurationSeconds: 15 },
    });
    expect(a.membership.view()).toMatchObject({ members: [], selfLive: false, notLiveReason: "warming-up" });
    await pass(clock, RENEW_DEADLINE);
    expect(a.changes.map((c) => [c.at - T0, c.view.members])).toEqual([[RENEW_DEADLINE, ["host-a_1"]]]);
    expect(KEYS.every((k) => a.membership.owns(k))).toBe(true);
    const renewTime = ownLease(client, "host-a_1")?.spec?.renewTime;
    await pass(clock, RETRY);
    expect(ownLease(client, "host-a_1")?.spec?.renewTime).not.toBe(renewTime);
    a.stop.abort();
    await a.ended;
    expect(ownLease(client, "host-a_1")).toBeUndefined();
    expect(a.changes.at(-1)?.view).toMatchObject({ members: [], selfLive: false });
    expect(KEYS.some((k) => a.membership.owns(k))).toBe(false);
  });

  it("lets three members see each other and split the keys, each key owned by exactly one", async () => {
    const client = new FakeKubeClient();
    const clock = new FakeClock(T0);
    const members = ["a", "b", "c"].map((id) => member(client, clock, id));
    await pass(clock, RENEW_DEADLINE + RETRY, members);
    for (const m of members) expect(m.membership.view().members).toEqual(["a", "b", "c"]);
    for (const key of KEYS) expect(members.filter((m) => m.membership.owns(key))).toHaveLength(1);
    for (const m of members) expect(KEYS.filter((k) => m.membership.owns(k)).length).toBeGreaterThan(0);
    for (const m of members) m.stop.abort();
    await Promise.all(members.map((m) => m.ended));
  });

  it("lets a joining member take keys only once the others have let them go", async () => {
    const client = new FakeKubeClient();
    const clock = new FakeClock(T0);
    const [a, b] = [member(client, clock, "a"), member(client, clock, "b")];
    await pass(clock, RENEW_DEADLINE + RETRY + 1_000, [a, b]);
    const c = member(client, clock, "c");
    await pass(clock, RENEW_DEADLINE + RETRY, [a, b, c]);
    for (const m of [a, b, c]) expect(m.membership.view().members).toEqual(["a", "b", "c"]);
    expect(KEYS.filter((k) => c.membership.owns(k)).length).toBeGreaterThan(0);
    for (const m of [a, b, c]) m.stop.abort();
    await Promise.all([a, b, c].map((m) => m.ended));
  });

  it("hands a leaving member's keys over at the peers' next round", async () => {
    const client = new FakeKubeClient();
    const clock = new FakeClock(T0);
    const [a, b] = [member(client, clock, "a"), member(client, clock, "b")];
    await pass(clock, RENEW_DEADLINE + RETRY, [a, b]);
    const left = clock.now();
    b.stop.abort();
    await b.ended;
    await pass(clock, RETRY, [a, b]);
    const change = a.changes.at(-1)!;
    expect(change.view.members).toEqual(["a"]);
    expect(change.at - left).toBeLessThanOrEqual(RETRY);
    expect(KEYS.every((k) => a.membership.owns(k))).toBe(true);
    a.stop.abort();
    await a.ended;
  });

  it("takes a dead member's keys over once its Lease has gone unchanged for a renew deadline and a retry period: within one lease duration", async () => {
    const client = new FakeKubeClient();
    const clock = new FakeClock(T0);
    const [a, b] = [member(client, clock, "a"), member(client, clock, "b", false)];
    await pass(clock, RENEW_DEADLINE + RETRY, [a, b]);
    const died = clock.now();
    b.stop.abort();
    await b.ended;
    expect(ownLease(client, "b")).toBeDefined();
    await pass(clock, L + 2 * RETRY, [a]);
    const change = a.changes.at(-1)!;
    expect(change.view.members).toEqual(["a"]);
    expect(change.at - died).toBeGreaterThanOrEqual(RENEW_DEADLINE);
    expect(change.at - died).toBeLessThanOrEqual(RENEW_DEADLINE + 2 * RETRY);
    expect(change.at - died).toBeLessThan(L);
    a.stop.abort();
    await a.ended;
  });

  it("stops owning when its renewals fail for the renew deadline, before any peer takes over", async () => {
    const client = new FakeKubeClient();
    const clock = new FakeClock(T0);
    const [a, b] = [member(client, clock, "a"), member(client, clock, "b")];
    await pass(clock, RENEW_DEADLINE + RETRY, [a, b]);
    // b is cut off: every call it makes fails; a's calls go through.
    const cutOff = clock.now();
    const inner = client.interceptors;
    inner.update = (action, next) => (action.name === memberLeaseName(GROUP, "b") ? Promise.reject(unavailable()) : next());
    await pass(clock, L + 2 * RETRY, [a, b]);
    const bStopped = b.changes.find((c) => !c.view.selfLive)!.at;
    const aTookOver = a.changes.find((c) => c.view.members.join() === "a")!.at;
    expect(bStopped - cutOff).toBeLessThanOrEqual(RENEW_DEADLINE);
    expect(aTookOver).toBeGreaterThan(bStopped);
    for (const m of [a, b]) m.stop.abort();
    await Promise.all([a.ended, b.ended]);
  });

  it("deletes a Lease of the group left unchanged for two lease durations, on its resourceVersion", async () => {
    const client = new FakeKubeClient();
    client.seed(Leases, {
      metadata: { name: "appsets-member-dead", namespace: NS, labels: { [SHARD_GROUP_LABEL]: GROUP } },
      spec: { holderIdentity: "dead", leaseDurationSeconds: 15 },
    });
    client.seed(Leases, {
      metadata: { name: "other-group", namespace: NS, labels: { [SHARD_GROUP_LABEL]: "other" } },
      spec: { holderIdentity: "x" },
    });
    const clock = new FakeClock(T0);
    const a = member(client, clock, "a");
    await pass(clock, 0);
    expect(a.membership.view().members).toEqual(["dead"]);
    await pass(clock, 2 * L - RETRY);
    expect(client.peek(Leases, { namespace: NS, name: "appsets-member-dead" })).toBeDefined();
    await pass(clock, 2 * RETRY);
    expect(client.peek(Leases, { namespace: NS, name: "appsets-member-dead" })).toBeUndefined();
    expect(client.peek(Leases, { namespace: NS, name: "other-group" })).toBeDefined();
    a.stop.abort();
    await a.ended;
  });

  it("recreates its Lease, and warms up again, when the Lease was deleted under it", async () => {
    const client = new FakeKubeClient();
    const clock = new FakeClock(T0);
    const a = member(client, clock, "a");
    await pass(clock, RENEW_DEADLINE + RETRY);
    expect(a.membership.view().selfLive).toBe(true);
    await client.delete(Leases, { namespace: NS, name: memberLeaseName(GROUP, "a") });
    await pass(clock, 2 * RETRY);
    expect(ownLease(client, "a")).toBeDefined();
    expect(a.membership.view()).toMatchObject({ selfLive: false, notLiveReason: "warming-up" });
    await pass(clock, RENEW_DEADLINE);
    expect(a.membership.view().selfLive).toBe(true);
    a.stop.abort();
    await a.ended;
  });

  it.each([
    {
      name: "a renew deadline not shorter than the lease",
      timings: { leaseDurationMs: 10_000, renewDeadlineMs: 10_000 },
      group: GROUP,
      error: "the lease duration must be greater than the renew deadline",
    },
    {
      name: "fewer than two retries per renew deadline",
      timings: { retryPeriodMs: 6_000 },
      group: GROUP,
      error: "the renew deadline must be at least two retry periods",
    },
    { name: "a group name that is not a label value", timings: {}, group: "Bad_Group", error: "shard group 'Bad_Group' must be" },
  ])("refuses $name", ({ timings, group, error }) => {
    const options = {
      client: new FakeKubeClient(),
      namespace: NS,
      group,
      identity: "a",
      clock: new FakeClock(),
      logger: silentLogger(),
      timings,
    };
    expect(() => new ShardMembership(options)).toThrow(error);
  });
});
