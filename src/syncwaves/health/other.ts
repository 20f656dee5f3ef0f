/**
 * Health of the remaining built-in kinds (sync-engine spec §5): Ingress, APIService,
 * HorizontalPodAutoscaler, PodDisruptionBudget and Argo Workflows.
 */
import type { KubeObject } from "../../kube/index.js";
import { annotation, arr, field, str } from "../objects.js";
import type { HealthResult } from "../types.js";

/** Ingress: Healthy once the load balancer reports an ingress point, else Progressing. */
export function ingressHealth(obj: KubeObject): HealthResult {
  return { status: arr(obj, "status", "loadBalancer", "ingress").length > 0 ? "Healthy" : "Progressing" };
}

/** APIService: the Available condition decides; never Degraded. */
export function apiServiceHealth(obj: KubeObject): HealthResult {
  const available = arr(obj, "status", "conditions").find((c) => str(c, "type") === "Available");
  if (available === undefined) return { status: "Progressing", message: "Waiting to be processed" };
  const message = `${str(available, "reason") ?? ""}: ${str(available, "message") ?? ""}`;
  return { status: str(available, "status") === "True" ? "Healthy" : "Progressing", message };
}

const HPA_DEGRADED_REASONS: Readonly<Record<string, readonly string[]>> = {
  AbleToScale: ["FailedGetScale", "FailedUpdateScale"],
  ScalingActive: [
    "FailedGetResourceMetric",
    "FailedGetObjectMetric",
    "FailedGetPodsMetric",
    "FailedGetExternalMetric",
    "FailedComputeMetricsReplicas",
    "InvalidSelector",
  ],
};

/** The conditions of an HPA: v2 status, or v1's JSON annotation. */
function hpaConditions(obj: KubeObject): unknown[] {
  const v2 = arr(obj, "status", "conditions");
  if (v2.length > 0) return v2;
  const v1 = annotation(obj, "autoscaling.alpha.kubernetes.io/conditions");
  if (v1 === undefined) return [];
  try {
    const parsed = JSON.parse(v1) as unknown;
    return Array.isArray(parsed) ? (parsed as unknown[]) : [];
  } catch {
    return [];
  }
}

/** HorizontalPodAutoscaler: failing metric/scale conditions → Degraded; able to scale → Healthy. */
export function hpaHealth(obj: KubeObject): HealthResult {
  const conditions = hpaConditions(obj);
  for (const c of conditions) {
    if (HPA_DEGRADED_REASONS[str(c, "type") ?? ""]?.includes(str(c, "reason") ?? "")) {
      return { status: "Degraded", message: str(c, "message") ?? "" };
    }
  }
  const ok = conditions.find((c) => ["AbleToScale", "ScalingLimited"].includes(str(c, "type") ?? "") && str(c, "status") === "True");
  if (ok !== undefined) return { status: "Healthy", message: str(ok, "message") ?? "" };
  return { status: "Progressing", message: "Waiting to Autoscale" };
}

/** PodDisruptionBudget: a False condition (other than InsufficientPods) → Degraded; no status → Progressing. */
export function pdbHealth(obj: KubeObject): HealthResult {
  if (field(obj, "status") === undefined) return { status: "Progressing", message: "Waiting for status" };
  const bad = arr(obj, "status", "conditions").find((c) => str(c, "status") === "False" && str(c, "reason") !== "InsufficientPods");
  if (bad !== undefined) return { status: "Degraded", message: str(bad, "message") ?? "" };
  return { status: "Healthy" };
}

/** Argo Workflow: by `status.phase`. */
export function workflowHealth(obj: KubeObject): HealthResult {
  const message = str(obj, "status", "message") ?? "";
  switch (str(obj, "status", "phase") ?? "") {
    case "":
    case "Pending":
    case "Running":
      return { status: "Progressing", message };
    case "Succeeded":
      return { status: "Healthy", message };
    case "Failed":
    case "Error":
      return { status: "Degraded", message };
    default:
      return { status: "Unknown", message };
  }
}
