/**
 * The informer's in-memory cache: objects by `namespace/name` key, with the resourceVersion and uid
 * each was stored at, plus named secondary indexes (e.g. by owner uid) kept in step on every write.
 *
 * It never goes backwards (docs/controller.md#read-your-writes): {@link IndexedStore.accepts}
 * refuses a version older than the one held, or than the one an eviction left as a tombstone.
 * resourceVersions are opaque, but etcd-backed ones are integers: they are compared numerically
 * when both parse, and anything else is accepted ({@link isOlderVersion}).
 */

/** One cached object and the version it was stored at. */
export interface Entry<T> {
  readonly obj: T;
  readonly resourceVersion: string;
  readonly uid: string | undefined;
}

/** Computes the index values of an object (an object may sit under several values, or none). */
export type IndexFunc<T> = (obj: T) => readonly string[];

interface Index<T> {
  readonly fn: IndexFunc<T>;
  readonly byValue: Map<string, Set<string>>;
}

/** A keyed store with secondary indexes. */
export class IndexedStore<T> {
  private readonly items = new Map<string, Entry<T>>();
  private readonly indexes = new Map<string, Index<T>>();
  /** Evicted keys and the resourceVersion they held: older versions of them are refused. */
  private readonly tombstones = new Map<string, string>();

  /** Number of stored objects. */
  get size(): number {
    return this.items.size;
  }

  get(key: string): Entry<T> | undefined {
    return this.items.get(key);
  }

  /** Every key with its entry, in insertion order. */
  entries(): IterableIterator<[string, Entry<T>]> {
    return this.items.entries();
  }

  /** Every stored object. */
  list(): T[] {
    return [...this.items.values()].map((e) => e.obj);
  }

  /**
   * Whether version `resourceVersion` of `key` may replace what is held: false when it is older than
   * the stored entry, or not newer than the version the key held when it was evicted.
   */
  accepts(key: string, resourceVersion: string): boolean {
    const held = this.items.get(key)?.resourceVersion;
    if (held !== undefined) return !isOlderVersion(resourceVersion, held);
    const evicted = this.tombstones.get(key);
    return evicted === undefined || (compareVersions(resourceVersion, evicted) ?? 1) > 0;
  }

  /** Stores `entry` under `key` and returns the entry it replaced. */
  set(key: string, entry: Entry<T>): Entry<T> | undefined {
    this.tombstones.delete(key);
    const old = this.items.get(key);
    if (old !== undefined) this.unindex(key, old.obj);
    this.items.set(key, entry);
    this.index(key, entry.obj);
    return old;
  }

  /**
   * Removes `key` and returns the entry it held. With `tombstone`, versions not newer than the removed
   * one stay refused by {@link accepts} until a newer version or a {@link forgetTombstones} clears it.
   */
  delete(key: string, tombstone = false): Entry<T> | undefined {
    const old = this.items.get(key);
    if (!tombstone) this.tombstones.delete(key);
    else if (old !== undefined) this.tombstones.set(key, old.resourceVersion);
    if (old === undefined) return undefined;
    this.unindex(key, old.obj);
    this.items.delete(key);
    return old;
  }

  /** Drops the tombstones a complete list at `listVersion` supersedes (those not newer than it). */
  forgetTombstones(listVersion: string): void {
    for (const [key, rv] of this.tombstones) if (!isOlderVersion(listVersion, rv)) this.tombstones.delete(key);
  }

  /** Adds a named index, computed at once over what is stored. Fails if the name is taken. */
  addIndex(name: string, fn: IndexFunc<T>): void {
    if (this.indexes.has(name)) throw new Error(`index ${name} already exists`);
    const index: Index<T> = { fn, byValue: new Map() };
    this.indexes.set(name, index);
    for (const [key, e] of this.items) addTo(index, key, e.obj);
  }

  /** The objects whose index `name` includes `value`. Fails for an unknown index. */
  byIndex(name: string, value: string): T[] {
    const index = this.indexes.get(name);
    if (index === undefined) throw new Error(`no index named ${name}`);
    const keys = index.byValue.get(value) ?? new Set<string>();
    return [...keys].flatMap((k) => {
      const e = this.items.get(k);
      return e === undefined ? [] : [e.obj];
    });
  }

  private index(key: string, obj: T): void {
    for (const index of this.indexes.values()) addTo(index, key, obj);
  }

  private unindex(key: string, obj: T): void {
    for (const index of this.indexes.values()) {
      for (const v of index.fn(obj)) {
        const keys = index.byValue.get(v);
        keys?.delete(key);
        if (keys?.size === 0) index.byValue.delete(v);
      }
    }
  }
}

function addTo<T>(index: Index<T>, key: string, obj: T): void {
  for (const v of index.fn(obj)) {
    let keys = index.byValue.get(v);
    if (keys === undefined) index.byValue.set(v, (keys = new Set()));
    keys.add(key);
  }
}

const INTEGER = /^[0-9]+$/;

/**
 * True when resourceVersion `a` is known to be older than `b`: both are decimal integers (as
 * etcd-backed ones are) and `a < b`. Opaque versions are never "older", so they are accepted.
 */
export function isOlderVersion(a: string, b: string): boolean {
  return (compareVersions(a, b) ?? 0) < 0;
}

/** Compares two resourceVersions numerically (-1, 0, 1) when both are decimal integers; else undefined. */
export function compareVersions(a: string, b: string): number | undefined {
  if (!INTEGER.test(a) || !INTEGER.test(b)) return undefined;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
