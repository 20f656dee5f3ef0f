/**
 * The membership rule as tables of times: when a peer counts as live (by this replica's own
 * observation times), when this replica counts itself, and which Leases may be reaped.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_TIMINGS, type Lease, type Observation } from "../leader/lease.js";
import { membership, observeGroup, type SelfState } from "./membership.js";

const T0 = Date.UTC(2026, 0, 1);
/** Lease 15 s, renew deadline 10 s, retry 2 s. */
const timings = DEFAULT_TIMINGS;

function lease(name: string, holder: string, resourceVersion: string, leaseDurationSeconds?: number): Lease {
  return {
    metadata: { name, resourceVersion },
    spec: { holderIdentity: holder, ...(leaseDurationSeconds ? { leaseDurationSeconds } : {}) },
  };
}

/** An observation of `holder`'s Lease first seen at T0 + `seenAt` ms. */
function seen(holder: string, seenAt: number, leaseDurationSeconds = 15): [string, Observation] {
  return [`lease-${holder}`, { spec: { holderIdentity: holder, leaseDurationSeconds }, resourceVersion: `rv-${holder}`, at: T0 + seenAt }];
}

/** This replica "me", joined at T0 + `joined` and last complete round at T0 + `roundOk` (ms). */
function me(joined: number | undefined, roundOk: number | undefined): SelfState {
  return {
    identity: "me",
    joinedAt: joined === undefined ? undefined : T0 + joined,
    roundOkAt: roundOk === undefined ? undefined : T0 + roundOk,
  };
}

describe("membership", () => {
  it.each([
    {
      name: "a peer is live for one renew deadline and one retry period after this replica last saw its Lease change",
      observations: [seen("a", 0)],
      self: me(undefined, undefined),
      at: 11_999,
      members: ["a"],
    },
    {
      name: "a peer is gone once a renew deadline and a retry period have passed since the last change this replica saw",
      observations: [seen("a", 0)],
      self: me(undefined, undefined),
      at: 12_000,
      members: [],
    },
    {
      name: "a Lease stating a shorter leaseDurationSeconds ends its holder's life sooner",
      observations: [seen("a", 0, 11)],
      self: me(undefined, undefined),
      at: 11_000,
      members: [],
    },
    {
      name: "a Lease stating a longer leaseDurationSeconds does not make its holder live longer",
      observations: [seen("a", 0, 40)],
      self: me(undefined, undefined),
      at: 12_000,
      members: [],
    },
    {
      name: "a Lease with no holder (given up) holds no member",
      observations: [["lease-x", { spec: { holderIdentity: "" }, resourceVersion: "1", at: T0 }] as [string, Observation]],
      self: me(undefined, undefined),
      at: 0,
      members: [],
    },
    {
      name: "this replica does not count itself before its Lease exists",
      observations: [seen("a", 0)],
      self: me(undefined, undefined),
      at: 1_000,
      members: ["a"],
    },
    {
      name: "this replica does not count itself during the renew deadline after joining",
      observations: [seen("a", 0)],
      self: me(0, 8_000),
      at: 9_999,
      members: ["a"],
    },
    {
      name: "this replica counts itself once warmed up, while its last complete round is within the renew deadline",
      observations: [seen("a", 0), seen("b", 5_000)],
      self: me(0, 8_000),
      at: 10_000,
      members: ["a", "b", "me"],
    },
    {
      name: "this replica stops counting itself when its last complete round is a renew deadline old",
      observations: [seen("a", 12_000)],
      self: me(0, 8_000),
      at: 18_000,
      members: ["a"],
    },
    {
      name: "its own Lease in the list does not count for this replica: only its rounds do",
      observations: [seen("me", 17_000)],
      self: me(0, 8_000),
      at: 18_000,
      members: [],
    },
    {
      name: "two Leases naming one holder give one member",
      observations: [seen("a", 0), ["lease-a2", { spec: { holderIdentity: "a" }, resourceVersion: "9", at: T0 }] as [string, Observation]],
      self: me(undefined, undefined),
      at: 0,
      members: ["a"],
    },
  ])("$name", ({ observations, self, at, members }) => {
    const view = membership({ observations: new Map(observations), self, now: T0 + at, timings });
    expect(view.members).toEqual(members);
    expect(view.selfLive).toBe(members.includes("me"));
  });

  it.each([
    { name: "not joined", self: me(undefined, undefined), at: 0, reason: "not-joined", next: undefined },
    { name: "warming up: the view changes when the warm-up ends", self: me(0, 2_000), at: 3_000, reason: "warming-up", next: 10_000 },
    { name: "live: the view changes at the renew deadline", self: me(0, 20_000), at: 21_000, reason: undefined, next: 30_000 },
    { name: "past the renew deadline", self: me(0, 20_000), at: 30_000, reason: "renew-deadline-passed", next: undefined },
  ])("says why this replica is not live and when that changes: $name", ({ self, at, reason, next }) => {
    const view = membership({ observations: new Map(), self, now: T0 + at, timings });
    expect(view.notLiveReason).toBe(reason);
    expect(view.nextChangeAt).toBe(next === undefined ? undefined : T0 + next);
  });

  it("changes next when the first peer expires, if that comes before this replica's renew deadline", () => {
    const observations = new Map([seen("a", 10_000), seen("b", 13_000)]);
    const view = membership({ observations, self: me(0, 20_000), now: T0 + 21_000, timings });
    expect(view.members).toEqual(["a", "b", "me"]);
    expect(view.nextChangeAt).toBe(T0 + 22_000);
  });

  it.each([
    { name: "a live peer is not reapable", seenAt: 0, at: 11_000, reapable: false },
    { name: "a gone peer is not reapable until two lease durations have passed", seenAt: 0, at: 29_999, reapable: false },
    { name: "a peer unchanged for two lease durations is reapable on its resourceVersion", seenAt: 0, at: 30_000, reapable: true },
  ])("$name", ({ seenAt, at, reapable }) => {
    const view = membership({ observations: new Map([seen("a", seenAt)]), self: me(undefined, undefined), now: T0 + at, timings });
    expect(view.reapable).toEqual(reapable ? [{ name: "lease-a", resourceVersion: "rv-a" }] : []);
  });
});

describe("observeGroup", () => {
  it("keeps the observation time of an unchanged Lease, moves it on a change, drops a Lease no longer listed", () => {
    const first = observeGroup(new Map(), [lease("l-a", "a", "1"), lease("l-b", "b", "1")], T0);
    const second = observeGroup(first, [lease("l-a", "a", "1"), lease("l-c", "c", "4", 30)], T0 + 5_000);
    expect([...second.keys()]).toEqual(["l-a", "l-c"]);
    expect(second.get("l-a")?.at).toBe(T0);
    expect(second.get("l-c")).toEqual({ spec: { holderIdentity: "c", leaseDurationSeconds: 30 }, resourceVersion: "4", at: T0 + 5_000 });
    const third = observeGroup(second, [lease("l-a", "a", "2")], T0 + 9_000);
    expect(third.get("l-a")?.at).toBe(T0 + 9_000);
  });
});
