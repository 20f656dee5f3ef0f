/**
 * Resource health (docs/sync-engine.md#health): the built-in checks by group and kind (Argo CD's
 * Go checks and its bundled Lua checks of common custom resources, written here in TypeScript), the
 * custom Lua checks of `argocd-cm` (docs/sync-engine.md#custom-health), the pending-deletion rule
 * (deletion.ts), and — beyond Argo CD — a generic guard that reports Progressing while any
 * object's controller has not yet observed its current generation. Pure; `undefined` means "no health check".
 */
import type { KubeObject } from "../../kube/index.js";
import { groupOf, num } from "../objects.js";
import type { HealthResult } from "../types.js";
import { daemonSetHealth, deploymentHealth, replicaSetHealth, statefulSetHealth } from "./apps.js";
import { cronJobHealth, jobHealth } from "./batch.js";
import { podHealth, pvcHealth, serviceHealth } from "./core.js";
import { crdHealth } from "./apiextensions.js";
import { apiServiceHealth } from "./apiregistration.js";
import { rolloutHealth, workflowHealth } from "./argoproj.js";
import { certificateHealth, clusterIssuerHealth, issuerHealth } from "./cert-manager.js";
import { crossplaneHealth, upboundHealth } from "./crossplane.js";
import { clusterSecretStoreHealth, externalSecretHealth, secretStoreHealth } from "./external-secrets.js";
import { scaledJobHealth, scaledObjectHealth } from "./keda.js";
import { runHealthScript } from "./lua/run.js";
import { pendingDeletionHealth, shownHealth, type CheckedHealth } from "./deletion.js";
import { globMatch, healthScriptFor, type ResourceCustomizations } from "../customizations/index.js";
import { hpaHealth } from "./autoscaling.js";
import { ingressHealth } from "./networking.js";
import { pdbHealth } from "./policy.js";

export { aggregateHealth, worseHealth, type AggregateInput } from "./aggregate.js";

type Check = (obj: KubeObject, isHook: boolean) => HealthResult;

/** The built-in checks, keyed by `group/kind`. */
const CHECKS: ReadonlyMap<string, Check> = new Map<string, Check>([
  ["apps/Deployment", deploymentHealth],
  ["apps/StatefulSet", statefulSetHealth],
  ["apps/DaemonSet", daemonSetHealth],
  ["apps/ReplicaSet", replicaSetHealth],
  ["/Pod", podHealth],
  ["/Service", serviceHealth],
  ["/PersistentVolumeClaim", pvcHealth],
  ["batch/Job", jobHealth],
  ["batch/CronJob", cronJobHealth],
  ["extensions/Ingress", ingressHealth],
  ["networking.k8s.io/Ingress", ingressHealth],
  ["apiregistration.k8s.io/APIService", apiServiceHealth],
  ["apiextensions.k8s.io/CustomResourceDefinition", crdHealth],
  ["autoscaling/HorizontalPodAutoscaler", hpaHealth],
  ["policy/PodDisruptionBudget", pdbHealth],
  ["argoproj.io/Workflow", workflowHealth],
  ["argoproj.io/Rollout", rolloutHealth],
  ["cert-manager.io/Certificate", certificateHealth],
  ["cert-manager.io/Issuer", issuerHealth],
  ["cert-manager.io/ClusterIssuer", clusterIssuerHealth],
  ["external-secrets.io/ExternalSecret", externalSecretHealth],
  ["external-secrets.io/SecretStore", secretStoreHealth],
  ["external-secrets.io/ClusterSecretStore", clusterSecretStoreHealth],
  ["keda.sh/ScaledObject", scaledObjectHealth],
  ["keda.sh/ScaledJob", scaledJobHealth],
]);

/** Built-in checks of whole families of groups, by `group/kind` glob (Argo CD's wildcard checks); after {@link CHECKS}. */
const WILDCARD_CHECKS: readonly (readonly [string, Check])[] = [
  ["*.crossplane.io/*", crossplaneHealth],
  ["*.upbound.io/*", upboundHealth],
];

