/**
 * Health of core/v1 kinds: Pod, Service, PersistentVolumeClaim.
 */
import { Annotation } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { annotation, arr, field, num, str } from "../objects.js";
import type { HealthResult } from "../types.js";

function isBadWaitingReason(reason: string): boolean {
  return reason.startsWith("Err") || reason.endsWith("Error") || reason.endsWith("BackOff");
}

/** Degraded when a container waits for a reason that will not fix itself (ErrImagePull, CrashLoopBackOff…). */
function waitingFailure(obj: KubeObject): HealthResult | undefined {
  const messages: string[] = [];
  for (const c of arr(obj, "status", "containerStatuses")) {
    const reason = str(c, "state", "waiting", "reason");
    if (reason !== undefined && isBadWaitingReason(reason)) messages.push(str(c, "state", "waiting", "message") ?? "");
  }
  return messages.length > 0 ? { status: "Degraded", message: messages.join(", ") } : undefined;
}

/** The failure message of a terminated container, or "". */
function terminatedMessage(container: unknown): string {
  const terminated = field(container, "state", "terminated");
  if (terminated === undefined) return "";
  const message = str(terminated, "message") ?? "";
  if (message !== "") return message;
  if (str(terminated, "reason") === "OOMKilled") return "OOMKilled";
  const code = num(terminated, "exitCode") ?? 0;
  return code !== 0 ? `container ${JSON.stringify(str(container, "name") ?? "")} failed with exit code ${String(code)}` : "";
}

function failedPodMessage(obj: KubeObject): string {
  const own = str(obj, "status", "message") ?? "";
  if (own !== "") return own;
  const containers = [...arr(obj, "status", "initContainerStatuses"), ...arr(obj, "status", "containerStatuses")];
  return containers.map(terminatedMessage).find((m) => m !== "") ?? "";
}

function runningPodHealth(obj: KubeObject, restartPolicy: string, message: string): HealthResult {
  if (restartPolicy !== "Always") return { status: "Progressing", message };
  const ready = arr(obj, "status", "conditions").some((c) => field(c, "type") === "Ready" && field(c, "status") === "True");
  if (ready) return { status: "Healthy", message };
  const restarted = arr(obj, "status", "containerStatuses").some((c) => field(c, "lastState", "terminated") !== undefined);
  return { status: restarted ? "Degraded" : "Progressing", message };
}

/**
 * Pod. A pod with restart policy Never/OnFailure is finite (a hook): Running is Progressing and only
 * Succeeded is Healthy. `isHook` disables the ignore-restart-policy annotation, as in Argo CD.
 */
export function podHealth(obj: KubeObject, isHook = false): HealthResult {
  const restartPolicy = str(obj, "spec", "restartPolicy") ?? "Always";
  const ignoreRestartPolicy = !isHook && annotation(obj, Annotation.IgnoreRestartPolicy) === "true";
  if (restartPolicy === "Always" || ignoreRestartPolicy) {
    const failure = waitingFailure(obj);
    if (failure !== undefined) return failure;
  }
  const message = str(obj, "status", "message") ?? "";
  switch (str(obj, "status", "phase")) {
    case "Pending":
      return { status: "Progressing", message };
    case "Succeeded":
      return { status: "Healthy", message };
    case "Failed":
      return { status: "Degraded", message: failedPodMessage(obj) };
    case "Running":
      return runningPodHealth(obj, restartPolicy, message);
    default:
      return { status: "Unknown", message };
  }
}

/** Service: a LoadBalancer without ingress is Progressing; anything else Healthy. */
export function serviceHealth(obj: KubeObject): HealthResult {
  if (str(obj, "spec", "type") !== "LoadBalancer") return { status: "Healthy" };
  return { status: arr(obj, "status", "loadBalancer", "ingress").length > 0 ? "Healthy" : "Progressing" };
}

/** PersistentVolumeClaim: Bound Healthy, Pending Progressing, Lost Degraded, else Unknown. */
export function pvcHealth(obj: KubeObject): HealthResult {
  switch (str(obj, "status", "phase")) {
    case "Bound":
      return { status: "Healthy" };
    case "Pending":
      return { status: "Progressing" };
    case "Lost":
      return { status: "Degraded" };
    default:
      return { status: "Unknown" };
  }
}
