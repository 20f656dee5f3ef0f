/** Health of apiextensions.k8s.io CustomResourceDefinitions, as Argo CD's built-in check reads them. */
import type { KubeObject } from "../../kube/index.js";
import { arr, str } from "../objects.js";
import type { HealthResult } from "../types.js";

type Condition = Record<string, unknown>;

const isTrue = (c: Condition, type: string): boolean => str(c, "type") === type && str(c, "status") === "True";

/** The verdict of one condition, when it decides on its own. */
function conditionVerdict(c: Condition): HealthResult | undefined {
  const message = str(c, "message") ?? "";
  if (isTrue(c, "Terminating")) return { status: "Progressing", message: `CRD is terminating: ${message}` };
  if (str(c, "type") === "NamesAccepted" && str(c, "status") === "False") {
    return { status: "Degraded", message: `CRD names have not been accepted: ${message}` };
  }
  if (isTrue(c, "NonStructuralSchema")) return { status: "Degraded", message: `Schema violations found: ${message}` };
  if (str(c, "type") !== "Established" || str(c, "status") === "True") return undefined;
  if (str(c, "reason") === "InvalidCABundle") return { status: "Degraded", message: `CRD is not established: ${message}` };
  if (str(c, "reason") === "Installing") return { status: "Progressing", message: "CRD is being installed" };
  return undefined;
}

/**
 * CRD: Progressing while it has no conditions, is terminating or being installed; Degraded when
 * its names are refused, its schema is not structural or its CA bundle is invalid; Healthy once
 * Established. Conditions are read in order; the first that decides wins.
 */
export function crdHealth(obj: KubeObject): HealthResult {
  if (obj.metadata?.deletionTimestamp) return { status: "Progressing", message: "CRD is terminating" };
  const conditions = arr(obj, "status", "conditions") as Condition[];
  if (conditions.length === 0) return { status: "Progressing", message: "Status conditions not found" };
  for (const c of conditions) {
    const verdict = conditionVerdict(c);
    if (verdict !== undefined) return verdict;
  }
  if (!conditions.some((c) => isTrue(c, "Established"))) return { status: "Progressing", message: "CRD is not established" };
  return { status: "Healthy", message: "CRD is healthy" };
}
