/** Health of autoscaling/v1 and v2 HorizontalPodAutoscalers. */
import type { KubeObject } from "../../kube/index.js";
import { annotation, arr, str } from "../objects.js";
import type { HealthResult } from "../types.js";

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
