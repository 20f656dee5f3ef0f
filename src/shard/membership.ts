/**
 * The pure core of shard membership: which replicas of a shard group are live, as one replica sees
 * them. Every replica holds a `coordination.k8s.io/v1` Lease of its own, labelled
 * {@link SHARD_GROUP_LABEL} with the group's name, whose `holderIdentity` is the replica's identity.
 *
 * - A peer is live until one renew deadline and one retry period (at most its Lease's
 *   `leaseDurationSeconds`) after the moment this replica last saw its Lease change (never by
 *   comparing `renewTime` with this replica's clock, so clock skew does not matter; the rule of
 *   src/leader/lease.ts). A deleted Lease is gone at once.
 * - This replica counts itself live only while its last complete round (renew its own Lease, then
 *   list the group) started less than the renew deadline ago. A peer saw that renewal after the
 *   round started, so a replica cut off from the apiserver stops counting itself at least one retry
 *   period before any peer counts it gone (the group's replicas share one configuration). A dead
 *   replica's keys move at most a renew deadline and two retry periods after its death (its last
 *   renewal is seen at most a retry period late): within one lease duration at the defaults.
 * - A replica that has just created its Lease waits one renew deadline before counting itself: by
 *   then every peer that still counts itself live has listed the group since the Lease appeared, so
 *   no peer still owns a key the newcomer would take.
 * - A peer's Lease unchanged for two lease durations may be deleted (with its resourceVersion as a
 *   precondition, so a renewal in between wins): replicas that died leave no Leases behind for good.
 */
import { observe, type Lease, type LeaseTimings, type Observation } from "../leader/lease.js";

/** The label that puts a member Lease in a shard group; its value is the group's name. */
export const SHARD_GROUP_LABEL = "applicationset.argoproj.io/shard-group";

/** The default shard group's name. */
export const DEFAULT_SHARD_GROUP = "applicationset-controller";

/** What this replica knows of itself. Times are this replica's clock readings. */
export interface SelfState {
  identity: string;
  /** When the creation of this replica's current Lease returned; undefined while it has none. */
  joinedAt: number | undefined;
  /** When the last round in which both the renewal and the list succeeded started; undefined before one did. */
  roundOkAt: number | undefined;
}

/** Why this replica does not count itself live. */
export type NotLiveReason = "not-joined" | "warming-up" | "renew-deadline-passed";

/** One replica's view of the group. */
export interface MembershipView {
  /** The live members' identities, sorted; this replica's own only while it counts itself live. */
  members: string[];
  selfLive: boolean;
  /** Why this replica does not count itself live; undefined while it does. */
  notLiveReason: NotLiveReason | undefined;
  /** The earliest time at which this view changes with no new observation; undefined when never. */
  nextChangeAt: number | undefined;
  /** Peers' Leases unchanged for two lease durations: safe to delete on these resourceVersions. */
  reapable: Array<{ name: string; resourceVersion: string }>;
}

/** Everything one view depends on. */
export interface MembershipInput {
  /** This replica's observations of the group's Leases, by Lease name (see {@link observeGroup}). */
  observations: ReadonlyMap<string, Observation>;
  self: SelfState;
  now: number;
  timings: LeaseTimings;
}

/**
 * Records a list of the group's Leases: an observation's time moves only when its record changed,
 * and Leases no longer listed are dropped (a deleted member is gone at once).
 */
export function observeGroup(previous: ReadonlyMap<string, Observation>, leases: readonly Lease[], now: number): Map<string, Observation> {
  const next = new Map<string, Observation>();
  for (const lease of leases) {
    const name = lease.metadata?.name;
    if (name !== undefined) next.set(name, observe(previous.get(name), lease, now));
  }
  return next;
}

/** The lease duration a peer's Lease states, or this replica's setting when it states none. */
function leaseMs(obs: Observation, timings: LeaseTimings): number {
  const seconds = obs.spec.leaseDurationSeconds;
  return seconds !== undefined && seconds > 0 ? seconds * 1000 : timings.leaseDurationMs;
}

/** Until when a peer's observed Lease keeps it live. */
function liveUntil(obs: Observation, timings: LeaseTimings): number {
  return obs.at + Math.min(leaseMs(obs, timings), timings.renewDeadlineMs + timings.retryPeriodMs);
}

/** Whether this replica counts itself live, and until when (or from when, while warming up). */
function selfStatus(
  self: SelfState,
  now: number,
  timings: LeaseTimings,
): { reason: NotLiveReason | undefined; changeAt: number | undefined } {
  if (self.joinedAt === undefined || self.roundOkAt === undefined) return { reason: "not-joined", changeAt: undefined };
  const deadline = self.roundOkAt + timings.renewDeadlineMs;
  if (now >= deadline) return { reason: "renew-deadline-passed", changeAt: undefined };
  const warm = self.joinedAt + timings.renewDeadlineMs;
  if (now < warm) return { reason: "warming-up", changeAt: Math.min(warm, deadline) };
  return { reason: undefined, changeAt: deadline };
}

/** Computes one replica's view of the group's live members. */
export function membership(input: MembershipInput): MembershipView {
  const { observations, self, now, timings } = input;
  const members = new Set<string>();
  const reapable: MembershipView["reapable"] = [];
  const status = selfStatus(self, now, timings);
  let nextChangeAt = status.changeAt;
  for (const [name, obs] of observations) {
    const holder = obs.spec.holderIdentity ?? "";
    if (holder === "" || holder === self.identity) continue;
    const until = liveUntil(obs, timings);
    if (now < until) {
      members.add(holder);
      nextChangeAt = Math.min(nextChangeAt ?? until, until);
    } else if (now >= obs.at + leaseMs(obs, timings) + timings.leaseDurationMs) {
      reapable.push({ name, resourceVersion: obs.resourceVersion });
    }
  }
  if (status.reason === undefined) members.add(self.identity);
  return {
    members: [...members].sort(),
    selfLive: status.reason === undefined,
    notLiveReason: status.reason,
    nextChangeAt,
    reapable,
  };
}
