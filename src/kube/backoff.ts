/**
 * The restart schedule of the informer: capped exponential backoff with jitter, as a pure function
 * of the attempt number and a random draw (injected so tests are exact), and the wait itself.
 */
import type { Clock } from "../clock/index.js";

/** How long to wait before the n-th consecutive retry. */
export interface BackoffPolicy {
  /** Delay before the first retry. */
  readonly initialMs: number;
  /** Ceiling of the delay. */
  readonly maxMs: number;
  /** Growth per attempt (2 doubles). */
  readonly factor: number;
  /** Fraction in [0, 1] by which a delay may be shortened at random, to spread out reconnect storms. */
  readonly jitter: number;
}

/**
 * 500 ms doubling to 10 s, shortened by up to 20% at random. (client-go's reflector goes up to 30 s;
 * a 10 s ceiling costs an informer one list attempt every 10 s during an outage and brings the cache
 * back within 10 s of the apiserver's return, however long the outage was.)
 */
export const defaultBackoff: BackoffPolicy = { initialMs: 500, maxMs: 10_000, factor: 2, jitter: 0.2 };

/**
 * The delay before retry number `attempt` (0 for the first retry): `min(max, initial * factor^attempt)`,
 * scaled by `1 - jitter * random()`. Never negative, never above `maxMs`, and without jitter never
 * shorter than the previous attempt's delay.
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const n = Math.max(0, Math.floor(attempt));
  const base = Math.min(policy.maxMs, policy.initialMs * Math.pow(policy.factor, n));
  const jitter = Math.min(1, Math.max(0, policy.jitter));
  const r = Math.min(1, Math.max(0, random()));
  return Math.max(0, Math.round(base * (1 - jitter * r)));
}

/**
 * One back-off wait at a time on a clock, which {@link BackoffWait.wakeNow} can end early (the
 * apiserver answers again: docs/controller.md#when-the-apiserver-cannot-be-reached).
 */
export class BackoffWait {
  private wake: AbortController | undefined;

  constructor(private readonly clock: Pick<Clock, "sleep">) {}

  /** Resolves after `ms`, when `signal` aborts, or when woken, whichever comes first; never rejects. */
  async sleep(ms: number, signal: AbortSignal): Promise<void> {
    const wake = new AbortController();
    this.wake = wake;
    try {
      await this.clock.sleep(ms, AbortSignal.any([signal, wake.signal])).catch(() => undefined);
    } finally {
      if (this.wake === wake) this.wake = undefined;
    }
  }

  /** Ends the wait under way at once; nothing happens when none is. */
  wakeNow(): void {
    this.wake?.abort();
  }
}
