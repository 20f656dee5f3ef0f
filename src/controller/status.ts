/**
 * The ApplicationSet status a pass leaves behind (docs/controller.md#status): conditions (through
 * {@link mergeConditions}), health, and `resources` / `resourcesCount` built from the owned
 * Applications, sorted by name and truncated to `--max-resources-status-count`. Returns the new
 * status only when it differs from the current one, so an unchanged pass writes nothing. Pure.
 */
import {
  API_GROUP,
  API_VERSION,
  Kind,
  type Application,
  type ApplicationSetApplicationStatus,
  type ApplicationSetStatus,
  type ResourceStatus,
} from "../api/index.js";
import { conditionFor, conditionsEqual, healthFor, mergeConditions, type ConditionInput, type PassOutcome } from "./conditions.js";
import { jsonEqual } from "../json/index.js";

/** `status.resources` and `resourcesCount`, and how many entries were cut. */
export interface ResourcesStatus {
  readonly resources: ResourceStatus[];
  readonly count: number;
  /** Set when the list was truncated: the total before truncation. */
  readonly truncatedFrom?: number;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One `status.resources` entry per Application (App health status only, no message). */
export function resourcesFor(apps: readonly Application[], max: number): ResourcesStatus {
  const byName = new Map(apps.map((a) => [a.metadata.name ?? "", a]));
  const all = [...byName.values()]
    .sort((a, b) => compareNames(a.metadata.name ?? "", b.metadata.name ?? ""))
    .map((app): ResourceStatus => {
      const health = app.status?.health?.status;
      const sync = app.status?.sync?.status;
      return {
        group: API_GROUP,
        version: API_VERSION,
        kind: Kind.Application,
        name: app.metadata.name ?? "",
        namespace: app.metadata.namespace ?? "",
        ...(sync ? { status: sync } : {}),
        health: health ? { status: health } : {},
      };
    });
  if (max > 0 && all.length > max) return { resources: all.slice(0, max), count: all.length, truncatedFrom: all.length };
  return { resources: all, count: all.length };
}

/** What a pass decided about the status. */
export interface StatusInput {
  readonly outcome: PassOutcome;
  /** The new resources; omitted when the pass did not get far enough to write them. */
  readonly resources?: ResourcesStatus;
  /** RFC 3339 time of the pass. */
  readonly now: string;
  readonly rollingSync: boolean;
  /** Conditions evaluated besides the outcome's (RollingSync: RolloutProgressing, InvalidRolloutConfig). */
  readonly extraConditions?: readonly ConditionInput[];
  /** Condition types to drop from the existing ones. */
  readonly removeConditions?: readonly string[];
}

function sameResources(current: ApplicationSetStatus | undefined, next: ResourcesStatus | undefined): boolean {
  if (next === undefined) return true;
  const had = current?.resources !== undefined || current?.resourcesCount !== undefined;
  if (next.count === 0) return !had;
  return jsonEqual(current?.resources ?? [], next.resources) && (current?.resourcesCount ?? 0) === next.count;
}

/** The new status, or undefined when nothing the controller writes would change. */
export function nextStatus(current: ApplicationSetStatus | undefined, input: StatusInput): ApplicationSetStatus | undefined {
  const existing = current?.conditions ?? [];
  const remove = new Set(input.removeConditions ?? []);
  const evaluated = [...conditionFor(input.outcome), ...(input.extraConditions ?? []).map(conditionInput)];
  const conditions = mergeConditions(
    existing.filter((c) => !remove.has(c.type)),
    evaluated,
    { now: input.now, rollingSync: input.rollingSync },
  );
  const health = healthFor(conditions);
  const same = conditionsEqual(existing, conditions) && jsonEqual(current?.health ?? {}, health) && sameResources(current, input.resources);
  if (same) return undefined;
  const next: ApplicationSetStatus = { ...current, conditions, health };
  if (input.resources !== undefined) {
    // As Go encodes them (omitempty): no Applications leaves both fields out. The status is written
    // as a merge patch, so fields to remove are sent as null.
    if (input.resources.count > 0) {
      next.resources = input.resources.resources;
      next.resourcesCount = input.resources.count;
    } else {
      Object.assign(next, { resources: null, resourcesCount: null });
    }
  }
  return next;
}

function conditionInput(c: ConditionInput): ConditionInput {
  return { type: c.type, status: c.status, reason: c.reason, message: c.message };
}

/**
 * `status` with `applicationStatus` replaced: `undefined` leaves it, `[]` removes it. The base the
 * rest of a pass's status is computed from once the rollout's entries are written.
 */
export function withApplicationStatus(
  status: ApplicationSetStatus | undefined,
  entries: readonly ApplicationSetApplicationStatus[] | undefined,
): ApplicationSetStatus | undefined {
  if (entries === undefined) return status;
  const { applicationStatus: _old, ...rest } = status ?? {};
  return entries.length === 0 ? rest : { ...rest, applicationStatus: [...entries] };
}
