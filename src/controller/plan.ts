/**
 * The pure planner: `planAppSet(snapshot, now, settings) → Plan`, Argo CD's reconcile flow without
 * I/O (docs/controller.md#the-order-of-a-pass). Generate (already done, in the snapshot) → validate
 * → policy → creates and updates → stale deletes → status → refresh annotation → requeue; or the
 * deletion path. The same snapshot and time always give the same plan.
 */
import { Reason, SPEC_WARNING_CONDITION, type Application, type ApplicationsSyncPolicy } from "../api/index.js";
import { rfc3339 } from "../clock/index.js";
import type { RenderedApplication } from "../generators/applications.js";
import { isRollingSync, type PlannedApp } from "../progressivesync/index.js";
import type { PassOutcome } from "./conditions.js";
import { planAppSetDeletion } from "./appset-deletion.js";
import { removeRefreshPatch } from "./appset-patches.js";
import { appChange, desiredFrom, desiredShared } from "./desired.js";
import { knownClusters } from "../project/index.js";
import { truncationWarning } from "./messages.js";
import { allowsDelete, allowsUpdate, effectivePolicy } from "./policy.js";
import { EMPTY_PLAN, type AppDelete, type AppWrite, type Plan, type RolloutReport } from "./plan-types.js";
import { requeueAfterMs } from "./requeue.js";
import { rolloutReport } from "./rollout-metrics.js";
import {
  changedApplicationStatus,
  finalizerPatch,
  mergeMetadataPatches,
  minRequeue,
  noStepsPlan,
  rolloutFor,
  rolloutLogs,
  withRollout,
  type RolloutPlan,
} from "./plan-rollout.js";
import type { AppSetSnapshot, Generation, PlanSettings } from "./snapshot.js";
import { specWarningCondition, specWarnings } from "./spec-warnings.js";
import { planStale } from "./stale.js";
import { nextStatus, resourcesFor, withApplicationStatus, type StatusInput } from "./status.js";
import { validateApplications, validationMessage } from "./validate.js";

/** True for a RollingSync ApplicationSet (the exact type string and a `rollingSync` block). */
export { isRollingSync };

function nameOf(a: { metadata: { name?: string } }): string {
  return a.metadata.name ?? "";
}

/**
 * Creates and updates for the valid Applications under the policy (as the rollout planned them: autosync
 * off, operation attached, refresh annotation where asked); Applications already in order are left out.
 */
