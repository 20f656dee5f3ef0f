/**
 * The live members of a shard group as seen from outside it (`appset shards`): a reader that lists
 * the member Leases once has no history of when each changed, so it judges a member live until
 * `renewTime + leaseDurationSeconds` on its own clock. That is the replicas' rule (a member is live
 * for its lease duration after its last renewal) with the renewal time read from the Lease instead
 * of observed, so clock skew between the reader and the replicas shifts the verdict by the skew.
 * Pure: no I/O, no clock.
 */
import { DEFAULT_TIMINGS, type Lease } from "../leader/lease.js";

/** One member Lease as read. */
export interface MemberRecord {
  /** The replica's identity (the Lease's holderIdentity). */
  identity: string;
  /** The Lease's name. */
  lease: string;
  /** The Lease's renewTime as written; undefined when it has none. */
  renewTime: string | undefined;
  leaseDurationSeconds: number;
  /** When the member stops counting, in ms since the epoch: renewTime + leaseDurationSeconds (NaN without a renewTime). */
  expiresAt: number;
}

/** The group's Leases sorted into live and not live members, each by identity. */
export interface GroupSnapshot {
  live: MemberRecord[];
  notLive: MemberRecord[];
}

function record(lease: Lease): MemberRecord | undefined {
  const identity = lease.spec?.holderIdentity ?? "";
  if (identity === "") return undefined;
  const seconds = lease.spec?.leaseDurationSeconds;
  const leaseDurationSeconds = seconds !== undefined && seconds > 0 ? seconds : DEFAULT_TIMINGS.leaseDurationMs / 1000;
  const renewTime = lease.spec?.renewTime;
  const renewed = renewTime === undefined ? Number.NaN : Date.parse(renewTime);
  return { identity, lease: lease.metadata?.name ?? "", renewTime, leaseDurationSeconds, expiresAt: renewed + leaseDurationSeconds * 1000 };
}

/**
 * Sorts the group's Leases at `now`: a member is live while `now < renewTime + leaseDurationSeconds`.
 * A Lease with no holder holds no member; two Leases naming one holder give one member (live when
 * either is).
 */
export function groupSnapshot(leases: readonly Lease[], now: number): GroupSnapshot {
  const byIdentity = new Map<string, MemberRecord>();
  for (const lease of leases) {
    const r = record(lease);
    if (r === undefined) continue;
    const seen = byIdentity.get(r.identity);
    if (seen === undefined || !(seen.expiresAt >= r.expiresAt)) byIdentity.set(r.identity, r);
  }
  const all = [...byIdentity.values()].sort((a, b) => (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0));
  return { live: all.filter((m) => now < m.expiresAt), notLive: all.filter((m) => !(now < m.expiresAt)) };
}
