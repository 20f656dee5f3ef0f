/**
 * What a loop asks of its replica's shard (docs/sharding.md): the ApplicationSet controller keys it
 * by ApplicationSet and the sync engine by Application, each by `namespace/name`, through the one
 * membership of the process.
 */

/** This replica's share of the keys. */
export interface Shard {
  /** This replica's identity in its shard group: the `replica` field of its reconcile log lines. */
  readonly identity: string;
  /** Whether this replica owns the key `namespace/name` now. */
  owns(key: string): boolean;
  /** Calls `listener` whenever the owners may have changed; returns what unsubscribes it. */
  onChange(listener: () => void): () => void;
}
