/**
 * Automated sync (docs/sync-engine.md#automated-sync): what an Application with
 * `syncPolicy.automated` gets after a comparison — an operation to start, a wait (self-heal back-off),
 * a `SyncError` condition, or nothing. The same guards as Argo CD's application controller, in its
 * order. Pure: time comes in as `nowMs`.
 */
import {
  OperationPhase,
  SyncStatus,
  type Application,
  type ApplicationSource,
  type Operation,
  type OperationState,
  type ResourceStatus,
} from "../api/index.js";
import { sourceEquivalent } from "../api/equivalence.js";
import type { SelfHealBackoff } from "../config/index.js";
import { sourceOf } from "./observe.js";
import { hasMultipleSources } from "./sources.js";

/** True when two source lists are equivalent, source by source. */
const sourcesEquivalent = (a: readonly ApplicationSource[], b: readonly ApplicationSource[]): boolean =>
  a.length === b.length && a.every((s, i) => sourceEquivalent(s, b[i] ?? { repoURL: "" }));

/** The default retry of automated syncs when the Application sets none. */
const AUTOMATED_RETRY = { limit: 5 } as const;

/** Argo CD's defaults (`--self-heal-backoff-timeout-seconds` 2, `-factor` 3, `-cap-seconds` 300). */
export const DEFAULT_SELF_HEAL_BACKOFF: SelfHealBackoff = { initialMs: 2_000, factor: 3, capMs: 300_000 };

/** What a comparison leads to. */
export type AutoSync =
  | { readonly kind: "none" }
  | { readonly kind: "start"; readonly operation: Operation }
  /** A self-heal is due only after `afterMs`: look again then. */
  | { readonly kind: "wait"; readonly afterMs: number }
  /** Refused: the message of the `SyncError` condition. */
  | { readonly kind: "error"; readonly message: string };

/** The inputs of {@link autoSync}. */
export interface AutoSyncInput {
  readonly app: Application;
  readonly sync: SyncStatus;
  /** `status.resources` of the comparison. */
  readonly resources: readonly ResourceStatus[];
  /** The resolved revision the comparison used. */
  readonly revision: string;
  /** A multi-source Application's resolved revisions, one per source (absent: single-source). */
  readonly revisions?: readonly string[];
  readonly nowMs: number;
  /** Default {@link DEFAULT_SELF_HEAL_BACKOFF}. */
  readonly selfHealBackoff?: SelfHealBackoff;
}

const NONE: AutoSync = { kind: "none" };

/** Go's `%s` of a string slice: `[a b]`. */
const goList = (revisions: readonly string[]): string => `[${revisions.join(" ")}]`;

/** True when automated sync is on: `automated` present and not `enabled: false`. */
function enabled(app: Application): boolean {
  const automated = app.spec.syncPolicy?.automated;
  return automated !== undefined && automated.enabled !== false;
}

/**
 * The automated decision after a comparison. Nothing when automated sync is off, an operation is
 * requested, the Application is being deleted or is not OutOfSync, or only prunes are left and
 * automated prune is off. At a revision (and source) already synced: a `SyncError` when that
 * attempt failed; nothing without self-heal; with self-heal a selective sync of the resources
 * that are not Synced, after the back-off of the attempts so far. With prune on and `allowEmpty`
 * off, a sync that would prune every resource is refused.
 */
export function autoSync(input: AutoSyncInput): AutoSync {
  if (!due(input)) return NONE;
  const automated = input.app.spec.syncPolicy?.automated ?? {};
  const prune = automated.prune === true;
  const desired = input.revisions !== undefined ? [...input.revisions] : [input.revision];
  const operation = automatedSync(input, prune);
  const attempt = lastAttempt(input.app, desired);
  if (attempt !== undefined) {
    const heal = selfHeal(input, attempt, automated.selfHeal === true);
    if (heal.kind !== "start") return heal;
    operation.sync = { ...operation.sync, ...heal.operation.sync };
  }
  if (prune && automated.allowEmpty !== true && input.resources.every((r) => r.requiresPruning === true)) {
    return { kind: "error", message: `Skipping sync attempt to ${goList(desired)}: auto-sync will wipe out all resources` };
  }
  return { kind: "start", operation };
}

/** The guards before any sync: automated on, nothing requested, not deleted, OutOfSync, and not only prunes with prune off. */
function due({ app, sync, resources }: AutoSyncInput): boolean {
  if (!enabled(app) || app.operation !== undefined || app.metadata.deletionTimestamp) return false;
  if (sync !== SyncStatus.OutOfSync) return false;
  if (app.spec.syncPolicy?.automated?.prune === true) return true;
  return !resources.every((r) => r.status === SyncStatus.Synced || r.requiresPruning === true);
}

