/**
 * Resource health (docs/sync-engine.md#health): the built-in checks by group and kind, the
 * pending-deletion rule, and — beyond Argo CD — a generic guard that reports Progressing while any
 * object's controller has not yet observed its current generation. Pure; `undefined` means "no
 * health check".
 */
import { Finalizer } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { groupOf, num } from "../objects.js";
import type { HealthResult } from "../types.js";
import { daemonSetHealth, deploymentHealth, replicaSetHealth, statefulSetHealth } from "./apps.js";
import { cronJobHealth, jobHealth } from "./batch.js";
import { podHealth, pvcHealth, serviceHealth } from "./core.js";
import { crdHealth } from "./apiextensions.js";
import { apiServiceHealth } from "./apiregistration.js";
import { workflowHealth } from "./argoproj.js";
import { hpaHealth } from "./autoscaling.js";
import { ingressHealth } from "./networking.js";
import { pdbHealth } from "./policy.js";

export { aggregateHealth, worseHealth, type AggregateInput } from "./aggregate.js";

type Check = (obj: KubeObject, isHook: boolean) => HealthResult;

/** The built-in checks, keyed by `group/kind`. */
const CHECKS: ReadonlyMap<string, Check> = new Map<string, Check>([
  ["apps/Deployment", deploymentHealth],
  ["apps/StatefulSet", statefulSetHealth],
  ["apps/DaemonSet", daemonSetHealth],
  ["apps/ReplicaSet", replicaSetHealth],
  ["/Pod", podHealth],
  ["/Service", serviceHealth],
  ["/PersistentVolumeClaim", pvcHealth],
  ["batch/Job", jobHealth],
  ["batch/CronJob", cronJobHealth],
  ["extensions/Ingress", ingressHealth],
  ["networking.k8s.io/Ingress", ingressHealth],
  ["apiregistration.k8s.io/APIService", apiServiceHealth],
  ["apiextensions.k8s.io/CustomResourceDefinition", crdHealth],
  ["autoscaling/HorizontalPodAutoscaler", hpaHealth],
  ["policy/PodDisruptionBudget", pdbHealth],
  ["argoproj.io/Workflow", workflowHealth],
]);

/** True when a built-in check exists for the object's group and kind. */
export function hasHealthCheck(obj: KubeObject): boolean {
  return CHECKS.has(`${groupOf(obj)}/${obj.kind ?? ""}`);
}

/** The result for an object whose controller has not caught up with its spec. */
function unobservedGeneration(obj: KubeObject): HealthResult | undefined {
  const observed = num(obj, "status", "observedGeneration");
  const generation = obj.metadata?.generation;
  if (observed === undefined || generation === undefined || generation <= observed) return undefined;
  return {
    status: "Progressing",
    message: `Waiting for generation ${String(generation)} to be observed (observed ${String(observed)})`,
  };
}

/** Options of {@link resourceHealth}. */
export interface HealthOptions {
  /** The object is a hook: Pod checks ignore the ignore-restart-policy annotation. */
  readonly isHook?: boolean;
}

/**
 * The health of a live object, or undefined when no check applies.
 *
 * Order: an object being deleted without the hook finalizer is `Progressing` "Pending deletion";
 * then (beyond Argo CD) a status whose `observedGeneration` lags `metadata.generation` is
 * `Progressing`; then the built-in check of its kind. A check that throws yields `Unknown`.
 */
export function resourceHealth(obj: KubeObject, options: HealthOptions = {}): HealthResult | undefined {
  const meta = obj.metadata ?? {};
  const finalizers = Array.isArray(meta.finalizers) ? (meta.finalizers as unknown[]) : [];
  if (meta.deletionTimestamp && !finalizers.includes(Finalizer.Hook)) {
    return { status: "Progressing", message: "Pending deletion" };
  }
  const check = CHECKS.get(`${groupOf(obj)}/${obj.kind ?? ""}`);
  const lagging = unobservedGeneration(obj);
  if (lagging !== undefined) return lagging;
  if (check === undefined) return undefined;
  try {
    return check(obj, options.isHook ?? false);
  } catch (err) {
    return { status: "Unknown", message: err instanceof Error ? err.message : String(err) };
  }
}
