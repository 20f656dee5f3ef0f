/**
 * This replica's member Lease: its name, the body that creates it and the renewal that keeps it
 * fresh. Pure: the shell ({@link ShardMembership}) writes what these functions build.
 *
 * The Lease is named `<group>-member-<16 hex digits>`, the digits being the 64-bit FNV-1a hash of
 * the replica's identity (identities such as `<hostname>_<uuid>` are not valid object names); the
 * identity itself is the Lease's `holderIdentity`, and the group its {@link SHARD_GROUP_LABEL}.
 */
import { microTime, type Lease } from "../leader/lease.js";
import { fnv1a64 } from "./assign.js";
import { SHARD_GROUP_LABEL } from "./membership.js";

/** A shard group's name: a label value that also starts valid object names (lowercase, digits, '-'; up to 40). */
const GROUP_NAME = /^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/;

/** Throws a RangeError unless `group` can name a shard group. */
export function checkGroupName(group: string): void {
  if (!GROUP_NAME.test(group))
    throw new RangeError(
      `shard group '${group}' must be 1-40 lowercase letters, digits or '-', starting and ending with a letter or digit`,
    );
}

/** The name of the member Lease of `identity` in `group`. */
export function memberLeaseName(group: string, identity: string): string {
  return `${group}-member-${fnv1a64(identity).toString(16).padStart(16, "0")}`;
}

/** What names one member Lease. */
export interface MemberLeaseRef {
  namespace: string;
  group: string;
  identity: string;
}

/** The body that creates the member Lease, first renewed at `now`. */
export function newMemberLease(ref: MemberLeaseRef, leaseDurationMs: number, now: number): Lease {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: {
      name: memberLeaseName(ref.group, ref.identity),
      namespace: ref.namespace,
      labels: { [SHARD_GROUP_LABEL]: ref.group },
    },
    spec: {
      holderIdentity: ref.identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
    },
  };
}

/** The update that renews `current` at `now`: a new renewTime, on `current`'s resourceVersion. */
export function renewedMemberLease(current: Lease, now: number): Lease {
  return { ...current, spec: { ...current.spec, renewTime: microTime(now) } };
}
