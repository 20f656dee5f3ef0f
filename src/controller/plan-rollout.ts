/**
 * Progressive syncs inside one reconcile (docs/controller.md#progressive-syncs): runs the pure
 * RollingSync planner of `src/progressivesync` over the valid generated Applications and the owned
 * ones, and shapes its decision for {@link planAppSet}: the desired Applications with the sync
 * operation and the refresh annotation, the `applicationStatus` to persist first, the log lines,
 * the AppSet finalizer Reverse deletion needs, and the "no steps" plan. Pure.
 */
import { Annotation, Finalizer, RefreshType, Reason, type ApplicationSet, type ApplicationSetStatus } from "../api/index.js";
import { rfc3339 } from "../clock/index.js";
import type { RenderedApplication } from "../generators/applications.js";
import {
  defaultSpecsEquivalent,
  needsFinalizer,
  planRollout,
  type PlannedApp,
  type RolloutDecision,
  type SpecsEquivalent,
} from "../progressivesync/index.js";
import type { Governance } from "../progressivesync/safety/index.js";
import { addFinalizerPatch } from "./appset-patches.js";
import { safetyPass, withRollbacks, type SafetyPass } from "./plan-safety.js";
import { ignorePathsFor, type DesiredApp } from "./desired.js";
import { getPath, jsonEqual, setPath, type Json, type JsonObject } from "../json/index.js";
import { EMPTY_PLAN, type Plan } from "./plan-types.js";
import { REQUEUE_ON_ERROR_MS } from "./requeue.js";
import type { AppSetSnapshot, PlanSettings } from "./snapshot.js";
import { nextStatus, type StatusInput } from "./status.js";

/** The rollout decision over rendered Applications, with what rollout safety decided when a policy governs. */
export type RolloutPlan = RolloutDecision<RenderedApplication> & { readonly safety?: Governance };

/** Runs the RollingSync planner for one pass (with the flag off it only clears a stale `applicationStatus`). */
export function rolloutFor(s: AppSetSnapshot, valid: readonly RenderedApplication[], now: number, settings: PlanSettings): RolloutPlan {
  const safety = safetyPass(s, now);
  const decision = rollingSyncFor(s, valid, { now, settings, safety });
  const outcome = safety?.outcome();
  if (outcome === undefined) return decision;
  const generated = s.generation?.ok === true ? s.generation.apps : valid;
  const rollbacks = outcome.kind === "governed" ? outcome.rollbacks : [];
  return { ...withRollbacks(decision, rollbacks, generated), safety: outcome };
}

function rollingSyncFor(
  s: AppSetSnapshot,
  valid: readonly RenderedApplication[],
  pass: { now: number; settings: PlanSettings; safety: SafetyPass | undefined },
): RolloutDecision<RenderedApplication> {
  const { now, settings, safety } = pass;
  const grace = settings.refreshGracePeriodMs;
  return planRollout({
    appSet: s.appSet,
    desired: valid,
    generated: s.generation?.ok === true ? s.generation.apps : valid,
    current: s.owned,
    now,
    config: {
      progressiveSyncsEnabled: settings.progressiveSyncs === true,
      specsEquivalent: specsEquivalentFor(s.appSet),
      ...(grace !== undefined ? { refreshGracePeriodMs: grace } : {}),
    },
    ...(safety !== undefined ? { stepGate: safety.gate } : {}),
  });
}

/**
 * The rollout's "spec differs" comparison with the ApplicationSet's `ignoreApplicationDifferences`
 * applied: ignored spec fields take their live values before the normalised specs are compared.
 */
export function specsEquivalentFor(appSet: ApplicationSet): SpecsEquivalent {
  const rules = appSet.spec.ignoreApplicationDifferences ?? [];
  if (rules.length === 0) return defaultSpecsEquivalent;
  return (desiredSpec, live) => {
    const from = { spec: live.spec as unknown as Json };
    const target: JsonObject = { spec: structuredClone(desiredSpec) as Json };
    for (const p of ignorePathsFor(rules, live.metadata.name ?? ""))
      if (p[0] === "spec") setPath(target, p, structuredClone(getPath(from, p)));
    return defaultSpecsEquivalent(target["spec"], live);
  };
}

