/**
 * Progressive syncs: RollingSync step membership, the per-Application state machine
 * (Waiting → Pending → Progressing → Healthy), maxUpdate budgets and Reverse deletion order. Pure: it
 * decides, the controller writes.
 *
 * One entry, {@link planRollout}: (ApplicationSet, desired Applications, live Applications with
 * their status, now, config) → {@link RolloutDecision}. The decision is data: the desired
 * Applications to write (autosync off, sync operation attached), the new `applicationStatus`, the
 * Applications to refresh, the rollout conditions, an error, and when to look again. Reverse
 * deletion is decided separately by {@link nextReverseDeletion}.
 */
import {
  ConditionMessage,
  ConditionType,
  Reason,
  RollingSyncStatus,
  type Application,
  type ApplicationSet,
  type ApplicationSetCondition,
  type Operation,
} from "../api/index.js";
import { rfc3339 } from "../clock/index.js";
import { reconcileGate, type ReconcileGate } from "./gate.js";
import { transition, type AppStatusEntry, type ResetCause } from "./machine.js";
import { defaultSpecsEquivalent, disableAutosync, observeApp, type ObservedApp, type SpecsEquivalent } from "./observe.js";
import { eligibleApps, progressingCondition, promoteWaiting, syncOperation } from "./promotion.js";
import { assignSteps, labelsOf, stepLabel, type StepAssignment } from "./steps.js";
import { isRollingSync, rollingSyncEnabled } from "./strategy.js";
import { collectIssues, invalidRolloutConfigCondition, type ValidationIssues } from "./validate.js";

export * from "./budget.js";
export * from "./reverse-deletion.js";
export * from "./gate.js";
export * from "./machine.js";
export * from "./observe.js";
export * from "./preview.js";
export * from "./promotion.js";
export * from "./steps.js";
export * from "./strategy.js";
export * from "./validate.js";

/** A desired (generated) Application: what the planner reads of it. */
export interface GeneratedAppView {
  readonly metadata: { readonly name?: string; readonly labels?: unknown };
  readonly spec: unknown;
}

/** A desired Application as the controller should write it. */
export type PlannedApp<D extends GeneratedAppView> = D & { readonly operation?: Operation };

/** Default of `--refresh-grace-period-seconds`. */
export const DEFAULT_REFRESH_GRACE_PERIOD_MS = 30_000;
/** Requeue of a RollingSync ApplicationSet without steps (docs/controller.md#when-a-pass-runs-again). */
export const NO_STEPS_REQUEUE_MS = 180_000;

/** The controller settings the planner depends on. */
export interface RolloutConfig {
  /** `--enable-progressive-syncs`. */
  readonly progressiveSyncsEnabled: boolean;
  /** `--refresh-grace-period-seconds` in ms (default 30 s). */
  readonly refreshGracePeriodMs?: number;
  /** Spec comparison for the "spec differs" reset (default: {@link defaultSpecsEquivalent}). */
  readonly specsEquivalent?: SpecsEquivalent;
}

/** What {@link planRollout} reads. */
export interface RolloutInput<D extends GeneratedAppView> {
  /** The ApplicationSet, with its previous `status.applicationStatus`. */
  readonly appSet: ApplicationSet;
  /** The generated Applications (valid ones), sorted by name. */
  readonly desired: readonly D[];
  /**
   * Every generated Application, invalid ones included (default: `desired`). Step membership is
   * built from these, as Argo CD does, so an Application that fails validation still holds its
   * step: later steps wait for it instead of rolling out past it.
   */
  readonly generated?: readonly GeneratedAppView[];
  /** The live Applications owned by the ApplicationSet, with their status. */
  readonly current: readonly Application[];
  /** Epoch milliseconds. */
  readonly now: number;
  readonly config: RolloutConfig;
  /**
   * Rollout safety's say over the pass (docs/adr/0009-rollout-policy-crd.md), asked after the status
   * moves: which Applications may be promoted (in place of Argo CD's "every step up to the first
   * one not all Healthy"), which entries go back to Waiting, and the `RolloutProgressing` condition.
   * Absent, or returning undefined: Argo CD's rule.
   */
  readonly stepGate?: (view: StepGateView) => StepGate | undefined;
}

/** What a {@link StepGate} is decided from. */
export interface StepGateView {
  readonly assignment: StepAssignment;
  /** The entries after this pass's status moves, sorted by name. */
  readonly entries: readonly AppStatusEntry[];
  readonly observed: readonly ObservedApp[];
}

