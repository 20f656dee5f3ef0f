/**
 * Sharded replicas, the first slice: which replica owns which key (rendezvous hashing,
 * {@link ownerOf} / {@link assignment}), which replicas of a group are live (the pure
 * {@link membership} rule) and the loop that keeps this replica's member Lease and the group's view
 * ({@link ShardMembership}); the group as a reader outside it sees it ({@link groupSnapshot}); and
 * the {@link Shard} the loops of a sharded process ask.
 */
export { assignment, fnv1a64, ownerOf } from "./assign.js";
export { checkGroupName, memberLeaseName, newMemberLease, renewedMemberLease, type MemberLeaseRef } from "./member-lease.js";
export {
  DEFAULT_SHARD_GROUP,
  SHARD_GROUP_LABEL,
  membership,
  observeGroup,
  type MembershipInput,
  type MembershipView,
  type NotLiveReason,
  type SelfState,
} from "./membership.js";
export { ShardMembership, type ShardMembershipOptions } from "./membership-shell.js";
export { groupSnapshot, type GroupSnapshot, type MemberRecord } from "./snapshot.js";
export type { Shard } from "./shard.js";
