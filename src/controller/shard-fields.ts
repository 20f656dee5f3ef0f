/**
 * The fields naming a key in a sharded replica's reconcile log lines (docs/sharding.md#metrics-and-logs):
 * Argo CD's `applicationset`, and `replica`, the identity of the replica that ran the pass, so the
 * lines of several replicas can be told apart once gathered.
 */
import { applicationSetFields } from "../manager/worker.js";
import type { Shard } from "../shard/index.js";

/** The key fields of the reconcile log lines of the replica `identity`. */
export function shardedKeyFields(identity: string): (key: string) => Record<string, unknown> {
  return (key) => ({ ...applicationSetFields(key), replica: identity });
}

/** The key fields of the controller's reconcile log lines: with a shard, those of its replica. */
export function reconcileKeyFields(shard: Pick<Shard, "identity"> | undefined): (key: string) => Record<string, unknown> {
  return shard === undefined ? applicationSetFields : shardedKeyFields(shard.identity);
}