/** Rollout safety's say over one pass. */
export interface StepGate {
  readonly eligible: ReadonlySet<string>;
  readonly reset: ReadonlySet<string>;
  /** The message of an entry sent back to Waiting. */
  readonly resetMessage: string;
  readonly condition: ApplicationSetCondition;
}

/** A sync this pass attaches. */
export interface RolloutSync {
  readonly application: string;
  readonly step: string;
  /** The revisions the sync is pinned to (the entry's `targetRevisions`). */
  readonly revisions: readonly string[];
  readonly operation: Operation;
}

/** One status move of this pass (for logs and events). */
export interface StatusMove {
  readonly application: string;
  readonly from: string | undefined;
  readonly to: string;
  readonly message: string;
  /** Set when the entry was reset to Waiting by a revision or spec change this pass. */
  readonly reset?: ResetCause;
}

/** A warning to log: the template of this Application asked for automated sync, which RollingSync turns off. */
export interface AutosyncWarning {
  readonly application: string;
  readonly message: string;
}

/** How the ApplicationSet is handled this pass (docs/progressive-syncs.md#modes). */
export type RolloutMode = "disabled" | "allAtOnce" | "noSteps" | "rollingSync";

/** Everything one pass decided. Nothing here has been written. */
export interface RolloutDecision<D extends GeneratedAppView> {
  readonly mode: RolloutMode;
  /** Whether Applications may be created or updated at all this pass (false only for "noSteps"). */
  readonly writeApplications: boolean;
  /** The desired Applications to create or update (autosync off and operations attached under RollingSync). */
  readonly applications: readonly PlannedApp<D>[];
  /** The new `status.applicationStatus`, sorted by name; undefined leaves it as it is. */
  readonly applicationStatus: readonly AppStatusEntry[] | undefined;
  readonly syncs: readonly RolloutSync[];
  /**
   * Applications whose step may sync this pass (Argo CD's `appsToSync`: every step up to the first
   * one not yet all Healthy), sorted by name; empty while the reconcile gate holds the rollout.
   */
  readonly appsToSync: readonly string[];
  readonly moves: readonly StatusMove[];
  readonly autosyncWarnings: readonly AutosyncWarning[];
  /** Applications to annotate with `argocd.argoproj.io/refresh: normal`. */
  readonly refresh: readonly string[];
  /** Conditions to set (RolloutProgressing, InvalidRolloutConfig). */
  readonly conditions: readonly ApplicationSetCondition[];
  /** Condition types to remove. */
  readonly removeConditions: readonly string[];
  /** `ErrorOccurred=True` to report (RollingSync without steps). */
  readonly error: { readonly reason: string; readonly message: string } | undefined;
  readonly issues: ValidationIssues | undefined;
  readonly assignment: StepAssignment | undefined;
  readonly gate: ReconcileGate | undefined;
  readonly requeueAfterMs: number | undefined;
  /** Info lines to log. */
  readonly logs: readonly string[];
}

/** The warning logged for each generated Application whose template enables automated sync. */
export function autosyncWarning(application: string): string {
  return `Application ${JSON.stringify(application)} enables automated sync in its template; RollingSync turns it off (syncPolicy.automated.enabled=false) and syncs the Application step by step`;
}

function emptyDecision<D extends GeneratedAppView>(mode: RolloutMode, desired: readonly D[]): RolloutDecision<D> {
  return {
    mode,
    writeApplications: true,
    applications: desired,
    applicationStatus: undefined,
    syncs: [],
    appsToSync: [],
    moves: [],
    autosyncWarnings: [],
    refresh: [],
    conditions: [],
    removeConditions: [],
    error: undefined,
    issues: undefined,
    assignment: undefined,
    gate: undefined,
    requeueAfterMs: undefined,
    logs: [],
  };
}

const ROLLOUT_CONDITIONS = [ConditionType.RolloutProgressing, ConditionType.InvalidRolloutConfig];

