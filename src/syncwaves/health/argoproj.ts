/** Health of argoproj.io Workflows (Argo Workflows). */
import type { KubeObject } from "../../kube/index.js";
import { str } from "../objects.js";
import type { HealthResult } from "../types.js";

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
