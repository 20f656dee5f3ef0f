/** Health of external-secrets.io resources (the facts of Argo CD's bundled checks). */
import type { KubeObject } from "../../kube/index.js";
import { str } from "../objects.js";
import { conditionsOf, health, readyConditionHealth } from "./conditions.js";
import type { HealthResult } from "../types.js";
import { HealthScriptMessage } from "./lua/run.js";

/**
 * ExternalSecret: by the first `Ready` condition that counts — with `refreshPolicy: OnChange`, only
 * one at or after `status.refreshTime` (RFC 3339 strings compare as times). True → Healthy, False →
 * Degraded; a counted condition of any other status gives no health, which Argo CD's script reports
 * as Unknown. "Waiting for ExternalSecret" until one counts.
 */
export function externalSecretHealth(obj: KubeObject): HealthResult {
  const onChange = str(obj, "spec", "refreshPolicy") === "OnChange";
  const refreshed = str(obj, "status", "refreshTime");
  const counted = conditionsOf(obj).find(
    (c) =>
      c.type === "Ready" &&
      (!onChange || (c.lastTransitionTime !== undefined && refreshed !== undefined && c.lastTransitionTime >= refreshed)),
  );
  if (counted === undefined) return health("Progressing", "Waiting for ExternalSecret");
  if (counted.status === "False") return health("Degraded", counted.message);
  if (counted.status === "True") return health("Healthy", counted.message);
  return health("Unknown", HealthScriptMessage.notTable("nil"));
}

/** SecretStore: by its `Ready` condition; "Waiting for SecretStore" until one says. */
export function secretStoreHealth(obj: KubeObject): HealthResult {
  return readyConditionHealth(obj, "Waiting for SecretStore");
}

/** ClusterSecretStore: by its `Ready` condition; "Waiting for ClusterSecretStore" until one says. */
export function clusterSecretStoreHealth(obj: KubeObject): HealthResult {
  return readyConditionHealth(obj, "Waiting for ClusterSecretStore");
}