/** Flag off, or not RollingSync: clear `applicationStatus`; drop rollout conditions unless RollingSync with the flag off. */
function withoutRollingSync<D extends GeneratedAppView>(input: RolloutInput<D>, mode: "disabled" | "allAtOnce"): RolloutDecision<D> {
  const existing = input.appSet.status?.applicationStatus ?? [];
  const name = input.appSet.metadata.name ?? "";
  const log =
    mode === "disabled"
      ? `Progressive Sync disabled, removing ${String(existing.length)} AppStatus entries from ApplicationSet ${name}`
      : `Removing ${String(existing.length)} unnecessary AppStatus entries from ApplicationSet ${name}`;
  const keepStale = mode === "disabled" && isRollingSync(input.appSet);
  return {
    ...emptyDecision(mode, input.desired),
    applicationStatus: existing.length > 0 ? [] : undefined,
    removeConditions: keepStale ? [] : ROLLOUT_CONDITIONS,
    logs: existing.length > 0 ? [log] : [],
  };
}

/**
 * Plans one RollingSync pass (docs/progressive-syncs.md#the-rules-of-a-pass, with the seed's
 * reconciled-before-progressing gate, pinned revisions, invalid-maxUpdate-means-no-limit and
 * autosync warnings). Pure and deterministic: the result depends only on the input.
 */
