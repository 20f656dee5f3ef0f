/**
 * The work-queue rate limiter of Argo CD's controllers (its `pkg/ratelimiter`), which the
 * ApplicationSet controller builds from the `--wq-*` settings: the larger of a per-key exponential
 * backoff that starts over after a quiet cooldown and an overall token bucket. With Argo CD's
 * defaults both are off in effect: the cooldown is 0, so every retry waits the 1 ms base delay, and
 * the bucket's rate is the largest float64, which lets everything through.
 */
import type { Clock } from "../clock/index.js";
import { MaxOfRateLimiter, TokenBucketRateLimiter, type RateLimiter } from "./ratelimit.js";

/** The `--wq-*` settings (durations in milliseconds). */
export interface WorkqueueRateLimitConfig {
  /** `--wq-bucket-size`: the overall bucket's burst. */
  readonly bucketSize: number;
  /** `--wq-bucket-qps`: the overall bucket's refill rate per second (`Number.MAX_VALUE`: no limit). */
  readonly bucketQps: number;
  /** `--wq-cooldown`: a key quiet this long starts its backoff over (0: always the base delay). */
  readonly cooldownMs: number;
  /** `--wq-basedelay`. */
  readonly baseDelayMs: number;
  /** `--wq-maxdelay`. */
  readonly maxDelayMs: number;
  /** `--wq-backoff-factor`. */
  readonly backoffFactor: number;
}

/** The defaults of the ApplicationSet controller's `--wq-*` flags. */
export const DEFAULT_WORKQUEUE_RATE_LIMIT: WorkqueueRateLimitConfig = {
  bucketSize: 500,
  bucketQps: Number.MAX_VALUE,
  cooldownMs: 0,
  baseDelayMs: 1,
  maxDelayMs: 1_000_000,
  backoffFactor: 1.5,
};

interface FailureRecord {
  failures: number;
  lastFailureMs: number;
}

/**
 * Per-key backoff `baseDelay * factor^n` capped at `maxDelay`, where n counts the key's failures;
 * when `cooldown` has passed since the key's last failure, its history is dropped and the base
 * delay is returned (Argo CD's `ItemExponentialRateLimiterWithAutoReset`). A key seen for the first
 * time is recorded as failing now, so a cooldown of 0 resets on every call: each retry waits the base.
 */
export class CooldownExponentialRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, FailureRecord>();

  constructor(
    private readonly clock: Clock,
    private readonly cfg: Pick<WorkqueueRateLimitConfig, "baseDelayMs" | "maxDelayMs" | "cooldownMs" | "backoffFactor">,
  ) {}

  when(key: string): number {
    const now = this.clock.now();
    const previous = this.failures.get(key) ?? { failures: 0, lastFailureMs: now };
    if (now - previous.lastFailureMs >= this.cfg.cooldownMs) {
      this.failures.delete(key);
      return this.cfg.baseDelayMs;
    }
    this.failures.set(key, { failures: previous.failures + 1, lastFailureMs: now });
    const backoff = this.cfg.baseDelayMs * this.cfg.backoffFactor ** previous.failures;
    return Number.isFinite(backoff) && backoff <= this.cfg.maxDelayMs ? backoff : this.cfg.maxDelayMs;
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key)?.failures ?? 0;
  }
}

/** Argo CD's `NewCustomAppControllerRateLimiter`: max(cooldown backoff, overall bucket). */
export function appControllerRateLimiter(clock: Clock, cfg: WorkqueueRateLimitConfig = DEFAULT_WORKQUEUE_RATE_LIMIT): RateLimiter {
  return new MaxOfRateLimiter(
    new CooldownExponentialRateLimiter(clock, cfg),
    new TokenBucketRateLimiter(clock, cfg.bucketQps, cfg.bucketSize),
  );
}