/**
 * The checks Argo CD writes in Go; the others are its bundled Lua scripts, which a custom script of
 * the kind replaces outright. A custom script that returns nothing or nil falls back to these only.
 */
const GO_CHECKS: ReadonlySet<string> = new Set([
  "apps/Deployment",
  "apps/StatefulSet",
  "apps/DaemonSet",
  "apps/ReplicaSet",
  "/Pod",
  "/Service",
  "/PersistentVolumeClaim",
  "batch/Job",
  "extensions/Ingress",
  "networking.k8s.io/Ingress",
  "apiregistration.k8s.io/APIService",
  "autoscaling/HorizontalPodAutoscaler",
  "argoproj.io/Workflow",
]);

/** The built-in check of a group and kind. */
function builtInCheck(group: string, kind: string): Check | undefined {
  const key = `${group}/${kind}`;
  return CHECKS.get(key) ?? WILDCARD_CHECKS.find(([pattern]) => globMatch(pattern, key))?.[1];
}

/** True when a built-in check exists for the object's group and kind. */
export function hasHealthCheck(obj: KubeObject): boolean {
  return builtInCheck(groupOf(obj), obj.kind ?? "") !== undefined;
}

/** The result for an object whose controller has not caught up with its spec. */
function unobservedGeneration(obj: KubeObject): HealthResult | undefined {
  const observed = num(obj, "status", "observedGeneration");
  const generation = obj.metadata?.generation;
  if (observed === undefined || generation === undefined || generation <= observed) return undefined;
  return {
    status: "Progressing",
    message: `Waiting for generation ${String(generation)} to be observed (observed ${String(observed)})`,
  };
}

/** Options of {@link resourceHealth}. */
export interface HealthOptions {
  /** The object is a hook: Pod checks ignore the ignore-restart-policy annotation. */
  readonly isHook?: boolean;
  /** The customizations of `argocd-cm`: a Lua check of the object's kind replaces the built-in one. */
  readonly custom?: ResourceCustomizations | undefined;
}

/**
 * The health of a live object, or undefined when no check applies.
 *
 * Order: a custom Lua check of its kind, when `argocd-cm` has one, decides alone (as in Argo CD, it
 * overrides the built-in check, and the generation guard does not apply: the script says all; one
 * that returns nothing or nil leaves it to Argo CD's Go check of the kind, if there is one);
 * else (beyond Argo CD) a status whose `observedGeneration` lags `metadata.generation` is
 * `Progressing`; else the built-in check of its kind. Then an object being deleted without the
 * hook finalizer is `Progressing` "Pending deletion", naming its finalizers, unless the script
 * gave a `deletionMessage` ({@link pendingDeletionHealth}); that applies to an object no check
 * covers too. A check or script that fails yields `Unknown` with the failure as its message, being
 * deleted or not.
 */
export function resourceHealth(obj: KubeObject, options: HealthOptions = {}): HealthResult | undefined {
  let checked: CheckedHealth | undefined;
  try {
    checked = check(obj, options);
  } catch (err) {
    return { status: "Unknown", message: err instanceof Error ? err.message : String(err) };
  }
  return pendingDeletionHealth(obj, checked) ?? (checked === undefined ? undefined : shownHealth(checked));
}

/** What the object's check says, deletion aside; throws when the check or script fails. */
function check(obj: KubeObject, options: HealthOptions): CheckedHealth | undefined {
  const group = groupOf(obj);
  const kind = obj.kind ?? "";
  const script = healthScriptFor(options.custom, group, kind);
  if (script !== undefined) {
    const said = runHealthScript(script.script, obj, { useOpenLibs: script.useOpenLibs });
    const key = `${group}/${kind}`;
    return said ?? (GO_CHECKS.has(key) ? CHECKS.get(key)?.(obj, options.isHook ?? false) : undefined);
  }
  const lagging = unobservedGeneration(obj);
  if (lagging !== undefined) return lagging;
  return builtInCheck(group, kind)?.(obj, options.isHook ?? false);
}
