/**
 * Time as a port. Everything outside `src/clock` and `src/kube` reads time and schedules work only
 * through a {@link Clock}, so tests move time with {@link FakeClock} instead of sleeping.
 */

/** A handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = { readonly id: number };

/** The clock every time-dependent module receives by injection. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; cancelling a fired or unknown timer does nothing. */
  clearTimeout(handle: TimerHandle): void;
  /** Resolves after `ms` milliseconds, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Formats a clock reading as Kubernetes' RFC 3339 timestamp with second precision. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Shared implementation of {@link Clock.sleep} on top of setTimeout/clearTimeout. */
export function sleepOn(clock: Pick<Clock, "setTimeout" | "clearTimeout">, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      reject(signal?.reason as Error);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
