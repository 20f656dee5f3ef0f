import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_TIMINGS, decide, microTime, observe, releaseSpec, type Decision, type DecisionInput, type Lease } from "./lease.js";

const T0 = Date.UTC(2026, 0, 1);
const ME = "me_1";
const OTHER = "other_2";

function input(over: Partial<DecisionInput>): DecisionInput {
  return { observed: undefined, identity: ME, now: T0, timings: DEFAULT_TIMINGS, leadingRenewedAt: undefined, ...over };
}

const seen = (holder: string, at: number, extra: Record<string, unknown> = {}): DecisionInput["observed"] => ({
  spec: {
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: microTime(T0 - 60_000),
    renewTime: microTime(at),
    leaseTransitions: 3,
    ...extra,
  },
  resourceVersion: "42",
  at,
});

describe("decide", () => {
  it.each<{ name: string; in: Partial<DecisionInput>; expected: Partial<Decision> & { action: Decision["action"] } }>([
    {
      name: "creates the lease when it does not exist",
      in: {},
      expected: {
        action: "create",
        spec: { holderIdentity: ME, leaseDurationSeconds: 15, acquireTime: microTime(T0), renewTime: microTime(T0), leaseTransitions: 0 },
      },
    },
    {
      name: "waits while another holder's lease has not expired by the local clock",
      in: { observed: seen(OTHER, T0 - 14_999) },
      expected: { action: "wait", holder: OTHER, expiresAt: T0 + 1 },
    },
    {
      name: "takes over a lease that expired, bumping the transitions and keeping the resourceVersion",
      in: { observed: seen(OTHER, T0 - 15_000) },
      expected: {
        action: "update",
        kind: "acquire",
        resourceVersion: "42",
        spec: { holderIdentity: ME, leaseDurationSeconds: 15, acquireTime: microTime(T0), renewTime: microTime(T0), leaseTransitions: 4 },
      },
    },
    {
      name: "takes over a released lease at once",
      in: { observed: seen("", T0, { leaseDurationSeconds: 1 }) },
      expected: { action: "update", kind: "acquire" },
    },
    {
      name: "honours the lease's own duration rather than the candidate's",
      in: { observed: seen(OTHER, T0 - 20_000, { leaseDurationSeconds: 30 }) },
      expected: { action: "wait", holder: OTHER, expiresAt: T0 + 10_000 },
    },
    {
      name: "renews its own lease keeping acquireTime and transitions",
      in: { observed: seen(ME, T0 - 2_000), leadingRenewedAt: T0 - 2_000 },
      expected: {
        action: "update",
        kind: "renew",
        spec: {
          holderIdentity: ME,
          leaseDurationSeconds: 15,
          acquireTime: microTime(T0 - 60_000),
          renewTime: microTime(T0),
          leaseTransitions: 3,
        },
      },
    },
    {
      name: "resumes a lease still recorded under its own identity",
      in: { observed: seen(ME, T0 - 1_000) },
      expected: { action: "update", kind: "renew" },
    },
    {
      name: "reports the loss when the last renewal is older than the renew deadline",
      in: { observed: seen(ME, T0 - 10_000), leadingRenewedAt: T0 - 10_000 },
      expected: { action: "lost", reason: "failed to renew the lease within 10000 ms" },
    },
    {
      name: "reports the loss when a leader sees someone else holding the lease",
      in: { observed: seen(OTHER, T0 - 1_000), leadingRenewedAt: T0 - 2_000 },
      expected: { action: "lost", reason: `the lease is held by ${OTHER}` },
    },
  ])("$name", ({ in: over, expected }) => {
    expect(decide(input(over))).toMatchObject(expected);
  });

  it("never lets a candidate acquire while another holder's lease is valid, whatever the times", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60_000 }), fc.integer({ min: 1, max: 60 }), (age, seconds) => {
        const d = decide(input({ observed: seen(OTHER, T0 - age, { leaseDurationSeconds: seconds }) }));
        expect(d.action).toBe(age < seconds * 1000 ? "wait" : "update");
      }),
    );
  });
});

describe("observe", () => {
  const lease = (rv: string, holder: string): Lease => ({ metadata: { resourceVersion: rv }, spec: { holderIdentity: holder } });

  it("keeps the first observation time while the record is unchanged", () => {
    const first = observe(undefined, lease("1", OTHER), T0);
    expect(observe(first, lease("1", OTHER), T0 + 9_000)).toBe(first);
  });

  it("restarts the clock when the record changes", () => {
    const first = observe(undefined, lease("1", OTHER), T0);
    expect(observe(first, lease("2", OTHER), T0 + 9_000).at).toBe(T0 + 9_000);
  });
});

describe("microTime and releaseSpec", () => {
  it("formats Kubernetes MicroTime with six fractional digits", () => {
    expect(microTime(Date.UTC(2026, 1, 3, 4, 5, 6, 789))).toBe("2026-02-03T04:05:06.789000Z");
  });

  it("releases with an empty holder, a one-second duration and the transitions kept", () => {
    expect(releaseSpec({ holderIdentity: ME, leaseTransitions: 5 }, T0)).toEqual({
      holderIdentity: "",
      leaseDurationSeconds: 1,
      acquireTime: microTime(T0),
      renewTime: microTime(T0),
      leaseTransitions: 5,
    });
  });
});
