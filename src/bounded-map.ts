/**
 * A size-bounded memo on a plain Map: when full, the oldest entry (the first inserted) makes room.
 * Pure.
 */

/** Sets `key` in `map`, first dropping the oldest entry when the map holds `max` already. */
export function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  if (map.size >= max) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
  map.set(key, value);
}