function planWrites(
  valid: readonly PlannedApp<RenderedApplication>[],
  s: AppSetSnapshot,
  policy: ApplicationsSyncPolicy,
  opts: { settings: PlanSettings; refresh: ReadonlySet<string>; syncSteps: ReadonlyMap<string, string> },
): AppWrite[] {
  const ownedNames = new Set(s.owned.map(nameOf));
  const writes: AppWrite[] = [];
  const shared = desiredShared(s.appSet, opts.settings);
  for (const app of valid) {
    const name = nameOf(app);
    if (!allowsUpdate(policy) && ownedNames.has(name)) continue;
    const refresh = opts.refresh.has(name);
    const desired = withRollout(desiredFrom(app, s.appSet, opts.settings, shared), app, refresh);
    const change = appChange(desired, s.live.get(name));
    if (change.kind === "none") continue;
    const syncStep = opts.syncSteps.get(name);
    writes.push({ name, desired, change, ...(syncStep !== undefined ? { syncStep } : {}), ...(refresh ? { refresh } : {}) });
  }
  return writes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The owned Applications once the writes and deletes are done (created ones have no status yet). As
 * in Argo CD, an Application being deleted is listed until it is gone: a terminating one, and one
 * this pass deletes that has finalizers to wait for.
 */
function afterState(s: AppSetSnapshot, writes: readonly AppWrite[], deletes: readonly AppDelete[]): Application[] {
  const lingers = (d: AppDelete): boolean => (d.keepFinalizers ?? s.live.get(d.name)?.metadata.finalizers ?? []).length > 0;
  const gone = new Set(deletes.filter((d) => !lingers(d)).map((d) => d.name));
  const byName = new Map<string, Application>();
  for (const a of s.owned) if (!gone.has(nameOf(a))) byName.set(nameOf(a), a);
  for (const w of writes) {
    if (w.change.kind === "error") continue;
    const live = s.live.get(w.name);
    byName.set(
      w.name,
      live ?? ({ metadata: { name: w.name, namespace: w.desired.namespace }, spec: w.desired.spec } as unknown as Application),
    );
  }
  return [...byName.values()];
}

/** The `SpecWarning` condition of a pass, as the conditions to add or the type to remove. */
export function warningConditions(
  s: AppSetSnapshot,
  settings: PlanSettings,
): Required<Pick<StatusInput, "extraConditions" | "removeConditions">> {
  const apps = s.generation?.ok === true ? s.generation.apps : undefined;
  const condition = specWarningCondition(
    specWarnings(s.appSet, { ...(apps ? { apps } : {}), progressiveSyncs: settings.progressiveSyncs ?? false }),
  );
  return condition === undefined
    ? { extraConditions: [], removeConditions: [SPEC_WARNING_CONDITION] }
    : { extraConditions: [condition], removeConditions: [] };
}

function planGenerationError(s: AppSetSnapshot, gen: Extract<Generation, { ok: false }>, now: number, settings: PlanSettings): Plan {
  const outcome: PassOutcome = { kind: "error", reason: gen.reason, message: gen.message, paramsGenerated: false };
  const status = nextStatus(s.appSet.status, {
    outcome,
    now: rfc3339(now),
    rollingSync: isRollingSync(s.appSet),
    ...warningConditions(s, settings),
  });
  const retry = gen.retryAfterMs === undefined ? {} : { retryAfterMs: gen.retryAfterMs };
  const requeue = requeueAfterMs({ kind: "generation-error", generatorRequeueMs: gen.requeueAfterMs ?? 0, ...retry });
  const appSetPatch = removeRefreshPatch(s.appSet);
  return { ...EMPTY_PLAN, ...(status ? { status } : {}), ...(appSetPatch ? { appSetPatch } : {}), requeueAfterMs: requeue };
}

/** Plans one reconcile of the ApplicationSet in `s` at time `now` (ms). */
export function planAppSet(s: AppSetSnapshot, now: number, settings: PlanSettings): Plan {
  if (s.appSet.metadata.deletionTimestamp != null) return planAppSetDeletion(s, now, settings);
  const gen = s.generation;
  if (gen === undefined) throw new Error("planAppSet: the snapshot of a live ApplicationSet needs its generation");
  if (!gen.ok) return planGenerationError(s, gen, now, settings);
  const known = knownClusters(s.clusters, settings.inClusterEnabled);
  const validation = validateApplications(s.appSet, gen.apps, {
    projects: s.projects,
    clusters: known,
    ...(settings.maxApplicationBytes !== undefined ? { maxBytes: settings.maxApplicationBytes } : {}),
  });
  const rollout = rolloutFor(s, validation.valid, now, settings);
  const warned = warningConditions(s, settings);
  if (!rollout.writeApplications) return noStepsPlan(s, rollout, now, warned);
  const policy = effectivePolicy(s.appSet, settings);
  const syncSteps = new Map(rollout.syncs.map((x) => [x.application, x.step]));
  const writes = planWrites(rollout.applications, s, policy, { settings, refresh: new Set(rollout.refresh), syncSteps });
  const deletes = allowsDelete(policy) ? planStale(s.owned, new Set(gen.apps.map(nameOf)), known) : [];
  const invalid = validation.errors.size > 0;
  const outcome: PassOutcome = invalid
    ? { kind: "error", reason: Reason.ApplicationValidationError, message: validationMessage(validation.errors), paramsGenerated: true }
    : { kind: "ok" };
  const resources = resourcesFor(afterState(s, writes, deletes), settings.maxResourcesStatusCount);
  const status = nextStatus(withApplicationStatus(s.appSet.status, rollout.applicationStatus), {
    outcome,
    resources,
    now: rfc3339(now),
    rollingSync: isRollingSync(s.appSet),
    extraConditions: [...rollout.conditions, ...warned.extraConditions],
    removeConditions: [...rollout.removeConditions, ...warned.removeConditions],
  });
  const appSetPatch = mergeMetadataPatches(finalizerPatch(s.appSet, settings), removeRefreshPatch(s.appSet));
  const requeue = requeueAfterMs({ kind: "done", generatorRequeueMs: gen.requeueAfterMs, validationErrors: invalid });
  return {
    writes,
    writeErrorReason: allowsUpdate(policy) ? Reason.UpdateApplicationError : Reason.CreateApplicationError,
    deletes,
    ownerStrips: [],
    ...(status ? { status } : {}),
    ...(appSetPatch ? { appSetPatch } : {}),
    requeueAfterMs: minRequeue(minRequeue(requeue, rollout.requeueAfterMs), safetyRequeue(rollout)),
    ...passLogs(s, resources.truncatedFrom, settings, rollout),
    ...withReport(rolloutReport(rollout, now)),
    ...safetyWrites(rollout),
  };
}

function safetyRequeue(rollout: RolloutPlan): number | undefined {
  return rollout.safety?.kind === "governed" ? rollout.safety.requeueAfterMs : undefined;
}

/** Rollout safety's RolloutRun writes and events. */
function safetyWrites(rollout: RolloutPlan): Pick<Plan, "rolloutRuns" | "rolloutEvents" | "safetyReport"> {
  const g = rollout.safety;
  if (g?.kind !== "governed") return {};
  return { rolloutRuns: g.writes, safetyReport: g.report, ...(g.events.length > 0 ? { rolloutEvents: g.events } : {}) };
}

function withReport(report: RolloutReport | undefined): Pick<Plan, "rolloutReport"> {
  return report === undefined ? {} : { rolloutReport: report };
}

/** The warnings and info lines of a pass, and the `applicationStatus` to write first. */
function passLogs(
  s: AppSetSnapshot,
  truncatedFrom: number | undefined,
  settings: PlanSettings,
  rollout: RolloutPlan,
): Pick<Plan, "warnings" | "logs" | "applicationStatus"> {
  const truncation =
    truncatedFrom === undefined ? [] : [truncationWarning(s.appSet.metadata.name ?? "", truncatedFrom, settings.maxResourcesStatusCount)];
  const { logs: rolloutLines, warnings } = rolloutLogs(rollout);
  const logs = [...rolloutLines, ...(rollout.safety !== undefined && rollout.safety.kind !== "ungoverned" ? rollout.safety.logs : [])];
  const applicationStatus = changedApplicationStatus(s.appSet.status, rollout);
  return {
    warnings: [...truncation, ...warnings],
    ...(logs.length > 0 ? { logs } : {}),
    ...(applicationStatus ? { applicationStatus } : {}),
  };
}
