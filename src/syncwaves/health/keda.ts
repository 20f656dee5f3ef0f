/** Health of keda.sh resources (the facts of Argo CD's bundled checks). */
import type { KubeObject } from "../../kube/index.js";
import { conditionsOf, health, type Condition } from "./conditions.js";
import type { HealthResult } from "../types.js";

/** Which conditions make a KEDA scaler degraded besides `Ready` False. */
type DegradedWhen = (c: Condition) => boolean;

type Flag = "degraded" | "healthy" | "paused";

/** What one condition says, if anything. */
function flagOf(c: Condition, degradedWhen: DegradedWhen): Flag | undefined {
  if ((c.type === "Ready" && c.status === "False") || degradedWhen(c)) return "degraded";
  if (c.type === "Ready" && c.status === "True") return "healthy";
  if (c.type === "Paused" && c.status === "True") return "paused";
  return undefined;
}

/**
 * The shared rule: every condition is read, and the message is the last one that says something.
 * Degraded wins, then `Ready` True is Healthy (Suspended when `Paused` is True too); else
 * Progressing with `waiting`.
 */
function scalerHealth(obj: KubeObject, degradedWhen: DegradedWhen, waiting: string): HealthResult {
  const flags = new Set<Flag>();
  let message: string | undefined;
  for (const c of conditionsOf(obj)) {
    const flag = flagOf(c, degradedWhen);
    if (flag === undefined) continue;
    flags.add(flag);
    message = c.message;
  }
  if (flags.has("degraded")) return health("Degraded", message);
  if (flags.has("healthy")) return health(flags.has("paused") ? "Suspended" : "Healthy", message);
  return health("Progressing", waiting);
}

/** ScaledObject: `Ready` and `Paused`, and a `Fallback` True is Degraded. */
export function scaledObjectHealth(obj: KubeObject): HealthResult {
  return scalerHealth(obj, (c) => c.type === "Fallback" && c.status === "True", "Creating HorizontalPodAutoscaler Object");
}

/** ScaledJob: `Ready` and `Paused`, and a `Ready` Unknown is Degraded. */
export function scaledJobHealth(obj: KubeObject): HealthResult {
  return scalerHealth(obj, (c) => c.type === "Ready" && c.status === "Unknown", "Waiting for ScaledJob");
}
