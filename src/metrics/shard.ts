/**
 * Sharded replicas' metrics (docs/metrics.md, docs/sharding.md#metrics-and-logs), this project's own:
 * the live members this replica sees, the ApplicationSets (controller) and Applications (sync
 * engine) it owns now (read at scrape time) and how often the live members changed. Registered
 * only with `--enable-sharding`; each owned count only where its loop runs.
 */
import { Counter, Gauge, type Registry } from "prom-client";

const FAMILIES = {
  members: {
    name: "appset_shard_members",
    help: "Live members of the shard group as this replica sees them (itself included while it counts itself live)",
  },
  owned: {
    name: "appset_shard_owned_applicationsets",
    help: "ApplicationSets this replica owns now",
  },
  ownedApplications: {
    name: "appset_shard_owned_applications",
    help: "Applications this replica's sync engine owns now",
  },
  changes: {
    name: "appset_shard_membership_changes_total",
    help: "Times the live members of the shard group changed, as this replica sees them",
  },
};

/** Options of {@link ShardMetrics}. */
export interface ShardMetricsOptions {
  registry: Registry;
  /** The live members this replica sees now. */
  members: () => number;
  /** The ApplicationSets this replica owns now (the controller's loop; absent without it). */
  owned?: () => number;
  /** The Applications this replica's sync engine owns now (absent without the engine). */
  ownedApplications?: () => number;
}

/** Sharded replicas' metrics on one registry. */
export class ShardMetrics {
  private readonly changes: Counter;

  constructor(options: ShardMetricsOptions) {
    const registers = [options.registry];
    new Gauge({
      ...FAMILIES.members,
      registers,
      collect() {
        this.set(options.members());
      },
    });
    for (const [family, read] of [
      [FAMILIES.owned, options.owned],
      [FAMILIES.ownedApplications, options.ownedApplications],
    ] as const) {
      if (read === undefined) continue;
      new Gauge({
        ...family,
        registers,
        collect() {
          this.set(read());
        },
      });
    }
    this.changes = new Counter({ ...FAMILIES.changes, registers });
  }

  /** Counts one change of the live members. */
  membershipChanged(): void {
    this.changes.inc();
  }
}
