/**
 * What ends one informer watch besides the server (src/kube/informer.ts): the informer's stop, a
 * watch silent for longer than its idle timeout (no event, no bookmark), and the cache sync period
 * coming due. Every timer is on the injected Clock and is cleared by {@link WatchGuard.dispose}.
 */
import type { Clock, TimerHandle } from "../clock/index.js";

/** Why the guard ended a watch. */
export type GuardReason = { readonly kind: "idle"; readonly message: string } | { readonly kind: "resync" };

/** The guard of one watch. */
export interface WatchGuard {
  /** Aborted when the informer stops, the watch goes silent, or a resync is due. */
  readonly signal: AbortSignal;
  /** An event arrived: the watch is not silent. */
  seen(): void;
  /** Why the guard ended the watch; undefined when it did not (or the informer stopped). */
  reason(): GuardReason | undefined;
  /** Clears the timers and stops following the informer's stop. */
  dispose(): void;
}

/** Options of {@link guardWatch}. */
export interface WatchGuardOptions {
  readonly clock: Pick<Clock, "now" | "setTimeout" | "clearTimeout">;
  /** The informer's stop. */
  readonly stop: AbortSignal;
  /** How long the watch may stay silent. */
  readonly idleMs: number;
  /** Ms until the next periodic relist; absent: none. */
  readonly resyncDueMs?: number;
}

class IdleAbort extends Error {}
class ResyncAbort extends Error {}

/** Guards one watch from now on. */
export function guardWatch(o: WatchGuardOptions): WatchGuard {
  const { clock, stop, idleMs } = o;
  const controller = new AbortController();
  const onStop = (): void => controller.abort(stop.reason);
  stop.addEventListener("abort", onStop, { once: true });
  if (stop.aborted) onStop();
  let lastSeen = clock.now();
  let idle: TimerHandle | undefined;
  const arm = (ms: number): void => {
    idle = clock.setTimeout(() => {
      const quiet = clock.now() - lastSeen;
      if (quiet < idleMs) return arm(idleMs - quiet);
      controller.abort(new IdleAbort(`no watch event for ${quiet} ms`));
    }, ms);
  };
  arm(idleMs);
  const resync =
    o.resyncDueMs === undefined
      ? undefined
      : clock.setTimeout(() => controller.abort(new ResyncAbort("cache sync period elapsed")), o.resyncDueMs);
  return {
    signal: controller.signal,
    seen: () => {
      lastSeen = clock.now();
    },
    reason: () => {
      if (stop.aborted) return undefined;
      const why: unknown = controller.signal.reason;
      if (why instanceof ResyncAbort) return { kind: "resync" };
      if (why instanceof IdleAbort) return { kind: "idle", message: why.message };
      return undefined;
    },
    dispose: () => {
      if (idle !== undefined) clock.clearTimeout(idle);
      if (resync !== undefined) clock.clearTimeout(resync);
      stop.removeEventListener("abort", onStop);
    },
  };
}
