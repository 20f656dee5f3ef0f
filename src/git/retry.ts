/**
 * Argo CD's retries of `git ls-remote` (`ARGOCD_GIT_ATTEMPTS_COUNT`, `ARGOCD_GIT_RETRY_*`): up to
 * `attempts` tries; after a transient failure (a time limit, a dropped connection, an HTTP 429 or
 * 5xx answer) the next try waits `delayMs × factor^n`, at most `maxDelayMs` (0: no cap); any other
 * failure is tried again at once, as Argo CD's loop does. An abort by the caller is never retried.
 * Time comes from the injected clock.
 */
import type { Clock } from "../clock/index.js";
import { GitCommandError } from "./exec.js";

/** How a failing ls-remote is retried. */
export interface GitRetryPolicy {
  /** Tries in all (at least 1). */
  readonly attempts: number;
  /** Wait before the first retry of a transient failure, in ms. */
  readonly delayMs: number;
  readonly factor: number;
  /** Longest wait, in ms (0: no cap). */
  readonly maxDelayMs: number;
}

/** One try, no retry. */
export const NO_RETRY: GitRetryPolicy = { attempts: 1, delayMs: 0, factor: 1, maxDelayMs: 0 };

/** What git's stderr says when the server or the network failed, not the request. */
const TRANSIENT =
  /returned error: (429|5\d\d)|Connection reset|Connection timed out|Operation timed out|early EOF|unexpected disconnect|the remote end hung up unexpectedly|RPC failed/i;

/** Whether a failure is worth waiting for before the next try. */
export function isTransientGitFailure(err: unknown): boolean {
  if (!(err instanceof GitCommandError)) return false;
  return err.failure === "timeout" || (err.failure === "exit" && TRANSIENT.test(err.message));
}

/** The wait before try `attempt + 1` (attempt counts from 0): `delay × factor^attempt`, capped. */
export function retryDelayMs(policy: GitRetryPolicy, attempt: number): number {
  const wait = policy.delayMs * Math.pow(policy.factor, attempt);
  return policy.maxDelayMs > 0 ? Math.min(policy.maxDelayMs, wait) : wait;
}

/** Runs `fn` up to `policy.attempts` times; rejects with the last failure. */
export async function withGitRetries<T>(
  policy: GitRetryPolicy,
  clock: Pick<Clock, "sleep">,
  signal: AbortSignal | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const attempts = Math.max(1, Math.floor(policy.attempts));
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const aborted = signal?.aborted === true || (err instanceof GitCommandError && err.failure === "aborted");
      if (aborted || attempt + 1 >= attempts) throw err;
      if (isTransientGitFailure(err)) await clock.sleep(retryDelayMs(policy, attempt), signal);
    }
  }
}
