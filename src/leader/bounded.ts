/**
 * The two waits of a Lease loop (leader election and shard membership), on the injected Clock: an
 * API call bounded by a deadline, and a sleep that says whether it ran to its end.
 */
import type { Clock } from "../clock/index.js";

/** `call`, or a rejection once `ms` have passed; the call itself is not cancelled (the port takes no signal), its result is ignored. */
export async function withinMs<T>(clock: Pick<Clock, "sleep">, call: Promise<T>, ms: number): Promise<T> {
  const timer = new AbortController();
  const timeout = clock.sleep(ms, timer.signal).then(
    () => Promise.reject(new Error(`the apiserver did not answer within ${ms} ms`)),
    () => new Promise<never>(() => {}),
  );
  try {
    return await Promise.race([call, timeout]);
  } finally {
    timer.abort();
  }
}

/** Sleeps `ms`; false when `signal` aborted first. */
export async function sleepUnlessAborted(clock: Pick<Clock, "sleep">, ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await clock.sleep(ms, signal);
    return true;
  } catch {
    return false;
  }
}
