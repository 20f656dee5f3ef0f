/**
 * The Application a reconcile writes back, as a pure function of what it read and decided:
 * `status.sync`, `status.health` (its transition time kept while the status holds),
 * `status.resources`, `status.reconciledAt`, the operation state and history, the refresh
 * annotation consumed, the deletion-hook finalizers kept in line with the manifests, and the
 * operation set or cleared.
 */
import {
  Annotation,
  AppConditionType,
  HealthStatus,
  OperationPhase,
  SyncStatus,
  type Application,
  type ApplicationStatus,
  type Operation,
  type OperationState,
} from "../api/index.js";
import { rfc3339 } from "../clock/index.js";
import type { Comparison } from "./compare.js";
import { hookFinalizers } from "./app-deletion.js";
import { appendHistory } from "./operation.js";
import type { ApplicationSource } from "../api/index.js";

/** What the next version of the Application is made of. */
export interface AppUpdate {
  readonly state: OperationState | undefined;
  /** null clears the operation; undefined leaves it as it is. */
  readonly operation: Operation | null | undefined;
  readonly comparison: Comparison;
  readonly revision: string;
  /** `status.sourceType`, when the manifests were read. */
  readonly sourceType?: string;
  /** `RepeatedResourceWarning` messages of this comparison (none clears the condition). */
  readonly repeated?: readonly string[];
  /** `ExcludedResourceWarning` messages of this comparison (none clears the condition). */
  readonly excluded?: readonly string[];
  readonly source: ApplicationSource | undefined;
  /** A multi-source Application's resolved revisions and source types, one per source (absent: single-source). */
  readonly multiSource?: { readonly revisions: readonly string[]; readonly sourceTypes: readonly string[] };
  /** Whether the manifests have PreDelete / PostDelete hooks. */
  readonly deletionHooks: { readonly pre: boolean; readonly post: boolean };
  readonly nowMs: number;
  /** The `SyncError` condition's message, when automated sync refused; absent removes the condition. */
  readonly syncError?: string;
}

/**
 * `status.sync.comparedTo` of a multi-source Application: its sources, and (as Argo CD serialises
 * the unused single `source`) an empty `source` with only `repoURL: ""`.
 */
export function multiComparedTo(app: Application): NonNullable<NonNullable<ApplicationStatus["sync"]>["comparedTo"]> {
  return { source: { repoURL: "" }, destination: app.spec.destination, sources: app.spec.sources ?? [] };
}

function nextStatus(app: Application, u: AppUpdate): ApplicationStatus {
  const status = { ...(app.status ?? {}) };
  const c = u.comparison;
  const now = rfc3339(u.nowMs);
  if (u.multiSource !== undefined) {
    status.sync = { status: c.sync, comparedTo: multiComparedTo(app), revisions: [...u.multiSource.revisions] };
    status.sourceTypes = [...u.multiSource.sourceTypes];
    delete status.sourceType;
  } else {
    status.sync = {
      status: c.sync,
      revision: u.revision,
      comparedTo: { ...(u.source ? { source: u.source } : {}), destination: app.spec.destination },
    };
    if (u.sourceType !== undefined) status.sourceType = u.sourceType;
    delete status.sourceTypes;
  }
  status.health = nextHealth(app, c.health, now);
  status.resources = c.resources;
  status.reconciledAt = now;
  status.conditions = nextConditions(app, u, now);
  if (status.conditions.length === 0) delete status.conditions;
  if (u.state !== undefined) recordOperation(status, app, u, u.state);
  return status;
}

/**
 * The conditions after a comparison: ComparisonError and the project gate's InvalidSpecError and
 * UnknownError gone, RepeatedResourceWarning,
 * ExcludedResourceWarning and SyncError as this comparison and automated sync decided (a transition
 * time kept while its message holds).
 */
function nextConditions(app: Application, u: AppUpdate, now: string): NonNullable<ApplicationStatus["conditions"]> {
  const current = app.status?.conditions ?? [];
  const decided = new Set<string>([
    AppConditionType.ComparisonError,
    // The project gate's: an Application that reaches a comparison passed it.
    AppConditionType.InvalidSpecError,
    AppConditionType.UnknownError,
    AppConditionType.SyncError,
    AppConditionType.RepeatedResourceWarning,
    AppConditionType.ExcludedResourceWarning,
  ]);
  const since = (type: string, message: string): string =>
    current.find((x) => x.type === type && x.message === message)?.lastTransitionTime ?? now;
  const condition = (type: string, message: string) => ({ type, message, lastTransitionTime: since(type, message) });
  return [
    ...current.filter((x) => !decided.has(x.type)),
    ...(u.repeated ?? []).map((m) => condition(AppConditionType.RepeatedResourceWarning, m)),
    ...(u.excluded ?? []).map((m) => condition(AppConditionType.ExcludedResourceWarning, m)),
    ...(u.syncError !== undefined ? [condition(AppConditionType.SyncError, u.syncError)] : []),
  ];
}

