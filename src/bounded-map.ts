/**
 * Size-bounded memos on a plain Map: when full, the oldest entry (the first inserted) makes room.
 * {@link remember} bounds the number of entries; {@link SizedMemo} bounds both the number and the
 * total size of the values. Pure.
 */

/** Sets `key` in `map`, first dropping the oldest entry when the map holds `max` already. */
export function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  if (map.size >= max) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
  map.set(key, value);
}

/** Limits of a {@link SizedMemo}. */
export interface SizedMemoLimits<V> {
  /** Most entries kept. */
  readonly maxEntries: number;
  /** Most total size kept (in the unit of `sizeOf`, e.g. bytes). */
  readonly maxSize: number;
  /** The size of one value. */
  readonly sizeOf: (value: V) => number;
}

/**
 * A memo bounded in entries and in total size: after a `set`, the oldest entries go until both
 * limits hold. A value larger than the whole budget is not kept at all (it would evict everything).
 */
export class SizedMemo<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly size: number }>();
  private total = 0;

  constructor(private readonly limits: SizedMemoLimits<V>) {}

  /** Entries kept. */
  get count(): number {
    return this.entries.size;
  }

  /** Total size kept. */
  get size(): number {
    return this.total;
  }

  /** The keys kept, oldest first. */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Keeps `value` under `key` (as the newest entry), then drops the oldest entries past the limits. */
  set(key: string, value: V): void {
    this.delete(key);
    const size = this.limits.sizeOf(value);
    if (size > this.limits.maxSize) return;
    this.entries.set(key, { value, size });
    this.total += size;
    while (this.entries.size > this.limits.maxEntries || this.total > this.limits.maxSize) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.delete(oldest.value);
    }
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    this.total -= e.size;
  }
}
