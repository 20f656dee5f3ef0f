import { describe, expect, it } from "vitest";
import { microTime, type Lease } from "../leader/lease.js";
import { groupSnapshot } from "./snapshot.js";

const T0 = Date.UTC(2026, 0, 1);

function lease(name: string, holder: string, renewedAt: number | undefined, leaseDurationSeconds?: number): Lease {
  return {
    metadata: { name },
    spec: {
      holderIdentity: holder,
      ...(renewedAt === undefined ? {} : { renewTime: microTime(T0 + renewedAt) }),
      ...(leaseDurationSeconds === undefined ? {} : { leaseDurationSeconds }),
    },
  };
}

const ids = (ms: ReadonlyArray<{ identity: string }>): string[] => ms.map((m) => m.identity);

describe("groupSnapshot", () => {
  it.each([
    { name: "live until renewTime + leaseDurationSeconds", leases: [lease("l-a", "a", 0, 15)], at: 14_999, live: ["a"], notLive: [] },
    { name: "not live from that moment on", leases: [lease("l-a", "a", 0, 15)], at: 15_000, live: [], notLive: ["a"] },
    { name: "the Lease's own duration counts", leases: [lease("l-a", "a", 0, 40)], at: 39_000, live: ["a"], notLive: [] },
    { name: "15 s without a duration", leases: [lease("l-a", "a", 0)], at: 15_000, live: [], notLive: ["a"] },
    { name: "never live without a renewTime", leases: [lease("l-a", "a", undefined, 15)], at: 0, live: [], notLive: ["a"] },
    { name: "no member without a holder", leases: [lease("l-x", "", 0, 15)], at: 0, live: [], notLive: [] },
    {
      name: "one member for two Leases of one holder, live when either is",
      leases: [lease("l-a", "a", 0, 15), lease("l-a2", "a", 10_000, 15)],
      at: 20_000,
      live: ["a"],
      notLive: [],
    },
    {
      name: "sorted by identity",
      leases: [lease("l-c", "c", 0, 15), lease("l-a", "a", 0, 15), lease("l-b", "b", -20_000, 15)],
      at: 1_000,
      live: ["a", "c"],
      notLive: ["b"],
    },
  ])("$name", ({ leases, at, live, notLive }) => {
    const snapshot = groupSnapshot(leases, T0 + at);
    expect(ids(snapshot.live)).toEqual(live);
    expect(ids(snapshot.notLive)).toEqual(notLive);
  });

  it("keeps what the Lease says", () => {
    expect(groupSnapshot([lease("l-a", "a", 2_000, 20)], T0).live).toEqual([
      { identity: "a", lease: "l-a", renewTime: "2026-01-01T00:00:02.000000Z", leaseDurationSeconds: 20, expiresAt: T0 + 22_000 },
    ]);
  });
});
