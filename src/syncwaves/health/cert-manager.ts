/** Health of cert-manager.io resources (the facts of Argo CD's bundled checks). */
import type { KubeObject } from "../../kube/index.js";
import { conditionsOf, health, readyConditionHealth } from "./conditions.js";
import type { HealthResult } from "../types.js";

/** Certificate: `Issuing` True → Progressing, then by its `Ready` condition; "Waiting for certificate" until one says. */
export function certificateHealth(obj: KubeObject): HealthResult {
  const issuing = conditionsOf(obj).find((c) => c.type === "Issuing" && c.status === "True");
  if (issuing !== undefined) return health("Progressing", issuing.message);
  return readyConditionHealth(obj, "Waiting for certificate");
}

/** Issuer: by its `Ready` condition; "Initializing issuer" until one says. */
export function issuerHealth(obj: KubeObject): HealthResult {
  return readyConditionHealth(obj, "Initializing issuer");
}

/** ClusterIssuer: by its `Ready` condition; "Initializing ClusterIssuer" until one says. */
export function clusterIssuerHealth(obj: KubeObject): HealthResult {
  return readyConditionHealth(obj, "Initializing ClusterIssuer");
}
