/**
 * client-go's event correlation, which Argo CD's recorder applies to every Event it sends and its
 * users therefore see (docs/differential.md):
 * - **Aggregation**: events about one object with the same type and reason but different messages
 *   are counted per object; from the 10th distinct message within 10 minutes on, they become one
 *   Event whose message is `(combined from similar events): <latest message>`, its count going up.
 * - **Deduplication**: an event identical to an earlier one (message included) is not a new Event:
 *   the earlier one's count goes up and its last timestamp moves.
 * Pure: the caller sends what {@link EventCorrelator.correlate} decides. Both caches are LRUs of 4096
 * entries, as in client-go.
 */

/** What an event is about and says. */
export interface EventInput {
  readonly involved: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly namespace: string;
    readonly name: string;
    readonly uid: string;
  };
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly source: string;
}

/** What to send: a new Event (its name chosen here), or a patch of an earlier one. */
export type Correlated =
  | { readonly kind: "create"; readonly name: string; readonly message: string; readonly count: number; readonly firstTimestampMs: number }
  | { readonly kind: "patch"; readonly name: string; readonly message: string; readonly count: number; readonly firstTimestampMs: number };

/** client-go's limits: 10 distinct messages per aggregation window of 10 minutes, caches of 4096. */
export const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const CACHE_ENTRIES = 4096;
export const COMBINED_PREFIX = "(combined from similar events): ";

/** A Map that forgets its least recently used entry past `max`. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}

/** Correlates the events of one recorder; `now` gives the time in ms. */
export class EventCorrelator {
  private readonly aggregates = new Lru<{ messages: Set<string>; lastMs: number }>(CACHE_ENTRIES);
  private readonly observed = new Lru<{ name: string; count: number; firstTimestampMs: number }>(CACHE_ENTRIES);
  private sequence = 0;

  constructor(private readonly now: () => number) {}

  correlate(e: EventInput): Correlated {
    const now = this.now();
    const io = e.involved;
    const aggregateKey = [e.source, "", io.kind, io.namespace, io.name, io.uid, io.apiVersion, e.type, e.reason, "", ""].join("\u0000");
    const record = this.aggregates.get(aggregateKey);
    const fresh =
      record === undefined || now - record.lastMs > AGGREGATE_INTERVAL_MS ? { messages: new Set<string>(), lastMs: now } : record;
    fresh.messages.add(e.message);
    fresh.lastMs = now;
    this.aggregates.set(aggregateKey, fresh);
    let key = `${aggregateKey}\u0000${e.message}`;
    let message = e.message;
    if (fresh.messages.size >= AGGREGATE_MAX_EVENTS) {
      // Keep the set at its limit, and send the aggregate Event instead.
      const any = fresh.messages.values().next().value;
      if (any !== undefined) fresh.messages.delete(any);
      key = aggregateKey;
      message = COMBINED_PREFIX + e.message;
    }
    const last = this.observed.get(key);
    if (last !== undefined) {
      const next = { ...last, count: last.count + 1 };
      this.observed.set(key, next);
      return { kind: "patch", name: last.name, message, count: next.count, firstTimestampMs: last.firstTimestampMs };
    }
    // client-go names an Event `<object>.<nanoseconds in hex>`.
    const name = `${io.name}.${(BigInt(now) * 1_000_000n + BigInt(this.sequence++ % 1_000_000)).toString(16)}`;
    this.observed.set(key, { name, count: 1, firstTimestampMs: now });
    return { kind: "create", name, message, count: 1, firstTimestampMs: now };
  }
}
