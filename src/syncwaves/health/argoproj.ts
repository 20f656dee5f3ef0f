/** Health of argoproj.io resources: Argo Workflows' Workflow and Argo Rollouts' Rollout. */
import { HealthStatus } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { arr, field, num, str } from "../objects.js";
import type { HealthResult } from "../types.js";
import { conditionsOf, health } from "./conditions.js";
import { HealthScriptMessage } from "./lua/run.js";

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

const WAITING_OBSERVED = "Waiting for rollout spec update to be observed";

/** A number, or a string holding one (Lua's `tonumber`); undefined otherwise. */
function toNumber(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v !== "string" || v.trim() === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Whether the Rollout controller has seen the current spec: a numeric `status.observedGeneration`
 * equal to the generation (a non-numeric one, or one above it, is a pre-v0.10 hash and counts as
 * seen), and with `spec.workloadRef` the annotated workload generation observed too.
 */
function rolloutObserved(obj: KubeObject): boolean {
  const status = field(obj, "status");
  if (status === undefined || status === null) return false;
  const observed = toNumber(field(status, "observedGeneration"));
  const generation = obj.metadata?.generation ?? 0;
  if (observed !== undefined && observed < generation) return false;
  const annotations = obj.metadata?.annotations;
  if (field(obj, "spec", "workloadRef") === undefined || annotations === undefined) return true;
  return toNumber(annotations["rollout.argoproj.io/workload-generation"]) === toNumber(field(status, "workloadObservedGeneration"));
}

/** A legacy Rollout's conditions: an invalid spec, an abort or a missed deadline is Degraded. */
function rolloutConditionHealth(obj: KubeObject): HealthResult | undefined {
  const bad = conditionsOf(obj).find(
    (c) =>
      c.type === "InvalidSpec" || (c.type === "Progressing" && (c.reason === "RolloutAborted" || c.reason === "ProgressDeadlineExceeded")),
  );
  return bad === undefined ? undefined : health("Degraded", bad.message);
}

/** A legacy Rollout's replica counts: all updated, then all updated ones available. */
function rolloutReplicaHealth(obj: KubeObject): HealthResult | undefined {
  const updated = num(obj, "status", "updatedReplicas") ?? 0;
  if (updated < (num(obj, "spec", "replicas") ?? 1)) {
    return health("Progressing", "Waiting for roll out to finish: More replicas need to be updated");
  }
  if ((num(obj, "status", "availableReplicas") ?? 0) < updated) {
    return health("Progressing", "Waiting for roll out to finish: updated replicas are still becoming available");
  }
  return undefined;
}

/** The checks of a Rollout without `status.phase` (before Argo Rollouts v1.0), up to its replica counts. */
function legacyRolloutGate(obj: KubeObject): HealthResult | undefined {
  const degraded = rolloutConditionHealth(obj);
  if (degraded !== undefined) return degraded;
  if (arr(obj, "status", "pauseConditions").length > 0 || field(obj, "spec", "paused") === true) {
    return health("Suspended", "Rollout is paused");
  }
  if (field(obj, "status", "currentPodHash") === undefined) {
    return health("Progressing", "Waiting for rollout to finish: status has not been reconciled.");
  }
  return rolloutReplicaHealth(obj);
}

/** The stable ReplicaSet's hash: `status.stableRS`, before v0.8 `status.canary.stableRS`; "" when neither block exists. */
function stableRS(obj: KubeObject): unknown {
  const stable = field(obj, "status", "stableRS");
  if (stable !== undefined) return stable;
  return field(obj, "status", "canary") !== undefined ? field(obj, "status", "canary", "stableRS") : "";
}

/** The strategy's own checks of a legacy Rollout: blue-green cutover and analysis, canary steps. */
function legacyRolloutStrategy(obj: KubeObject): HealthResult {
  const hash = field(obj, "status", "currentPodHash");
  const stable = stableRS(obj);
  if (field(obj, "spec", "strategy", "blueGreen") !== undefined) {
    if (field(obj, "status", "blueGreen", "activeSelector") !== hash) return health("Progressing", "active service cutover pending");
    if (stable !== "" && stable !== hash) return health("Progressing", "waiting for analysis to complete");
    return health("Healthy");
  }
  if (field(obj, "spec", "strategy", "canary") === undefined) return health("Healthy");
  if ((num(obj, "status", "replicas") ?? 0) > (num(obj, "status", "updatedReplicas") ?? 0)) {
    return health("Progressing", "Waiting for roll out to finish: old replicas are pending termination");
  }
  if (stable === "" || stable !== hash) return health("Progressing", "Waiting for rollout to finish steps");
  return health("Healthy");
}

/**
 * Argo Rollouts Rollout. Until the controller has observed the spec it is Progressing; from v1.0
 * the controller's `status.phase` and `status.message` are the health (`Paused` is Suspended, so a
 * paused Rollout is Suspended and an aborted one Degraded); older Rollouts are judged by their
 * conditions (InvalidSpec, aborted or past its deadline → Degraded), pause, replica counts and
 * strategy.
 */
export function rolloutHealth(obj: KubeObject): HealthResult {
  if (!rolloutObserved(obj)) return health("Progressing", WAITING_OBSERVED);
  const phase = str(obj, "status", "phase");
  if (phase !== undefined) {
    const status = phase === "Paused" ? "Suspended" : phase;
    if (!(Object.values(HealthStatus) as string[]).includes(status)) return health("Unknown", HealthScriptMessage.InvalidStatus);
    return health(status as HealthStatus, str(obj, "status", "message"));
  }
  return legacyRolloutGate(obj) ?? legacyRolloutStrategy(obj);
}
