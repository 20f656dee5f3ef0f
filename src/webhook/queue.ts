/**
 * The event queue between the HTTP handler and the refreshes: accepted events wait here and are
 * processed by at most `--webhook-parallelism-limit` at once. As in Argo CD, the queue holds at most
 * 50 000 events; beyond that the handler answers 503.
 */
import pLimit, { type LimitFunction } from "p-limit";

/** Argo CD's queue capacity. */
export const QUEUE_CAPACITY = 50_000;

/** A bounded queue of jobs run with limited parallelism. */
export class EventQueue<T> {
  private readonly limit: LimitFunction;
  private readonly idleWaiters: Array<() => void> = [];

  constructor(private readonly opts: { parallelism: number; capacity?: number; handle: (item: T) => Promise<void> }) {
    this.limit = pLimit(opts.parallelism);
  }

  /** Events waiting or being processed. */
  get size(): number {
    return this.limit.activeCount + this.limit.pendingCount;
  }

  /** Queues `item`; false (and nothing queued) when the queue is full. */
  offer(item: T): boolean {
    if (this.size >= (this.opts.capacity ?? QUEUE_CAPACITY)) return false;
    void this.limit(() => this.opts.handle(item)).finally(() => this.settle());
    return true;
  }

  /** Resolves once no event is waiting or being processed. */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private settle(): void {
    if (this.size !== 0) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
