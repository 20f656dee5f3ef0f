/**
 * Where the controller reports RollingSync progress (docs/metrics.md#progressive-syncs): the port
 * the executor and the reconciler call, which `ProgressiveSyncMetrics` of `src/metrics` satisfies,
 * and {@link rolloutReport}, the pure part that decides what a plan reports.
 */
import type { RolloutPlan } from "./plan-rollout.js";
import type { RolloutReport } from "./plan-types.js";
import type { SafetyReport } from "../progressivesync/safety/index.js";

/** The ApplicationSet a report is about. */
export interface AppSetRef {
  readonly namespace: string;
  readonly name: string;
}

/** The progressive-sync metrics port. */
export interface RolloutMetrics {
  /** Replaces the ApplicationSet's per-step, per-status Application counts with those of `entries`. */
  setAppStatus(appSet: AppSetRef, entries: readonly { readonly step: string; readonly status: string }[]): void;
  /** A sync operation was written for an Application of `step`. */
  syncTriggered(appSet: AppSetRef, step: string): void;
  /** The refresh annotation was written on an Application the rollout waits for. */
  refreshTriggered(appSet: AppSetRef): void;
  /** Seconds from the pass deciding which Applications may sync to the start of their writes. */
  observeDetectionToTrigger(appSet: AppSetRef, seconds: number): void;
  /** The ApplicationSet is gone: its per-step counts go too. */
  forgetAppSet(appSet: AppSetRef): void;
  /** Rollout safety's report of a pass, once its RolloutRun writes went through. */
  reportSafety?(appSet: AppSetRef, report: SafetyReport): void;
}

/** The ApplicationSet of an object's metadata. */
export function refOf(appSet: { metadata: { namespace?: string; name?: string } }): AppSetRef {
  return { namespace: appSet.metadata.namespace ?? "", name: appSet.metadata.name ?? "" };
}

/**
 * What a pass planned at `now` reports once applied: the `applicationStatus` the rollout decided
 * (every RollingSync pass, and `[]` when a stale one is cleared), and, when the pass found
 * Applications allowed to sync (Argo CD's non-empty `appsToSync`), the time of that decision.
 */
export function rolloutReport(d: RolloutPlan, now: number): RolloutReport | undefined {
  const detected = d.mode === "rollingSync" && d.appsToSync.length > 0;
  if (d.applicationStatus === undefined && !detected) return undefined;
  return { ...(d.applicationStatus !== undefined ? { entries: d.applicationStatus } : {}), ...(detected ? { detectedAt: now } : {}) };
}
