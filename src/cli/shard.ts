/**
 * `--enable-sharding` (docs/sharding.md): this replica's membership of its shard group, and the
 * {@link Shard} the ApplicationSet controller and the sync engine ask which keys are their own. Each
 * replica holds a member Lease in the controller's namespace; the owners of every key follow the
 * live members, and each loop queues everything again whenever they change.
 */
import { hostname } from "node:os";
import type { Clock } from "../clock/index.js";
import type { KubeClient } from "../kube/index.js";
import { newIdentity } from "../leader/index.js";
import type { Logger } from "../log/logger.js";
import { ShardMetrics, type Registry } from "../metrics/index.js";
import { ShardMembership, type Shard } from "../shard/index.js";

/** A replica's shard: what the controller asks, and the membership loop to run beside it. */
export interface ReplicaShard {
  readonly shard: Shard;
  /** The live members this replica sees now. */
  members(): string[];
  /** Takes part in the group until `signal` aborts, then leaves it (its Lease deleted). */
  run(signal: AbortSignal): Promise<void>;
}

/** Builds (does not start) this replica's membership of `group` in `namespace`. */
export function replicaShard(d: {
  client: Pick<KubeClient, "get" | "list" | "create" | "update" | "delete">;
  namespace: string;
  group: string;
  clock: Clock;
  logger: Logger;
  identity?: string;
}): ReplicaShard {
  const listeners = new Set<() => void>();
  const identity = d.identity ?? newIdentity(hostname());
  const logger = d.logger.child({ component: "shard", replica: identity });
  const membership = new ShardMembership({
    client: d.client,
    namespace: d.namespace,
    group: d.group,
    identity,
    clock: d.clock,
    logger,
    onChange: (view) => {
      logger.info({ members: view.members, selfLive: view.selfLive }, "shard group members changed");
      for (const listener of [...listeners]) listener();
    },
  });
  return {
    shard: {
      identity,
      owns: (key) => membership.owns(key),
      onChange: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    members: () => membership.view().members,
    run: (signal) => membership.run(signal),
  };
}

/**
 * Registers the replica's shard metrics on `registry`: the live members, the changes of members, and
 * the owned counts of the loops this process runs (the controller's ApplicationSets, the sync
 * engine's Applications).
 */
export function registerShardMetrics(
  registry: Registry,
  shard: ReplicaShard,
  owned: { applicationSets?: () => number; applications?: () => number },
): void {
  const metrics = new ShardMetrics({
    registry,
    members: () => shard.members().length,
    ...(owned.applicationSets === undefined ? {} : { owned: owned.applicationSets }),
    ...(owned.applications === undefined ? {} : { ownedApplications: owned.applications }),
  });
  shard.shard.onChange(() => metrics.membershipChanged());
}
