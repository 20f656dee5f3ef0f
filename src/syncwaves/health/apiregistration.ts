/** Health of apiregistration.k8s.io APIServices. */
import type { KubeObject } from "../../kube/index.js";
import { arr, str } from "../objects.js";
import type { HealthResult } from "../types.js";

/** APIService: the Available condition decides; never Degraded. */
export function apiServiceHealth(obj: KubeObject): HealthResult {
  const available = arr(obj, "status", "conditions").find((c) => str(c, "type") === "Available");
  if (available === undefined) return { status: "Progressing", message: "Waiting to be processed" };
  const message = `${str(available, "reason") ?? ""}: ${str(available, "message") ?? ""}`;
  return { status: str(available, "status") === "True" ? "Healthy" : "Progressing", message };
}
