/**
 * Health of batch/v1 kinds: Job and CronJob.
 */
import type { KubeObject } from "../../kube/index.js";
import { arr, field, str } from "../objects.js";
import type { HealthResult } from "../types.js";

/**
 * Job, by condition type only: Failed → Degraded; Complete → Healthy; Suspended (True) → Suspended;
 * none → Progressing. As in Argo CD, a Suspended condition with status False counts as complete.
 */
export function jobHealth(obj: KubeObject): HealthResult {
  let failed = false;
  let complete = false;
  let suspended = false;
  let failMessage = "";
  let message = "";
  for (const c of arr(obj, "status", "conditions")) {
    const type = str(c, "type");
    if (type === "Failed") {
      failed = complete = true;
      failMessage = str(c, "message") ?? "";
    } else if (type === "Complete" || type === "Suspended") {
      complete = true;
      message = str(c, "message") ?? "";
      suspended ||= type === "Suspended" && str(c, "status") === "True";
    }
  }
  if (!complete) return { status: "Progressing", message };
  if (failed) return { status: "Degraded", message: failMessage };
  if (suspended) return { status: "Suspended", message: failMessage };
  return { status: "Healthy", message };
}

/**
 * CronJob (Argo CD's Lua check, simplified): no status → Progressing; a last scheduled run that
 * never succeeded while nothing is active → Degraded; otherwise Healthy (suspended included).
 */
export function cronJobHealth(obj: KubeObject): HealthResult {
  const status = field(obj, "status");
  if (status === undefined) return { status: "Progressing", message: "Waiting for status" };
  if (field(obj, "spec", "suspend") === true) return { status: "Healthy", message: "CronJob is suspended" };
  const lastSchedule = str(status, "lastScheduleTime");
  const lastSuccess = str(status, "lastSuccessfulTime");
  const active = arr(status, "active").length > 0;
  if (lastSchedule !== undefined && !active && (lastSuccess === undefined || lastSuccess < lastSchedule)) {
    return { status: "Degraded", message: "The last job run did not succeed" };
  }
  return { status: "Healthy" };
}
