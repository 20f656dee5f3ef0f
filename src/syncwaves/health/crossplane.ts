/**
 * Health of Crossplane resources: every kind of a `*.crossplane.io` group, and of a `*.upbound.io`
 * group (the providers' managed resources), as Argo CD's bundled wildcard checks judge them.
 */
import type { KubeObject } from "../../kube/index.js";
import { field } from "../objects.js";
import { conditionsOf, health } from "./conditions.js";
import type { HealthResult } from "../types.js";

const PROVISIONING = health("Progressing", "Provisioning ...");
const UP_TO_DATE = health("Healthy", "Resource is up-to-date.");

/** Kinds that have no status of their own, by family. */
const NO_STATUS_CROSSPLANE = new Set([
  "Composition",
  "CompositionRevision",
  "DeploymentRuntimeConfig",
  "ClusterProviderConfig",
  "ProviderConfig",
  "ProviderConfigUsage",
  "ControllerConfig",
]);
const NO_STATUS_UPBOUND = new Set(["ClusterProviderConfig", "ProviderConfig", "ProviderConfigUsage"]);
/** Condition types whose `True` means healthy, for `*.crossplane.io`. */
const HEALTHY_TYPES = new Set(["Ready", "Healthy", "Offered", "Established", "ValidPipeline", "RevisionHealthy"]);

/** The checks before the conditions: no status at all, an empty one, a ProviderConfig in use. */
function beforeConditions(obj: KubeObject, noStatus: ReadonlySet<string>): HealthResult | undefined {
  const status = field(obj, "status");
  // Argo CD's script reads "status == nil or (empty and kind without status)": no status at all is Healthy.
  if (status === undefined || status === null) return UP_TO_DATE;
  const empty = typeof status !== "object" || Object.keys(status).length === 0;
  if (empty && noStatus.has(obj.kind ?? "")) return UP_TO_DATE;
  if (!empty && field(status, "conditions") !== undefined) return undefined;
  const providerConfig = obj.kind === "ProviderConfig" || obj.kind === "ClusterProviderConfig";
  return providerConfig && field(status, "users") !== undefined ? health("Healthy", "Resource is in use.") : PROVISIONING;
}

const failed = (type: string | undefined): boolean => type === "LastAsyncOperation" || type === "Synced";

/** `*.crossplane.io/*`: a failed async operation or sync is Degraded; the first healthy-type condition True is Healthy. */
export function crossplaneHealth(obj: KubeObject): HealthResult {
  const early = beforeConditions(obj, NO_STATUS_CROSSPLANE);
  if (early !== undefined) return early;
  for (const c of conditionsOf(obj)) {
    if (failed(c.type) && c.status === "False") return health("Degraded", c.message);
    if (HEALTHY_TYPES.has(c.type ?? "") && c.status === "True") return UP_TO_DATE;
  }
  return PROVISIONING;
}

/** `*.upbound.io/*`: as Crossplane's, but only `Ready` counts as healthy, and a later failure still wins. */
export function upboundHealth(obj: KubeObject): HealthResult {
  const early = beforeConditions(obj, NO_STATUS_UPBOUND);
  if (early !== undefined) return early;
  let result = PROVISIONING;
  for (const c of conditionsOf(obj)) {
    if (failed(c.type) && c.status === "False") return health("Degraded", c.message);
    if (c.type === "Ready" && c.status === "True") result = UP_TO_DATE;
  }
  return result;
}
