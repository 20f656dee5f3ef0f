/**
 * Health of the apps/v1 workloads: Deployment, StatefulSet, DaemonSet,
 * ReplicaSet. Each check first requires the controller to have observed the current generation.
 */
import type { KubeObject } from "../../kube/index.js";
import { arr, field, num, str } from "../objects.js";
import type { HealthResult } from "../types.js";

const progressing = (message: string): HealthResult => ({ status: "Progressing", message });

function generation(obj: KubeObject): number {
  return obj.metadata?.generation ?? 0;
}

function conditionOf(obj: KubeObject, type: string): Record<string, unknown> | undefined {
  return arr(obj, "status", "conditions").find((c) => field(c, "type") === type) as Record<string, unknown> | undefined;
}

/** Deployment: paused → Suspended; deadline exceeded → Degraded; replica counts → Progressing. */
export function deploymentHealth(obj: KubeObject): HealthResult {
  if (field(obj, "spec", "paused") === true) return { status: "Suspended", message: "Deployment is paused" };
  if (generation(obj) > (num(obj, "status", "observedGeneration") ?? 0)) {
    return progressing("Waiting for rollout to finish: observed deployment generation less than desired generation");
  }
  if (str(conditionOf(obj, "Progressing"), "reason") === "ProgressDeadlineExceeded") {
    return { status: "Degraded", message: `Deployment ${JSON.stringify(obj.metadata?.name ?? "")} exceeded its progress deadline` };
  }
  return deploymentRollout(obj);
}

/** A Deployment's rollout by its replica counts: updated, old pending termination, available. */
function deploymentRollout(obj: KubeObject): HealthResult {
  const replicas = num(obj, "spec", "replicas") ?? 1;
  const updated = num(obj, "status", "updatedReplicas") ?? 0;
  const total = num(obj, "status", "replicas") ?? 0;
  const available = num(obj, "status", "availableReplicas") ?? 0;
  if (updated < replicas) {
    return progressing(`Waiting for rollout to finish: ${String(updated)} out of ${String(replicas)} new replicas have been updated...`);
  }
  if (total > updated) {
    return progressing(`Waiting for rollout to finish: ${String(total - updated)} old replicas are pending termination...`);
  }
  if (available < updated) {
    return progressing(`Waiting for rollout to finish: ${String(available)} of ${String(updated)} updated replicas are available...`);
  }
  return { status: "Healthy" };
}

/** StatefulSet: observed generation, ready replicas, partitioned and revision-based rollouts. */
export function statefulSetHealth(obj: KubeObject): HealthResult {
  const observed = num(obj, "status", "observedGeneration") ?? 0;
  if (observed === 0 || generation(obj) > observed) return progressing("Waiting for statefulset spec update to be observed...");
  const replicas = num(obj, "spec", "replicas") ?? 1;
  const ready = num(obj, "status", "readyReplicas") ?? 0;
  const updated = num(obj, "status", "updatedReplicas") ?? 0;
  if (ready < replicas) return progressing(`Waiting for ${String(replicas - ready)} pods to be ready...`);
  const strategy = str(obj, "spec", "updateStrategy", "type");
  if (strategy === "RollingUpdate" && field(obj, "spec", "updateStrategy", "rollingUpdate") !== undefined)
    return partitionedRollout(obj, replicas, updated);
  if (strategy === "OnDelete") return { status: "Healthy", message: `statefulset has ${String(ready)} ready pods` };
  return revisionRollout(obj, updated);
}

/** A StatefulSet's partitioned rolling update: the pods at or above the partition updated. */
function partitionedRollout(obj: KubeObject, replicas: number, updated: number): HealthResult {
  const partition = num(obj, "spec", "updateStrategy", "rollingUpdate", "partition");
  if (partition !== undefined && updated < replicas - partition) {
    return progressing(
      `Waiting for partitioned roll out to finish: ${String(updated)} out of ${String(replicas - partition)} new pods have been updated...`,
    );
  }
  return { status: "Healthy", message: `partitioned roll out complete: ${String(updated)} new pods have been updated...` };
}

/** A StatefulSet's revision-based rolling update: done when the current revision is the update revision. */
function revisionRollout(obj: KubeObject, updated: number): HealthResult {
  const updateRevision = str(obj, "status", "updateRevision") ?? "";
  const currentRevision = str(obj, "status", "currentRevision") ?? "";
  if (updateRevision !== currentRevision) {
    return progressing(`waiting for statefulset rolling update to complete ${String(updated)} pods at revision ${updateRevision}...`);
  }
  const current = num(obj, "status", "currentReplicas") ?? 0;
  return { status: "Healthy", message: `statefulset rolling update complete ${String(current)} pods at revision ${currentRevision}...` };
}

/** DaemonSet: observed generation, then updated and available pods against the desired count. */
export function daemonSetHealth(obj: KubeObject): HealthResult {
  if (generation(obj) > (num(obj, "status", "observedGeneration") ?? 0)) {
    return progressing("Waiting for rollout to finish: observed daemon set generation less than desired generation");
  }
  const desired = num(obj, "status", "desiredNumberScheduled") ?? 0;
  const updated = num(obj, "status", "updatedNumberScheduled") ?? 0;
  const available = num(obj, "status", "numberAvailable") ?? 0;
  if (str(obj, "spec", "updateStrategy", "type") === "OnDelete") {
    return { status: "Healthy", message: `daemon set ${String(updated)} out of ${String(desired)} new pods have been updated` };
  }
  const name = JSON.stringify(obj.metadata?.name ?? "");
  if (updated < desired) {
    return progressing(
      `Waiting for daemon set ${name} rollout to finish: ${String(updated)} out of ${String(desired)} new pods have been updated...`,
    );
  }
  if (available < desired) {
    return progressing(
      `Waiting for daemon set ${name} rollout to finish: ${String(available)} of ${String(desired)} updated pods are available...`,
    );
  }
  return { status: "Healthy" };
}

/** ReplicaSet: observed generation, ReplicaFailure → Degraded, available replicas. */
export function replicaSetHealth(obj: KubeObject): HealthResult {
  if (generation(obj) > (num(obj, "status", "observedGeneration") ?? 0)) {
    return progressing("Waiting for rollout to finish: observed replica set generation less than desired generation");
  }
  const failure = conditionOf(obj, "ReplicaFailure");
  if (str(failure, "status") === "True") return { status: "Degraded", message: str(failure, "message") ?? "" };
  const replicas = num(obj, "spec", "replicas") ?? 1;
  const available = num(obj, "status", "availableReplicas") ?? 0;
  if (available < replicas) {
    return progressing(`Waiting for rollout to finish: ${String(available)} out of ${String(replicas)} new replicas are available...`);
  }
  return { status: "Healthy" };
}
