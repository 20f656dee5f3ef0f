/** Health of networking.k8s.io (and extensions) Ingresses. */
import type { KubeObject } from "../../kube/index.js";
import { arr } from "../objects.js";
import type { HealthResult } from "../types.js";

/** Ingress: Healthy once the load balancer reports an ingress point, else Progressing. */
export function ingressHealth(obj: KubeObject): HealthResult {
  return { status: arr(obj, "status", "loadBalancer", "ingress").length > 0 ? "Healthy" : "Progressing" };
}
