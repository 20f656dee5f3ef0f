/**
 * What `appset shards` shows: a shard group's members as its Leases say at one moment, and the
 * owner of every ApplicationSet by the controller's own rule ({@link assignment} over the live
 * members, keyed by `namespace/name`). Pure: the command reads, this decides and renders.
 */
import type { Lease } from "../leader/lease.js";
import { assignment, groupSnapshot, type MemberRecord } from "../shard/index.js";
import { table } from "./appset-view.js";

/** One member as shown. */
export interface MemberReport {
  identity: string;
  lease: string;
  renewTime: string | undefined;
  leaseDurationSeconds: number;
}

/** The assignment as `-o json|yaml` prints it. */
export interface ShardsReport {
  namespace: string;
  group: string;
  /** The moment liveness was judged at (this machine's clock), RFC 3339. */
  at: string;
  /** Live members, each with the ApplicationSets (`namespace/name`) it owns. */
  members: Array<MemberReport & { applicationSets: string[] }>;
  /** Members whose Lease has expired (renewTime + leaseDurationSeconds passed). */
  notLive: MemberReport[];
  /** ApplicationSets no live member owns (only when there is none). */
  unowned: string[];
}

const member = (m: MemberRecord): MemberReport => ({
  identity: m.identity,
  lease: m.lease,
  renewTime: m.renewTime,
  leaseDurationSeconds: m.leaseDurationSeconds,
});

/** The report of a group whose Leases are `leases`, over the ApplicationSets `keys` (`namespace/name`), at `now`. */
export function shardsReport(input: {
  namespace: string;
  group: string;
  leases: readonly Lease[];
  keys: readonly string[];
  now: number;
}): ShardsReport {
  const snapshot = groupSnapshot(input.leases, input.now);
  const keys = [...input.keys].sort();
  const owned = assignment(
    keys,
    snapshot.live.map((m) => m.identity),
  );
  return {
    namespace: input.namespace,
    group: input.group,
    at: new Date(input.now).toISOString(),
    members: snapshot.live.map((m) => ({ ...member(m), applicationSets: owned.get(m.identity) ?? [] })),
    notLive: snapshot.notLive.map(member),
    unowned: snapshot.live.length === 0 ? keys : [],
  };
}

/** The text of `appset shards` (`wide`: every member Lease, with its name, renewal and status). */
export function renderShards(r: ShardsReport, o: { wide: boolean }): string[] {
  const live = r.members.length;
  const head = `Shard group ${r.group} in namespace ${r.namespace}: ${String(live)} live member${live === 1 ? "" : "s"}`;
  const notLive = !o.wide && r.notLive.length > 0 ? [`${String(r.notLive.length)} more not live (-o wide lists them)`] : [];
  const memberRows = o.wide
    ? [
        ...r.members.map((m) => [m.identity, "live", String(m.applicationSets.length), m.lease, m.renewTime ?? "-"]),
        ...r.notLive.map((m) => [m.identity, "expired", "-", m.lease, m.renewTime ?? "-"]),
      ]
    : r.members.map((m) => [m.identity, String(m.applicationSets.length)]);
  const header = o.wide ? ["MEMBER", "STATUS", "APPLICATIONSETS", "LEASE", "RENEW TIME"] : ["MEMBER", "APPLICATIONSETS"];
  const owners = [...r.members.flatMap((m) => m.applicationSets.map((k) => [k, m.identity])), ...r.unowned.map((k) => [k, "<none>"])].sort(
    (a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0),
  );
  return [
    head,
    ...notLive,
    ...(memberRows.length === 0 ? [] : ["", ...table(header, memberRows)]),
    "",
    ...(owners.length === 0 ? ["No ApplicationSets found."] : table(["APPLICATIONSET", "OWNER"], owners)),
  ];
}
