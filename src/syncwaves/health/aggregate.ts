/**
 * Application health aggregation (docs/sync-engine.md#health; Argo CD's controller/health.go): the
 * worst health of the managed, non-hook resources, with Argo CD's exclusions. Pure.
 */
import type { HealthStatus } from "../../api/index.js";
import type { HealthResult, ResourceKey } from "../types.js";

/** Worst-last order of health codes. */
const SEVERITY: readonly HealthStatus[] = ["Healthy", "Suspended", "Progressing", "Missing", "Degraded", "Unknown"];

/** The worse of two health codes. */
export function worseHealth(a: HealthStatus, b: HealthStatus): HealthStatus {
  return SEVERITY.indexOf(b) > SEVERITY.indexOf(a) ? b : a;
}

/** One managed resource as the aggregation sees it. */
export interface AggregateInput {
  readonly key: ResourceKey;
  /** Its health; undefined when it has no health check. */
  readonly health?: HealthResult;
  /** True when the live object exists. */
  readonly live: boolean;
  /** Hooks and resources annotated `ignore-healthcheck: "true"` are left out. */
  readonly ignored: boolean;
  /** A child Application: its Missing/Unknown health is left out. */
  readonly childApp?: boolean;
}

/** `group/Kind:namespace/name`, the group left out for the core group and the namespace for a cluster-scoped object (Argo CD's words). */
function describe(key: ResourceKey): string {
  const kind = key.group === "" ? key.kind : `${key.group}/${key.kind}`;
  const name = key.namespace === "" ? key.name : `${key.namespace}/${key.name}`;
  return `${kind}:${name}`;
}

/**
 * Aggregates resource health: the worst of Healthy < Suspended < Progressing < Missing < Degraded <
 * Unknown, skipping ignored resources, resources without health, individually Missing resources and
 * Missing/Unknown child Applications. `Missing` when the app has resources but none is live.
 * The message names up to three resources at the worst level: `Caused by a, b, c and N more`.
 */
export function aggregateHealth(resources: readonly AggregateInput[]): HealthResult {
  const counted = resources.filter((r) => !r.ignored);
  if (counted.length > 0 && counted.every((r) => !r.live)) return { status: "Missing" };
  let status: HealthStatus = "Healthy";
  const contributors: AggregateInput[] = [];
  for (const r of counted) {
    const h = countedHealth(r);
    if (h === undefined) continue;
    const next = worseHealth(status, h);
    if (next !== status) contributors.length = 0;
    status = next;
    if (h === status && h !== "Healthy") contributors.push(r);
  }
  return contributors.length === 0 ? { status } : { status, message: causedBy(contributors) };
}

/** A resource's health as the aggregate counts it: none when it has none, is Missing, or is an Unknown child Application. */
function countedHealth(r: AggregateInput): HealthStatus | undefined {
  const h = r.health?.status;
  if (h === undefined || h === "Missing") return undefined;
  if (r.childApp === true && h === "Unknown") return undefined;
  return h;
}

/** `Caused by a, b, c and N more`. */
function causedBy(contributors: readonly AggregateInput[]): string {
  const names = contributors.slice(0, 3).map((r) => describe(r.key));
  const more = contributors.length - names.length;
  return `Caused by ${names.join(", ")}${more > 0 ? ` and ${String(more)} more` : ""}`;
}