export function planRollout<D extends GeneratedAppView>(input: RolloutInput<D>): RolloutDecision<D> {
  if (!input.config.progressiveSyncsEnabled) return withoutRollingSync(input, "disabled");
  if (!isRollingSync(input.appSet)) return withoutRollingSync(input, "allAtOnce");
  if (!rollingSyncEnabled(input.appSet)) {
    return {
      ...emptyDecision("noSteps", []),
      writeApplications: false,
      error: { reason: Reason.ApplicationSetRolloutError, message: ConditionMessage.NoStepsDefined },
      requeueAfterMs: NO_STEPS_REQUEUE_MS,
    };
  }
  return rollingSyncPass(input);
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

interface Prepared {
  readonly spec: unknown;
  readonly autosyncWasEnabled: boolean;
  readonly prune: boolean;
}

/** Phase A over every live Application, in name order. */
function observeAll<D extends GeneratedAppView>(
  input: RolloutInput<D>,
  prepared: ReadonlyMap<string, Prepared>,
  assignment: StepAssignment,
) {
  const equivalent = input.config.specsEquivalent ?? defaultSpecsEquivalent;
  const previous = new Map((input.appSet.status?.applicationStatus ?? []).map((e) => [e.application, e]));
  const current = [...input.current].sort((a, b) => byName(a.metadata.name ?? "", b.metadata.name ?? ""));
  const observed: ObservedApp[] = [];
  const entries: AppStatusEntry[] = [];
  const moves: StatusMove[] = [];
  for (const app of current) {
    const o = observeApp(app, prepared.get(appName(app))?.spec, equivalent);
    const before = previous.get(o.name);
    const res = transition(before, o, { step: stepLabel(assignment.appStep.get(o.name)) }, input.now);
    observed.push(o);
    entries.push(res.next);
    if (res.message === undefined) continue;
    moves.push({
      application: o.name,
      from: before?.status,
      to: res.next.status,
      message: res.message,
      ...(res.reset ? { reset: res.reset } : {}),
    });
  }
  return { observed, entries, moves };
}

function appName(app: Application): string {
  return app.metadata.name ?? "";
}

/** Phase A, then rollout safety's step gate (when one is asked) and the entries it sends back to Waiting. */
function gatedPhaseA<D extends GeneratedAppView>(
  input: RolloutInput<D>,
  prepared: ReadonlyMap<string, Prepared>,
  assignment: StepAssignment,
) {
  const phaseA = observeAll(input, prepared, assignment);
  const stepGate = input.stepGate?.({ assignment, entries: phaseA.entries, observed: phaseA.observed });
  if (stepGate === undefined) {
    const byName = new Map(phaseA.entries.map((e) => [e.application, e]));
    return { ...phaseA, stepGate, eligible: eligibleApps(assignment, byName, new Set(phaseA.observed.map((o) => o.name))) };
  }
  const reset = resetEntries(phaseA.entries, phaseA.moves, stepGate, input.now);
  return { ...reset, observed: phaseA.observed, stepGate, eligible: stepGate.eligible };
}

function rollingSyncPass<D extends GeneratedAppView>(input: RolloutInput<D>): RolloutDecision<D> {
  const steps = input.appSet.spec.strategy?.rollingSync?.steps ?? [];
  const members = input.generated ?? input.desired;
  const assignment = assignSteps(
    steps,
    members.map((d) => ({ name: d.metadata.name ?? "", labels: labelsOf(d.metadata) })),
  );
  const prepared = new Map(input.desired.map((d) => [d.metadata.name ?? "", disableAutosync(d.spec)]));
  const { observed, entries, moves, stepGate, eligible } = gatedPhaseA(input, prepared, assignment);
  const gate = reconcileGate({
    entries,
    observed,
    now: input.now,
    refreshGracePeriodMs: input.config.refreshGracePeriodMs ?? DEFAULT_REFRESH_GRACE_PERIOD_MS,
  });

  const live = new Map(input.current.map((a) => [appName(a), a]));
  const ready = new Set(observed.filter((o) => o.reconciled && !o.specChanged && !o.terminating).map((o) => o.name));
  const phaseB = gate.open ? promoteWaiting({ steps, entries, eligible, ready, now: input.now }) : { entries, promoted: [] };
  const syncs = gate.open ? pendingSyncs(phaseB.entries, eligible, prepared, live) : [];
  const issues = collectIssues(steps, assignment);
  const opByName = new Map(syncs.map((s) => [s.application, s.operation]));
  return {
    ...emptyDecision("rollingSync", []),
    applications: input.desired.map((d) => plannedApp(d, prepared.get(d.metadata.name ?? "")!, opByName.get(d.metadata.name ?? ""))),
    applicationStatus: phaseB.entries,
    syncs,
    appsToSync: gate.open ? [...eligible].sort(byName) : [],
    moves: [...moves, ...phaseB.promoted.map((n) => promotionMove(n, phaseB.entries))],
    autosyncWarnings: [...prepared].filter(([, p]) => p.autosyncWasEnabled).map(([n]) => ({ application: n, message: autosyncWarning(n) })),
    refresh: gate.refresh,
    conditions: [
      invalidRolloutConfigCondition(issues, input.now),
      stepGate?.condition ?? progressingCondition(phaseB.entries, steps.length, input.now),
    ],
    issues,
    assignment,
    gate,
    requeueAfterMs: gate.requeueAfterMs,
  };
}

/** Entries the step gate sends back to Waiting (those not Waiting already), with their moves. */
function resetEntries(
  entries: readonly AppStatusEntry[],
  moves: readonly StatusMove[],
  gate: StepGate,
  now: number,
): { entries: AppStatusEntry[]; moves: StatusMove[] } {
  const out: StatusMove[] = [...moves];
  const next = entries.map((e) => {
    if (!gate.reset.has(e.application) || e.status === RollingSyncStatus.Waiting) return e;
    out.push({ application: e.application, from: e.status, to: RollingSyncStatus.Waiting, message: gate.resetMessage });
    return { ...e, status: RollingSyncStatus.Waiting, message: gate.resetMessage, lastTransitionTime: rfc3339(now) };
  });
  return { entries: next, moves: out };
}

function promotionMove(name: string, entries: readonly AppStatusEntry[]): StatusMove {
  const e = entries.find((x) => x.application === name)!;
  return { application: name, from: RollingSyncStatus.Waiting, to: e.status, message: e.message };
}

function plannedApp<D extends GeneratedAppView>(d: D, p: Prepared, operation: Operation | undefined): PlannedApp<D> {
  return operation === undefined ? { ...d, spec: p.spec } : { ...d, spec: p.spec, operation };
}

/**
 * Syncs for eligible entries that are Pending after Phase B (already Pending, or promoted by this
 * pass: the controller persists `applicationStatus` before it writes any Application, so the
 * Pending entry exists before its operation), have a desired Application, and whose live
 * Application has no operation requested or running (someone else's operation is left alone; ours
 * is already there). Argo CD attaches the sync one pass after the promotion.
 */
function pendingSyncs(
  entries: readonly AppStatusEntry[],
  eligible: ReadonlySet<string>,
  prepared: ReadonlyMap<string, Prepared>,
  live: ReadonlyMap<string, Application>,
): RolloutSync[] {
  return entries.flatMap((e) => {
    const p = prepared.get(e.application);
    if (e.status !== RollingSyncStatus.Pending || !eligible.has(e.application) || p === undefined) return [];
    if (live.get(e.application)?.operation !== undefined) return [];
    const revisions = e.targetRevisions ?? [];
    return [{ application: e.application, step: e.step, revisions, operation: syncOperation(p.spec, revisions, p.prune) }];
  });
}
