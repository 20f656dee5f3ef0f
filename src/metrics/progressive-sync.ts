/**
 * Argo CD's progressive-sync metrics of the ApplicationSet controller
 * (docs/metrics.md#progressive-syncs), with its names, help texts, labels and buckets: the
 * Applications per RollingSync step and status, the syncs and refreshes the rollout triggered, and
 * how long a pass took from deciding which Applications may sync to triggering their syncs.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { SafetyReport } from "../progressivesync/safety/index.js";
import { RolloutSafetyMetrics } from "./rollout-safety.js";

/** The ApplicationSet a series belongs to. */
export interface AppSetRef {
  readonly namespace: string;
  readonly name: string;
}

/** One `status.applicationStatus` entry, as the app-status gauge counts it. */
export interface AppStatusView {
  readonly step: string;
  readonly status: string;
}

/** Argo CD's buckets of `argocd_appset_progressive_sync_detection_to_trigger_seconds`. */
export const DETECTION_TO_TRIGGER_BUCKETS = [0.05, 0.1, 0.15, 0.5, 1, 5];

type StepLabels = "namespace" | "name" | "step" | "progressiveStatus";

/** Argo CD's names, help texts and label names of the four families. */
const FAMILIES = {
  syncs: {
    name: "argocd_appset_progressive_sync_syncs_triggered_total",
    help: "Counts sync operations triggered by progressive sync",
    labelNames: ["namespace", "name", "step"] as const,
  },
  refreshes: {
    name: "argocd_appset_app_refresh_total",
    help: "Counts application refresh triggered by AppSet for progressive sync",
    labelNames: ["namespace", "name"] as const,
  },
  appStatus: {
    name: "argocd_appset_progressive_sync_app_status",
    help: "Count of apps per status (Waiting/Pending/Progressing/Healthy) per step",
    labelNames: ["namespace", "name", "step", "progressiveStatus"] as const,
  },
  detection: {
    name: "argocd_appset_progressive_sync_detection_to_trigger_seconds",
    help: "Time between detecting applications to sync and triggering their sync during a progressive sync wave",
    labelNames: ["namespace", "name"] as const,
  },
};

/** The progressive-sync metrics on one registry; the controller's `RolloutMetrics` port. */
export class ProgressiveSyncMetrics {
  private readonly appStatus: Gauge<StepLabels>;
  private readonly syncs: Counter<"namespace" | "name" | "step">;
  private readonly detection: Histogram<"namespace" | "name">;
  private readonly refreshes: Counter<"namespace" | "name">;
  private readonly safety: RolloutSafetyMetrics;
  /** The app-status series set per ApplicationSet (`namespace/name`), so they can be replaced or removed together. */
  private readonly series = new Map<string, Array<Record<StepLabels, string>>>();

  constructor(registers: Registry[]) {
    this.syncs = new Counter({ ...FAMILIES.syncs, registers });
    this.refreshes = new Counter({ ...FAMILIES.refreshes, registers });
    this.appStatus = new Gauge({ ...FAMILIES.appStatus, registers });
    this.detection = new Histogram({ ...FAMILIES.detection, buckets: DETECTION_TO_TRIGGER_BUCKETS, registers });
    this.safety = new RolloutSafetyMetrics(registers);
  }

  /** Rollout safety's report of a pass (docs/metrics.md#rollout-safety). */
  reportSafety(appSet: AppSetRef, report: SafetyReport): void {
    this.safety.report(appSet, report);
  }

  /**
   * Replaces the ApplicationSet's app-status series with the number of `entries` per step and
   * status: a step or status no entry has any more loses its series; `[]` removes them all.
   */
  setAppStatus(appSet: AppSetRef, entries: readonly AppStatusView[]): void {
    this.forgetAppSet(appSet);
    const counts = new Map<string, { labels: Record<StepLabels, string>; n: number }>();
    for (const e of entries) {
      const key = JSON.stringify([e.step, e.status]);
      const found = counts.get(key);
      if (found !== undefined) found.n++;
      else counts.set(key, { labels: { namespace: appSet.namespace, name: appSet.name, step: e.step, progressiveStatus: e.status }, n: 1 });
    }
    for (const { labels, n } of counts.values()) this.appStatus.set(labels, n);
    if (counts.size > 0)
      this.series.set(
        keyOf(appSet),
        [...counts.values()].map((c) => c.labels),
      );
  }

  /** One sync operation triggered for an Application of `step`. */
  syncTriggered(appSet: AppSetRef, step: string): void {
    this.syncs.inc({ namespace: appSet.namespace, name: appSet.name, step });
  }

  /** One Application refresh requested before the rollout may progress. */
  refreshTriggered(appSet: AppSetRef): void {
    this.refreshes.inc({ namespace: appSet.namespace, name: appSet.name });
  }

  /** Seconds from deciding which Applications may sync to triggering their syncs. */
  observeDetectionToTrigger(appSet: AppSetRef, seconds: number): void {
    this.detection.observe({ namespace: appSet.namespace, name: appSet.name }, seconds);
  }

  /** Removes the ApplicationSet's app-status and failed-Applications series (the counters and the histograms keep theirs). */
  forgetAppSet(appSet: AppSetRef): void {
    this.safety.forget(appSet);
    const key = keyOf(appSet);
    for (const labels of this.series.get(key) ?? []) this.appStatus.remove(labels);
    this.series.delete(key);
  }
}

function keyOf(appSet: AppSetRef): string {
  return `${appSet.namespace}/${appSet.name}`;
}
