/**
 * Reverse deletion (docs/progressive-syncs.md#reverse-deletion) as decisions. When an
 * ApplicationSet with `deletionOrder: Reverse` is deleted, its Applications go one at a time, last
 * step first; the next is not touched until the previous object has disappeared. Applications in no
 * step are left to garbage collection. {@link nextReverseDeletion} reads the cached Applications
 * and says what to do next; the controller does it (delete, wait, or check the API server when the
 * cache has shown an Application terminating for over two minutes) and asks again.
 */
import { Finalizer, type ApplicationSet, type Application } from "../api/index.js";
import { parseTime } from "./observe.js";
import { assignSteps, labelsOf } from "./steps.js";
import { deletionReversed } from "./strategy.js";

/** How often the controller looks again while an Application is being deleted. */
export const REVERSE_DELETION_REQUEUE_MS = 10_000;
/** How long the cache may show an Application terminating before the API server is asked directly. */
export const STALE_CACHE_THRESHOLD_MS = 120_000;

/** Error messages of the deletion path, in Argo CD's words. */
export const ReverseDeletionError = {
  StillPresent: "application has not been deleted in over 2 minutes",
  notVerified: (app: string, cause: string): string =>
    `application ${app} has not been deleted in over 2m0s and could not be verified against the API server: ${cause}`,
  recreated: (app: string): string => `application ${app} was recreated while being confirmed as deleted`,
  notEvicted: (app: string, cause: string): string =>
    `application ${app} is absent from the API server but its stale cache entry could not be evicted: ${cause}`,
  evictionUnconfirmed: (app: string, cause: string): string =>
    `could not confirm the stale cache entry for application ${app} was evicted: ${cause}`,
  stillCached: (app: string): string => `stale cache entry for application ${app} is still present after eviction`,
} as const;

/** Whether the ApplicationSet must get `resources-finalizer.argocd.argoproj.io` before generating. */
export function needsFinalizer(appSet: ApplicationSet, progressiveSyncsEnabled: boolean): boolean {
  return progressiveSyncsEnabled && deletionReversed(appSet) && !(appSet.metadata.finalizers ?? []).includes(Finalizer.Resources);
}

/**
 * The Applications that take part, in deletion order: steps from the current Applications'
 * labels, last step first, by name within a step (the order Argo CD leaves unspecified).
 */
export function reverseDeletionOrder(appSet: ApplicationSet, current: readonly Application[]): string[] {
  const steps = appSet.spec.strategy?.rollingSync?.steps ?? [];
  const { appStep } = assignSteps(
    steps,
    current.map((a) => ({ name: a.metadata.name ?? "", labels: labelsOf(a.metadata) })),
  );
  return [...appStep].sort(([an, as], [bn, bs]) => bs - as || (an < bn ? -1 : an > bn ? 1 : 0)).map(([n]) => n);
}

/** What to do next in a Reverse deletion pass. */
export type ReverseDeletionStep =
  /** Every ordered Application is gone: remove the ApplicationSet's finalizer. */
  | { readonly kind: "done" }
  /** DELETE this Application (NotFound counts as deleted), then requeue. */
  | { readonly kind: "delete"; readonly application: string; readonly requeueAfterMs: number }
  /** The Application is terminating: look again later. */
  | { readonly kind: "wait"; readonly application: string; readonly requeueAfterMs: number }
  /**
   * The cache has shown it terminating for over two minutes: GET it from the API server. Present:
   * fail with `StillPresent`. Absent: evict the cache entry with a DELETE preconditioned on `uid`,
   * confirm the cache no longer has it, and ask again without it.
   */
  | { readonly kind: "verifyLive"; readonly application: string; readonly uid: string | undefined };

/** What {@link nextReverseDeletion} reads. */
export interface ReverseDeletionInput {
  readonly appSet: ApplicationSet;
  /** The owned Applications in the cache. */
  readonly current: readonly Application[];
  readonly now: number;
}

/** The next Reverse deletion action: the first Application, in reverse step order, still in the cache. */
export function nextReverseDeletion(input: ReverseDeletionInput): ReverseDeletionStep {
  const byName = new Map(input.current.map((a) => [a.metadata.name ?? "", a]));
  for (const name of reverseDeletionOrder(input.appSet, input.current)) {
    const app = byName.get(name);
    if (app === undefined) continue;
    const deletedAt = parseTime(app.metadata.deletionTimestamp);
    if (app.metadata.deletionTimestamp == null) return { kind: "delete", application: name, requeueAfterMs: REVERSE_DELETION_REQUEUE_MS };
    if (deletedAt !== undefined && input.now - deletedAt > STALE_CACHE_THRESHOLD_MS) {
      return { kind: "verifyLive", application: name, uid: app.metadata.uid };
    }
    return { kind: "wait", application: name, requeueAfterMs: REVERSE_DELETION_REQUEUE_MS };
  }
  return { kind: "done" };
}
