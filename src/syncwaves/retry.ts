/**
 * Retry of failed operations (docs/sync-engine.md#retry): Go-style durations, the backoff schedule
 * and the retry messages. Pure.
 */
import { ApplicationDefaults, type RetryStrategy } from "../api/index.js";
import { GoDurationError, parseGoDuration, rfc3339 } from "../clock/index.js";

/**
 * Parses a backoff duration as Argo CD does: a bare integer is seconds, otherwise a Go duration
 * such as `5s`, `1m30s`, `250ms`. Returns milliseconds, or undefined when the text is not a duration.
 */
export function parseBackoffDuration(text: string): number | undefined {
  const s = text.trim();
  if (/^[+-]?\d+$/.test(s)) return Number.parseInt(s, 10) * 1000;
  try {
    return Number(parseGoDuration(s)) / 1e6;
  } catch (err) {
    if (err instanceof GoDurationError) return undefined;
    throw err;
  }
}

/** A retry strategy with its defaults resolved. */
export interface RetryPolicy {
  /** 0 = no retry; negative = unlimited. */
  readonly limit: number;
  readonly durationMs: number;
  readonly factor: number;
  /** ≤ 0 disables the cap. */
  readonly maxDurationMs: number;
  readonly refresh: boolean;
}

/** Resolves a retry strategy (absent: no retry); unparsable durations fall back to the defaults. */
export function retryPolicy(strategy: RetryStrategy | undefined): RetryPolicy {
  const b = strategy?.backoff;
  return {
    limit: strategy?.limit ?? 0,
    durationMs: durationOr(b?.duration, ApplicationDefaults.backoffDuration),
    factor: b?.factor ?? ApplicationDefaults.backoffFactor,
    maxDurationMs: durationOr(b?.maxDuration, ApplicationDefaults.backoffMaxDuration),
    refresh: strategy?.refresh ?? false,
  };
}

/** A duration in milliseconds, or the default's when it is absent or unparsable. */
function durationOr(value: string | undefined, fallback: string): number {
  return parseBackoffDuration(value ?? "") ?? (parseBackoffDuration(fallback) as number);
}

/** The wait after the n-th failure: `min(maxDuration, duration × factor^n)`. */
export function backoffMs(policy: RetryPolicy, n: number): number {
  const raw = policy.durationMs * Math.pow(policy.factor, Math.max(0, n));
  return policy.maxDurationMs > 0 ? Math.min(policy.maxDurationMs, raw) : raw;
}

/** When the operation retries after failing at `finishedAtMs` with `retryCount` retries recorded. */
export function nextRetryAt(policy: RetryPolicy, finishedAtMs: number, retryCount: number): number {
  return finishedAtMs + backoffMs(policy, retryCount);
}

/** True when another retry is allowed after `retryCount` retries. */
export function canRetry(policy: RetryPolicy, retryCount: number): boolean {
  return policy.limit < 0 || retryCount < policy.limit;
}

/** `<msg>. Retrying attempt #<n> at <RFC 3339 time, UTC>.` */
export function retryingMessage(message: string, attempt: number, atMs: number): string {
  return `${message}. Retrying attempt #${String(attempt)} at ${rfc3339(atMs)}.`;
}

/** `Retrying operation[ with latest revisions]. Attempt #<n>` */
export function restartMessage(attempt: number, refresh: boolean): string {
  return `Retrying operation${refresh ? " with latest revisions" : ""}. Attempt #${String(attempt)}`;
}

/** `<msg> (retried <n> times).` */
export function exhaustedMessage(message: string, retries: number): string {
  return `${message} (retried ${String(retries)} times).`;
}
