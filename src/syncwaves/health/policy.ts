/** Health of policy/v1 PodDisruptionBudgets. */
import type { KubeObject } from "../../kube/index.js";
import { arr, field, str } from "../objects.js";
import type { HealthResult } from "../types.js";

/** PodDisruptionBudget: a False condition (other than InsufficientPods) → Degraded; no status → Progressing. */
export function pdbHealth(obj: KubeObject): HealthResult {
  if (field(obj, "status") === undefined) return { status: "Progressing", message: "Waiting for status" };
  const bad = arr(obj, "status", "conditions").find((c) => str(c, "status") === "False" && str(c, "reason") !== "InsufficientPods");
  if (bad !== undefined) return { status: "Degraded", message: str(bad, "message") ?? "" };
  return { status: "Healthy" };
}
