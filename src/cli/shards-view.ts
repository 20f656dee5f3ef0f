/**
 * What `appset shards` shows: a shard group's members as its Leases say at one moment, and the
 * owner of every ApplicationSet (the controller's share) or, with `--applications`, of every
 * Application (the sync engine's) by the replicas' own rule ({@link assignment} over the live
 * members, keyed by `namespace/name`). Pure: the command reads, this decides and renders.
 */
import type { Lease } from "../leader/lease.js";
import { assignment, groupSnapshot, type MemberRecord } from "../shard/index.js";
import { table } from "./appset-view.js";

/** What is shared among the members: the ApplicationSets (the controller) or the Applications (the sync engine). */
export type ShardedResource = "applicationsets" | "applications";

/** One member as shown. */
export interface MemberReport {
  identity: string;
  lease: string;
  renewTime: string | undefined;
  leaseDurationSeconds: number;
}

/** What both reports have. */
interface ReportCommon {
  namespace: string;
  group: string;
  /** The moment liveness was judged at (this machine's clock), RFC 3339. */
  at: string;
  /** Members whose Lease has expired (renewTime + leaseDurationSeconds passed). */
  notLive: MemberReport[];
  /** Keys (`namespace/name`) no live member owns (only when there is none). */
  unowned: string[];
}

/** The ApplicationSets' assignment as `-o json|yaml` prints it. */
export interface AppSetShardsReport extends ReportCommon {
  /** What is assigned: the ApplicationSets. */
  resource: "applicationsets";
  /** Live members, each with the ApplicationSets (`namespace/name`) it owns. */
  members: Array<MemberReport & { applicationSets: string[] }>;
}

/** The Applications' assignment (`--applications`) as `-o json|yaml` prints it. */
export interface ApplicationShardsReport extends ReportCommon {
  /** What is assigned: the Applications. */
  resource: "applications";
  /** Live members, each with the Applications (`namespace/name`) it owns. */
  members: Array<MemberReport & { applications: string[] }>;
}

/** The assignment as `-o json|yaml` prints it. */
export type ShardsReport = AppSetShardsReport | ApplicationShardsReport;

/** The report of `R`'s assignment. */
export type ShardsReportOf<R extends ShardedResource> = Extract<ShardsReport, { resource: R }>;

const member = (m: MemberRecord): MemberReport => ({
  identity: m.identity,
  lease: m.lease,
  renewTime: m.renewTime,
  leaseDurationSeconds: m.leaseDurationSeconds,
});

/** The keys a live member of a report owns. */
export const ownedKeys = (m: ShardsReport["members"][number]): string[] => ("applications" in m ? m.applications : m.applicationSets);

/**
 * The report of a group whose Leases are `leases`, over the `resource` keyed `keys`
 * (`namespace/name`), at `now`.
 */
export function shardsReport<R extends ShardedResource>(input: {
  namespace: string;
  group: string;
  resource: R;
  leases: readonly Lease[];
  keys: readonly string[];
  now: number;
}): ShardsReportOf<R> {
  const snapshot = groupSnapshot(input.leases, input.now);
  const keys = [...input.keys].sort();
  const owned = assignment(
    keys,
    snapshot.live.map((m) => m.identity),
  );
  const share = (m: MemberRecord): string[] => owned.get(m.identity) ?? [];
  const head = { namespace: input.namespace, group: input.group };
  const at = new Date(input.now).toISOString();
  const tail = { notLive: snapshot.notLive.map(member), unowned: snapshot.live.length === 0 ? keys : [] };
  const live = snapshot.live;
  const report: ShardsReport =
    input.resource === "applications"
      ? { ...head, resource: "applications", at, members: live.map((m) => ({ ...member(m), applications: share(m) })), ...tail }
      : { ...head, resource: "applicationsets", at, members: live.map((m) => ({ ...member(m), applicationSets: share(m) })), ...tail };
  return report as ShardsReportOf<R>;
}

/** How the text names what is shared: the count column, the key column and the empty list. */
const WORDS: Record<ShardedResource, { count: string; key: string; none: string }> = {
  applicationsets: { count: "APPLICATIONSETS", key: "APPLICATIONSET", none: "No ApplicationSets found." },
  applications: { count: "APPLICATIONS", key: "APPLICATION", none: "No Applications found." },
};

/** The text of `appset shards` (`wide`: every member Lease, with its name, renewal and status). */
export function renderShards(r: ShardsReport, o: { wide: boolean }): string[] {
  const words = WORDS[r.resource];
  const live = r.members.length;
  const head = `Shard group ${r.group} in namespace ${r.namespace}: ${String(live)} live member${live === 1 ? "" : "s"}`;
  const notLive = !o.wide && r.notLive.length > 0 ? [`${String(r.notLive.length)} more not live (-o wide lists them)`] : [];
  const memberRows = o.wide
    ? [
        ...r.members.map((m) => [m.identity, "live", String(ownedKeys(m).length), m.lease, m.renewTime ?? "-"]),
        ...r.notLive.map((m) => [m.identity, "expired", "-", m.lease, m.renewTime ?? "-"]),
      ]
    : r.members.map((m) => [m.identity, String(ownedKeys(m).length)]);
  const header = o.wide ? ["MEMBER", "STATUS", words.count, "LEASE", "RENEW TIME"] : ["MEMBER", words.count];
  const owners = [...r.members.flatMap((m) => ownedKeys(m).map((k) => [k, m.identity])), ...r.unowned.map((k) => [k, "<none>"])].sort(
    (a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0),
  );
  return [
    head,
    ...notLive,
    ...(memberRows.length === 0 ? [] : ["", ...table(header, memberRows)]),
    "",
    ...(owners.length === 0 ? [words.none] : table([words.key, "OWNER"], owners)),
  ];
}
