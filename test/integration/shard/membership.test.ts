/**
 * Shard membership against a real apiserver: three replicas see each other; one that stops cleanly
 * is gone for the others at their next list; one that dies (its loop stops without deleting its
 * Lease) is gone for the others once its Lease has gone unchanged for a lease duration, not before;
 * at no sampled moment does a key have two owners.
 *
 * Timings are shortened (lease 4 s, renew deadline 3 s, retry 0.5 s) to keep the run short; the
 * rule is the same with the defaults (15 s / 10 s / 2 s).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SystemClock } from "../../../src/clock/index.js";
import { KubeApiClient, resources } from "../../../src/kube/index.js";
import { Leases, type Lease, type LeaseTimings } from "../../../src/leader/index.js";
import { silentLogger } from "../../../src/log/logger.js";
import { SHARD_GROUP_LABEL, ShardMembership, type MembershipView } from "../../../src/shard/index.js";
import { startControlPlane, type ControlPlane } from "../../cluster/control-plane.js";

const NS = "argocd";
const GROUP = "appsets";
const TIMINGS: LeaseTimings = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
const KEYS = Array.from({ length: 90 }, (_, i) => `uid-${String(i)}`);
/** Room for the apiserver's answers and the event loop on a busy machine. */
const SLACK_MS = 1_000;

let cp: ControlPlane;
let client: KubeApiClient;

beforeAll(async () => {
  cp = await startControlPlane({ components: ["etcd", "apiserver"], installCrds: false });
  client = KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath });
  await client.create(resources.Namespaces, { metadata: { name: NS } });
}, 180_000);

afterAll(async () => {
  await client?.transport.close();
  await cp?.stop();
}, 60_000);

interface Member {
  identity: string;
  membership: ShardMembership;
  stop: AbortController;
  ended: Promise<void>;
  /** Every reported view, on the process's monotonic clock. */
  changes: Array<{ at: number; view: MembershipView }>;
}

function member(identity: string, deleteOnStop = true): Member {
  const changes: Member["changes"] = [];
  const stop = new AbortController();
  const membership = new ShardMembership({
    client,
    namespace: NS,
    group: GROUP,
    identity,
    clock: new SystemClock(),
    logger: silentLogger(),
    timings: TIMINGS,
    deleteOnStop,
    onChange: (view) => changes.push({ at: performance.now(), view }),
  });
  return { identity, membership, stop, ended: membership.run(stop.signal), changes };
}

/** Polls `check` every 50 ms for up to `ms`, asserting at each poll that no key has two owners. */
async function until(members: readonly Member[], ms: number, check: () => boolean): Promise<void> {
  const end = performance.now() + ms;
  for (;;) {
    for (const key of KEYS) expect(members.filter((m) => m.membership.owns(key)).length).toBeLessThanOrEqual(1);
    if (check()) return;
    if (performance.now() > end) throw new Error(`not within ${ms} ms`);
    await sleep(50);
  }
}

const sees = (m: Member, ids: string[]): boolean => m.membership.view().members.join() === ids.join();

describe("shard membership on a real apiserver", () => {
  it("lets members see each other, loses a stopped one at once and a dead one after a lease duration", async () => {
    const [a, b, c] = [member("a"), member("b"), member("c-dies", false)];
    const all = [a, b, c];
    const ids = ["a", "b", "c-dies"];
    await until(all, TIMINGS.renewDeadlineMs + 2 * TIMINGS.retryPeriodMs + SLACK_MS, () => all.every((m) => sees(m, ids)));
    for (const key of KEYS) expect(all.filter((m) => m.membership.owns(key))).toHaveLength(1);
    const leases = await client.list<Lease>(Leases, { namespace: NS, labelSelector: `${SHARD_GROUP_LABEL}=${GROUP}` });
    expect(leases.items.map((l) => l.spec?.holderIdentity).sort()).toEqual(ids);

    // A clean stop: b deletes its Lease; a and c see it gone at their next list.
    const stopped = performance.now();
    b.stop.abort();
    await b.ended;
    await until([a, c], TIMINGS.retryPeriodMs + SLACK_MS, () => sees(a, ["a", "c-dies"]) && sees(c, ["a", "c-dies"]));
    expect(performance.now() - stopped).toBeLessThan(TIMINGS.retryPeriodMs + SLACK_MS);

    // A death: c's loop stops without deleting its Lease; a sees it gone a renew deadline and a
    // retry period after it last saw c's Lease change: within one lease duration.
    c.stop.abort();
    const died = performance.now();
    await c.ended;
    await until([a], TIMINGS.renewDeadlineMs + 2 * TIMINGS.retryPeriodMs + SLACK_MS, () => sees(a, ["a"]));
    // When a's view first showed c gone (its view is judged at the present; the loop reports the
    // change at its next round, which may come later on a loaded machine).
    const gone = performance.now() - died;
    expect(gone).toBeGreaterThanOrEqual(TIMINGS.renewDeadlineMs);
    expect(gone).toBeLessThanOrEqual(TIMINGS.renewDeadlineMs + 2 * TIMINGS.retryPeriodMs + SLACK_MS);
    expect(KEYS.every((k) => a.membership.owns(k))).toBe(true);

    a.stop.abort();
    await a.ended;
  });
});