/**
 * At a revision already attempted: the SyncError of a failure, nothing without self-heal, else the
 * self-heal's part of the operation or its wait.
 */
function selfHeal(
  input: AutoSyncInput,
  attempt: { successful: boolean; revisions: string[]; message: string },
  enabledHeal: boolean,
): AutoSync {
  if (!attempt.successful) {
    return { kind: "error", message: `Failed last sync attempt to ${goList(attempt.revisions)}: ${attempt.message}` };
  }
  if (!enabledHeal) return NONE;
  const attempts = input.app.status?.operationState?.operation.sync?.autoHealAttemptsCount ?? 0;
  const remaining = selfHealRemainingMs(input.app, attempts, input.nowMs, input.selfHealBackoff ?? DEFAULT_SELF_HEAL_BACKOFF);
  if (remaining > 0) return { kind: "wait", afterMs: remaining };
  return { kind: "start", operation: { sync: { autoHealAttemptsCount: attempts + 1, resources: notSynced(input.resources) } } };
}

/**
 * The automated sync operation at the compared revision, with the Application's source, sync
 * options and retry; a multi-source Application's names its `sources` and `revisions` instead.
 */
function automatedSync({ app, revision, revisions }: AutoSyncInput, prune: boolean): Operation {
  const source = sourceOf(app);
  const at = revisions !== undefined ? { sources: app.spec.sources ?? [], revisions: [...revisions] } : { revision };
  return {
    sync: {
      ...(source && revisions === undefined ? { source } : {}),
      ...at,
      ...(prune ? { prune } : {}),
      ...(app.spec.syncPolicy?.syncOptions ? { syncOptions: app.spec.syncPolicy.syncOptions } : {}),
    },
    initiatedBy: { automated: true },
    retry: app.spec.syncPolicy?.retry ?? AUTOMATED_RETRY,
  };
}

/** The resources a self-heal syncs: those not Synced, by group, kind and name (any namespace). */
function notSynced(resources: readonly ResourceStatus[]): NonNullable<NonNullable<Operation["sync"]>["resources"]> {
  return resources
    .filter((r) => r.status !== SyncStatus.Synced)
    .map((r) => ({ ...(r.group ? { group: r.group } : {}), kind: r.kind ?? "", name: r.name ?? "" }));
}

/**
 * The last operation when it was at `revision` with the Application's current source (Argo CD's
 * "already attempted"), else undefined. An operation that completed without a result counts as
 * attempted at no revision.
 */
type Attempt = { successful: boolean; revisions: string[]; message: string };

function lastAttempt(app: Application, desired: readonly string[]): Attempt | undefined {
  const last = app.status?.operationState;
  if (last === undefined) return undefined;
  const successful = last.phase === OperationPhase.Succeeded;
  const message = last.message ?? "";
  if (last.syncResult === undefined) {
    const completed = last.phase !== OperationPhase.Running && last.phase !== OperationPhase.Terminating;
    return completed ? { successful, revisions: [], message } : undefined;
  }
  const revisions = attemptedAt(app, last.syncResult, desired);
  return revisions === undefined ? undefined : { successful, revisions, message };
}

/** {@link attemptedAt} of a multi-source Application. */
function multiAttemptedAt(
  app: Application,
  result: NonNullable<OperationState["syncResult"]>,
  desired: readonly string[],
): string[] | undefined {
  const revisions = result.revisions ?? [];
  const same = JSON.stringify(revisions) === JSON.stringify(desired) && sourcesEquivalent(app.spec.sources ?? [], result.sources ?? []);
  return same ? revisions : undefined;
}

/**
 * The revisions of the last sync's result when it was at `desired` with the Application's current
 * source (a multi-source Application: every revision and source), else undefined.
 */
function attemptedAt(
  app: Application,
  result: NonNullable<OperationState["syncResult"]>,
  desired: readonly string[],
): string[] | undefined {
  if (hasMultipleSources(app)) return multiAttemptedAt(app, result, desired);
  if (desired.length !== 1 || result.revision !== desired[0]) return undefined;
  return sourceEquivalent(sourceOf(app) ?? {}, result.source ?? {}) ? [result.revision ?? ""] : undefined;
}

/** How long until the next self-heal may start: the back-off of `attempts` minus the time since the last operation finished. */
export function selfHealRemainingMs(app: Application, attempts: number, nowMs: number, backoff: SelfHealBackoff): number {
  const state = app.status?.operationState;
  if (state === undefined) return 0;
  const delay =
    backoff.fixed === true
      ? backoff.initialMs
      : attempts <= 0
        ? 0
        : Math.min(backoff.initialMs * backoff.factor ** (attempts - 1), backoff.capMs);
  const finished = state.finishedAt ? Date.parse(state.finishedAt) : Number.NaN;
  return Number.isNaN(finished) ? delay : delay - (nowMs - finished);
}