/** The desired Application with what the rollout attaches: the sync operation (never cleared) and the refresh annotation. */
export function withRollout(d: DesiredApp, planned: PlannedApp<RenderedApplication>, refresh: boolean): DesiredApp {
  if (!refresh && !planned.operation) return d;
  const annotations = refresh ? { ...d.annotations, [Annotation.Refresh]: RefreshType.Normal } : d.annotations;
  return { ...d, annotations, ...(planned.operation ? { operation: planned.operation as unknown as JsonObject } : {}) };
}

/** Info lines (moves, syncs, the planner's own lines) and warnings (autosync turned off) of a decision. */
export function rolloutLogs(d: RolloutPlan): { readonly logs: string[]; readonly warnings: string[] } {
  const logs = [
    ...d.logs,
    ...d.moves.map((m) => `Application ${m.application}: ${m.message}`),
    ...d.syncs.map((s) => `triggering sync for application: ${s.application}, step ${s.step}, revisions [${s.revisions.join(", ")}]`),
  ];
  return { logs, warnings: d.autosyncWarnings.map((w) => w.message) };
}

/** What decides whether `applicationStatus` is written (docs/controller.md#status): never a timestamp or target revisions alone. */
function significant(entries: Readonly<NonNullable<ApplicationSetStatus["applicationStatus"]>>): string[][] {
  return entries.map((e) => [e.application, e.status, e.step, e.message ?? ""]);
}

/**
 * The `applicationStatus` to write first: the decision's, when the number of entries or any entry's
 * application, status, step or message differs from the current one. A `lastTransitionTime` or
 * `targetRevisions` change alone writes nothing (Argo CD's rule), so a pass that only restamps an
 * entry cannot start a status-write loop.
 */
export function changedApplicationStatus(current: ApplicationSetStatus | undefined, d: RolloutPlan): RolloutPlan["applicationStatus"] {
  const next = d.applicationStatus;
  if (next === undefined || jsonEqual(significant(current?.applicationStatus ?? []), significant(next))) return undefined;
  return next;
}

/** The metadata patch adding `resources-finalizer.argocd.argoproj.io` when Reverse deletion needs it. */
export function finalizerPatch(appSet: ApplicationSet, settings: PlanSettings): JsonObject | undefined {
  if (!needsFinalizer(appSet, settings.progressiveSyncs === true)) return undefined;
  return addFinalizerPatch(appSet);
}

/**
 * Reverse deletion's finalizer, ensured before generating
 * (docs/progressive-syncs.md#reverse-deletion): the ApplicationSet as the pass should see it and
 * the patch that adds the finalizer (absent when nothing is missing, and while the ApplicationSet
 * is being deleted, when no finalizer may be added).
 */
export function withReverseDeletionFinalizer(
  appSet: ApplicationSet,
  settings: PlanSettings,
): { appSet: ApplicationSet; patch: JsonObject | undefined } {
  const patch = appSet.metadata.deletionTimestamp == null ? finalizerPatch(appSet, settings) : undefined;
  if (patch === undefined) return { appSet, patch };
  return {
    appSet: { ...appSet, metadata: { ...appSet.metadata, finalizers: [...(appSet.metadata.finalizers ?? []), Finalizer.Resources] } },
    patch,
  };
}

/** Two metadata merge patches as one (either may be absent). */
export function mergeMetadataPatches(a: JsonObject | undefined, b: JsonObject | undefined): JsonObject | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return { metadata: { ...(a["metadata"] as JsonObject), ...(b["metadata"] as JsonObject) } };
}

/** The smallest non-zero requeue (0 when neither asks). */
export function minRequeue(a: number, b: number | undefined): number {
  if (b === undefined || b <= 0) return a;
  return a <= 0 ? b : Math.min(a, b);
}

/** RollingSync without steps (docs/progressive-syncs.md#modes): `ErrorOccurred=True`, no Application writes, requeue after 3 minutes. */
export function noStepsPlan(
  s: AppSetSnapshot,
  d: RolloutPlan,
  now: number,
  warned: Pick<StatusInput, "extraConditions" | "removeConditions">,
): Plan {
  const message = d.error?.message ?? "";
  const outcome = { kind: "error", reason: Reason.ApplicationSetRolloutError, message, paramsGenerated: true } as const;
  const status = nextStatus(s.appSet.status, { outcome, now: rfc3339(now), rollingSync: true, ...warned });
  return { ...EMPTY_PLAN, ...(status ? { status } : {}), requeueAfterMs: d.requeueAfterMs ?? REQUEUE_ON_ERROR_MS };
}