/** `status.health`, its transition time kept while the status holds. */
function nextHealth(app: Application, health: Comparison["health"], now: string): NonNullable<ApplicationStatus["health"]> {
  const lastTransition = app.status?.health?.status === health.status ? app.status.health.lastTransitionTime : now;
  return { status: health.status, ...(health.message ? { message: health.message } : {}), lastTransitionTime: lastTransition ?? now };
}

/** Records the operation state, and a finished successful operation in the history. */
function recordOperation(status: ApplicationStatus, app: Application, u: AppUpdate, state: OperationState): void {
  status.operationState = state;
  if (state.phase === OperationPhase.Succeeded && u.operation === null) {
    status.history = appendHistory(status.history ?? [], state, { nowMs: u.nowMs, limit: app.spec.revisionHistoryLimit });
  }
}

/** The Application to write after a reconcile. */
export function nextApplication(app: Application, u: AppUpdate): Application {
  const annotations = { ...(app.metadata.annotations ?? {}) };
  delete annotations[Annotation.Refresh];
  const current = Array.isArray(app.metadata.finalizers) ? app.metadata.finalizers : [];
  const finalizers = app.metadata.deletionTimestamp ? current : hookFinalizers(current, u.deletionHooks.pre, u.deletionHooks.post);
  const metadata = { ...app.metadata, annotations, ...(finalizers.length > 0 || current.length > 0 ? { finalizers } : {}) };
  const next: Application = { ...app, metadata, status: nextStatus(app, u) };
  if (u.operation === null) delete next.operation;
  else if (u.operation !== undefined) next.operation = u.operation;
  return next;
}

/**
 * True when the update must be written: a refresh was asked for, it never was compared, anything
 * but `reconciledAt` changed, or the recorded `reconciledAt` is `heartbeatMs` old or older (Argo CD
 * writes it at every periodic refresh, so it tells readers the Application is still being looked at).
 */
export function needsWrite(app: Application, next: Application, heartbeatMs = Number.POSITIVE_INFINITY): boolean {
  if (app.metadata.annotations?.[Annotation.Refresh] !== undefined || app.status?.reconciledAt == null) return true;
  const age = Date.parse(next.status?.reconciledAt ?? "") - Date.parse(app.status.reconciledAt);
  if (age >= heartbeatMs) return true;
  const strip = (x: Application): string => JSON.stringify({ ...x, status: { ...(x.status ?? {}), reconciledAt: null } });
  return strip(app) !== strip(next);
}

/** The revisions a comparison that failed reports: the targets (each source's, for a multi-source Application). */
function targetRevisions(app: Application): { revision?: string; revisions?: string[] } {
  const sources = app.spec.sources ?? [];
  if (sources.length > 0) return { revisions: sources.map((s) => s.targetRevision ?? "") };
  const revision = app.spec.source?.targetRevision;
  return revision ? { revision } : {};
}

/**
 * The status of an Application whose manifests or destination cannot be read: a ComparisonError
 * condition with the message, sync Unknown at the revision asked for, and (as Argo CD reports an
 * Application it knows no resources of) Healthy when there is no health yet.
 */
export function comparisonErrorStatus(app: Application, message: string, nowMs: number): ApplicationStatus {
  const status = { ...(app.status ?? {}) };
  const now = rfc3339(nowMs);
  const before = status.conditions ?? [];
  const others = before.filter((x) => x.type !== AppConditionType.ComparisonError);
  const same = before.some((x) => x.type === AppConditionType.ComparisonError && x.message === message);
  status.conditions = [...others, { type: AppConditionType.ComparisonError, message, lastTransitionTime: now }];
  // A failed comparison is a comparison, as in Argo CD; repeating the same failure does not move it.
  status.reconciledAt = same ? (status.reconciledAt ?? now) : now;
  status.sync = { ...(status.sync ?? { status: SyncStatus.Unknown }), status: SyncStatus.Unknown, ...targetRevisions(app) };
  status.health ??= { status: HealthStatus.Healthy, lastTransitionTime: now };
  return status;
}
