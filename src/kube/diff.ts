/**
 * The relist diff: what a fresh list means against the cache. client-go replaces its store and
 * emits a resync "update" for everything; client-node's ListWatch re-adds everything. We instead
 * compare versions, so a relist that changed nothing delivers nothing:
 *
 * | cached            | listed                  | result              |
 * | ----------------- | ----------------------- | ------------------- |
 * | absent            | present                 | add                 |
 * | same RV           | present                 | nothing             |
 * | other RV, same uid| present                 | update              |
 * | other uid         | present (recreated)     | delete, then add    |
 * | present           | absent                  | delete              |
 */

/** What the diff needs to know about a cached object. */
export interface CachedVersion {
  readonly resourceVersion: string;
  readonly uid: string | undefined;
}

/** What the diff needs to know about a listed object. */
export interface ListedVersion {
  readonly key: string;
  readonly resourceVersion: string;
  readonly uid: string | undefined;
}

/** One consequence of a relist. */
export type RelistOp<L extends ListedVersion> =
  | { readonly type: "add"; readonly item: L }
  | { readonly type: "update"; readonly item: L }
  | { readonly type: "delete"; readonly key: string };

/**
 * Diffs a list against the cache. Adds and updates follow list order; deletes of vanished keys come
 * last, in cache order. A listed key appearing twice counts once (the last occurrence wins).
 */
export function diffRelist<L extends ListedVersion>(cached: ReadonlyMap<string, CachedVersion>, listed: readonly L[]): RelistOp<L>[] {
  const latest = new Map<string, L>();
  for (const item of listed) {
    latest.delete(item.key);
    latest.set(item.key, item);
  }
  const ops: RelistOp<L>[] = [];
  for (const item of latest.values()) {
    const old = cached.get(item.key);
    if (old === undefined) {
      ops.push({ type: "add", item });
    } else if (old.uid !== undefined && item.uid !== undefined && old.uid !== item.uid) {
      ops.push({ type: "delete", key: item.key }, { type: "add", item });
    } else if (old.resourceVersion !== item.resourceVersion) {
      ops.push({ type: "update", item });
    }
  }
  for (const key of cached.keys()) {
    if (!latest.has(key)) ops.push({ type: "delete", key });
  }
  return ops;
}
