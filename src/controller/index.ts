/**
 * The ApplicationSet controller: informers feed a de-duplicating work queue; each reconcile reads a
 * snapshot from the caches, asks the pure planner what should change, and applies the plan through the
 * kube ports. I/O only through injected ports (src/kube), time only through the Clock.
 */
export { AppSetController, type ControllerOptions } from "./controller.js";
export type { Shard } from "../shard/index.js";
export { AppSetReconciler, splitKey, type ControllerCaches, type GenerateFn, type ReconcilerOptions } from "./reconciler.js";
export { PlanExecutor, ApplyError, type ExecutorOptions } from "./apply.js";
export { planAppSet, isRollingSync } from "./plan.js";
export { isNoop, type Plan, type AppWrite, type AppDelete, type OwnerStrip, type PlannedEvent } from "./plan-types.js";
export { DEFAULT_PLAN_SETTINGS, type AppSetSnapshot, type Generation, type PlanSettings } from "./snapshot.js";
export { generatorFn } from "./generation.js";
export { KubeEventSink, MemoryEventSink, type EventSink } from "./events.js";
export { effectivePolicy, resolvePolicy, allowsDelete, allowsUpdate } from "./policy.js";
export { REQUEUE_ON_ERROR_MS } from "./requeue.js";
export { rolloutSafetyAvailable } from "./rollout-safety-probe.js";
export { type AppSetRef, type RolloutMetrics } from "./rollout-metrics.js";
