/**
 * Rollout safety's metrics (docs/metrics.md#rollout-safety), this project's own: how long each
 * step of a rollout ran until it completed, halted or was rolled back, the halts by reason, and the
 * failed Applications of each step of an ApplicationSet's current rollout.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { SafetyReport } from "../progressivesync/safety/index.js";
import type { AppSetRef } from "./progressive-sync.js";

/** Buckets of `appset_rollout_step_duration_seconds`: 30 s to 6 h. */
export const STEP_DURATION_BUCKETS = [30, 60, 300, 600, 1800, 3600, 7200, 21600];

const FAMILIES = {
  stepDuration: {
    name: "appset_rollout_step_duration_seconds",
    help: "Seconds a rollout step ran, from its start until it completed, halted or was rolled back",
    labelNames: ["namespace", "name", "step", "phase"] as const,
  },
  halts: {
    name: "appset_rollout_halts_total",
    help: "Rollouts halted, by reason (ProgressDeadlineExceeded, FailureBudgetExceeded, Aborted)",
    labelNames: ["namespace", "name", "reason"] as const,
  },
  failed: {
    name: "appset_rollout_failed_applications",
    help: "Failed Applications of each step of the ApplicationSet's current rollout",
    labelNames: ["namespace", "name", "step"] as const,
  },
};

/** Rollout safety's metrics on one registry. */
export class RolloutSafetyMetrics {
  private readonly stepDuration: Histogram<"namespace" | "name" | "step" | "phase">;
  private readonly halts: Counter<"namespace" | "name" | "reason">;
  private readonly failed: Gauge<"namespace" | "name" | "step">;
  /** The failed-Applications series per ApplicationSet, so a new run replaces them. */
  private readonly series = new Map<string, string[]>();

  constructor(registers: Registry[]) {
    this.stepDuration = new Histogram({ ...FAMILIES.stepDuration, buckets: STEP_DURATION_BUCKETS, registers });
    this.halts = new Counter({ ...FAMILIES.halts, registers });
    this.failed = new Gauge({ ...FAMILIES.failed, registers });
  }

  /** Records one pass's report. */
  report(appSet: AppSetRef, r: SafetyReport): void {
    const base = { namespace: appSet.namespace, name: appSet.name };
    for (const e of r.stepEnds) this.stepDuration.observe({ ...base, step: e.step, phase: e.phase }, e.seconds);
    for (const reason of r.halts) this.halts.inc({ ...base, reason });
    this.forget(appSet);
    for (const f of r.failed) this.failed.set({ ...base, step: f.step }, f.count);
    this.series.set(
      `${appSet.namespace}/${appSet.name}`,
      r.failed.map((f) => f.step),
    );
  }

  /** Removes the ApplicationSet's failed-Applications series (the histogram and the counter keep theirs). */
  forget(appSet: AppSetRef): void {
    const key = `${appSet.namespace}/${appSet.name}`;
    for (const step of this.series.get(key) ?? []) this.failed.remove({ namespace: appSet.namespace, name: appSet.name, step });
    this.series.delete(key);
  }
}
