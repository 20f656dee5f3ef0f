/**
 * Rate limiters for the work queue, shaped like client-go's `workqueue.TypedRateLimiter`: `when(key)`
 * says how long a failing key waits before its next attempt (and counts the failure), `forget(key)`
 * clears its history, `numRequeues(key)` reports the failures counted so far.
 *
 * {@link defaultControllerRateLimiter} is client-go's `DefaultTypedControllerRateLimiter`, which
 * controller-runtime uses when a controller names none: the larger of a per-key exponential backoff
 * (5 ms doubling up to 1000 s) and an overall token bucket (10 per second, burst 100) that bounds how
 * fast retries of all keys together may come back.
 */
import type { Clock } from "../clock/index.js";

/** Decides how long a key that failed waits before it is handed out again. */
export interface RateLimiter {
  /** The delay in milliseconds before `key`'s next attempt; counts one more failure of `key`. */
  when(key: string): number;
  /** Stops tracking `key` (called after success or when giving up). */
  forget(key: string): void;
  /** How many failures of `key` have been counted since it was last forgotten. */
  numRequeues(key: string): number;
  /**
   * The wait the limits over all keys alone (a token bucket) put on one more retry, taking its share
   * of them, without counting a failure of any key. Absent: no such limit.
   */
  overallDelay?(): number;
}

/** controller-runtime's default base delay of the per-key backoff. */
export const DEFAULT_BASE_DELAY_MS = 5;
/** controller-runtime's default cap of the per-key backoff (1000 s). */
export const DEFAULT_MAX_DELAY_MS = 1_000_000;
/** client-go's default overall retry rate (tokens per second). */
export const DEFAULT_BUCKET_QPS = 10;
/** client-go's default bucket size. */
export const DEFAULT_BUCKET_BURST = 100;

/**
 * Per-key exponential backoff: the n-th failure of a key (counting from 0) waits
 * `baseMs * 2^n`, capped at `maxMs` (client-go `ItemExponentialFailureRateLimiter`).
 */
export class ExponentialFailureRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly baseMs = DEFAULT_BASE_DELAY_MS,
    private readonly maxMs = DEFAULT_MAX_DELAY_MS,
  ) {}

  when(key: string): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    const delay = this.baseMs * 2 ** exp;
    return Number.isFinite(delay) && delay < this.maxMs ? delay : this.maxMs;
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * An overall token bucket over all keys (client-go `BucketRateLimiter` over `rate.Limiter`):
 * tokens refill at `qps` per second up to `burst`; every `when` takes one token, going into debt
 * when none is left, and the debt is the wait. A `qps` of `Number.MAX_VALUE` (Go's `rate.Inf`)
 * never waits. It keeps no per-key state.
 */
export class TokenBucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly clock: Clock,
    private readonly qps = DEFAULT_BUCKET_QPS,
    private readonly burst = DEFAULT_BUCKET_BURST,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_key: string): number {
    // golang.org/x/time/rate: the largest float64 is rate.Inf, which never delays.
    if (this.qps >= Number.MAX_VALUE) return 0;
    const now = this.clock.now();
    const elapsedS = Math.max(0, now - this.last) / 1000;
    this.tokens = Math.min(this.burst, this.tokens + elapsedS * this.qps) - 1;
    this.last = now;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  forget(_key: string): void {}

  numRequeues(_key: string): number {
    return 0;
  }

  overallDelay(): number {
    return this.when("");
  }
}

/** The largest delay of several limiters; every limiter counts every failure (client-go `MaxOfRateLimiter`). */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    return this.limiters.reduce((max, l) => Math.max(max, l.when(key)), 0);
  }

  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }

  numRequeues(key: string): number {
    return this.limiters.reduce((max, l) => Math.max(max, l.numRequeues(key)), 0);
  }

  overallDelay(): number {
    return this.limiters.reduce((max, l) => Math.max(max, l.overallDelay?.() ?? 0), 0);
  }
}

/** client-go's default controller rate limiter: max(per-key 5 ms…1000 s backoff, 10 qps / burst 100 bucket). */
export function defaultControllerRateLimiter(clock: Clock): RateLimiter {
  return new MaxOfRateLimiter(new ExponentialFailureRateLimiter(), new TokenBucketRateLimiter(clock));
}
