/**
 * What the checks of custom resources share: their `status.conditions`, results without empty
 * messages (Argo CD's health JSON omits them), and the common "Ready condition" check. Pure.
 */
import type { HealthStatus } from "../../api/index.js";
import { arr, str } from "../objects.js";
import type { HealthResult } from "../types.js";

/** A condition as the checks read it. */
export interface Condition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

/** The object's `status.conditions` (objects only). */
export function conditionsOf(obj: unknown): Condition[] {
  return arr(obj, "status", "conditions")
    .filter((c): c is Record<string, unknown> => typeof c === "object" && c !== null)
    .map((c) => ({
      type: str(c, "type"),
      status: str(c, "status"),
      reason: str(c, "reason"),
      message: str(c, "message"),
      lastTransitionTime: str(c, "lastTransitionTime"),
    }));
}

/** A result; an empty or absent message is left out. */
export function health(status: HealthStatus, message?: string): HealthResult {
  return message ? { status, message } : { status };
}

/**
 * The first `Ready` condition that is `True` (Healthy) or `False` (Degraded), with its message;
 * Progressing with `waiting` when there is none.
 */
export function readyConditionHealth(obj: unknown, waiting: string): HealthResult {
  for (const c of conditionsOf(obj)) {
    if (c.type !== "Ready") continue;
    if (c.status === "False") return health("Degraded", c.message);
    if (c.status === "True") return health("Healthy", c.message);
  }
  return health("Progressing", waiting);
}
