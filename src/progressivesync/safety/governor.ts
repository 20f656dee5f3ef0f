/**
 * The rollout safety pass of one ApplicationSet (docs/adr/0009-rollout-policy-crd.md): which
 * policy governs it, which run its current target revisions belong to (a new set of revisions
 * starts a new run), one {@link decide} over that run, and what the controller must do about it:
 * the Applications RollingSync may promote and those whose entries go back to Waiting, the
 * RolloutRun writes, the rollback syncs still to send, events, log lines, the `RolloutProgressing`
 * condition and when to look again. Pure: the controller reads and writes.
 */
import { isDeepStrictEqual } from "node:util";
import {
  ConditionStatus,
  MAX_RUN_REQUESTS,
  ROLLOUT_APPSET_LABEL,
  ROLLOUT_GROUP_VERSION,
  RollingSyncOperation,
  RollingSyncStatus,
  RolloutKind,
  type Application,
  type ApplicationSet,
  type ApplicationSetCondition,
  type RolloutRun,
  type RolloutRunStatus,
} from "../../api/index.js";
import type { AppStatusEntry } from "../machine.js";
import type { ObservedApp } from "../observe.js";
import { decide } from "./decide.js";
import { observationOf } from "./observation.js";
import type { ResolvedPolicy } from "./policy.js";
import { pendingRequests, runName, runOf, runStatus, targetList, type PendingRequest } from "./resource.js";
import { newestFirst, nextSequence } from "./order.js";
import { lastCompletedRevisions, newRun } from "./run.js";
import { rulesFor } from "./step.js";
import { condition, eventsOf, reportOf, runCondition, SafetyReason, type SafetyEvent, type SafetyReport } from "./report.js";
import { HaltReason, RunPhase, StepPhase, type Decision, type RunState } from "./types.js";

/** How often a halted run with rollbacks still to send looks again. */
export const ROLLBACK_RECHECK_MS = 10_000;

/** What {@link govern} reads. */
export interface GovernInput {
  readonly appSet: ApplicationSet;
  /** The policies of the ApplicationSet's namespace, resolved. */
  readonly policies: readonly ResolvedPolicy[];
  /** The RolloutRuns of this ApplicationSet. */
  readonly runs: readonly RolloutRun[];
  /** Application → 0-based RollingSync step (its first matching step). */
  readonly appStep: ReadonlyMap<string, number>;
  readonly stepCount: number;
  /** The `applicationStatus` entries after this pass's status moves. */
  readonly entries: readonly AppStatusEntry[];
  readonly observed: readonly ObservedApp[];
  /** Live Applications by name (for the operations of rollbacks). */
  readonly live: ReadonlyMap<string, Application>;
  readonly now: number;
}

/**
 * A status write of a run: the whole status replaces the stored one, fenced by the resourceVersion
 * of `resource` (the run as read; absent for the run created in the same pass).
 */
export interface RunStatusWrite {
  readonly name: string;
  readonly resource?: RolloutRun;
  readonly status: RolloutRunStatus;
}

/** The RolloutRun writes of a pass, in the order they are made. */
export interface RunWrites {
  /** A new run to create (its status follows in `status`). */
  readonly create?: RolloutRun;
  /** The run a new one replaces, ended as Superseded. */
  readonly supersede?: RunStatusWrite;
  /** The current run's new status. */
  readonly status?: RunStatusWrite;
  /** Runs beyond the history limit, oldest first. */
  readonly delete: readonly string[];
}

/** A rollback sync still to send: the Application, the revisions, and the marker that recognises it once sent. */
export interface RollbackSync {
  readonly application: string;
  readonly revisions: readonly string[];
  readonly marker: string;
}

/** The outcome of a pass. */
export type Governance =
  | { readonly kind: "ungoverned" }
  | {
      readonly kind: "held";
      readonly policies: readonly string[];
      readonly condition: ApplicationSetCondition;
      readonly logs: readonly string[];
    }
  | {
      readonly kind: "governed";
      readonly policy: string;
      readonly run: RunState;
      readonly decision: Decision;
      /** Applications RollingSync may promote this pass. */
      readonly eligible: ReadonlySet<string>;
      /** Applications whose entries go back to Waiting (restarted or rolled back), so they sync again when eligible. */
      readonly reset: ReadonlySet<string>;
      readonly writes: RunWrites;
      readonly rollbacks: readonly RollbackSync[];
      readonly events: readonly SafetyEvent[];
      readonly logs: readonly string[];
      readonly condition: ApplicationSetCondition;
      readonly requeueAfterMs: number | undefined;
      readonly report: SafetyReport;
    };

const nameOf = (o: { metadata: { name?: string } }): string => o.metadata.name ?? "";

/** The policy that governs the ApplicationSet, or why none can. */
function governing(input: GovernInput): ResolvedPolicy | Extract<Governance, { kind: "held" | "ungoverned" }> {
  const selecting = input.policies.filter((p) => p.selects(input.appSet)).sort((a, b) => (a.name < b.name ? -1 : 1));
  if (selecting.length === 0) return { kind: "ungoverned" };
  const names = selecting.map((p) => p.name);
  if (selecting.length > 1) {
    const message = `ApplicationSet is selected by several RolloutPolicies (${names.join(", ")}): no step starts until exactly one selects it`;
    return {
      kind: "held",
      policies: names,
      condition: condition(ConditionStatus.True, SafetyReason.PolicyConflict, message, input.now),
      logs: [message],
    };
  }
  const policy = selecting[0]!;
  if (policy.problems.length === 0) return policy;
  const message = `RolloutPolicy ${policy.name} is invalid: ${policy.problems.join("; ")}; no step starts until it is fixed`;
  return {
    kind: "held",
    policies: names,
    condition: condition(ConditionStatus.True, SafetyReason.PolicyInvalid, message, input.now),
    logs: [message],
  };
}

/** The target revisions of the Applications in a step, from their entries (those without revisions yet are left out). */
function targetsOf(input: GovernInput): Record<string, readonly string[]> {
  const out: Record<string, readonly string[]> = {};
  for (const e of input.entries) {
    const revisions = e.targetRevisions ?? [];
    if (input.appStep.has(e.application) && revisions.length > 0) out[e.application] = [...revisions];
  }
  return out;
}

function stepsOf(input: GovernInput, targets: Readonly<Record<string, readonly string[]>>): string[][] {
  const steps: string[][] = Array.from({ length: input.stepCount }, () => []);
  for (const name of Object.keys(targets).sort()) steps[input.appStep.get(name)!]?.push(name);
  return steps;
}

function runResource(input: GovernInput, name: string, policy: string, targets: Readonly<Record<string, readonly string[]>>): RolloutRun {
  const appSet = input.appSet;
  return {
    apiVersion: ROLLOUT_GROUP_VERSION,
    kind: RolloutKind.RolloutRun,
    metadata: {
      name,
      namespace: appSet.metadata.namespace ?? "",
      labels: { [ROLLOUT_APPSET_LABEL]: nameOf(appSet) },
      ownerReferences: [
        {
          apiVersion: appSet.apiVersion ?? "argoproj.io/v1alpha1",
          kind: appSet.kind ?? "ApplicationSet",
          name: nameOf(appSet),
          uid: appSet.metadata.uid ?? "",
          blockOwnerDeletion: true,
          controller: true,
        },
      ],
    },
    spec: { applicationSet: nameOf(appSet), policy, sequence: nextSequence(input.runs), targetRevisions: targetList(targets) },
  };
}

/** The run this pass decides on, the run it replaces, the requests to apply, and the history it reads. */
interface Current {
  readonly run: RunState;
  readonly resource: RolloutRun | undefined;
  readonly created: RolloutRun | undefined;
  readonly superseded: RunStatusWrite | undefined;
  readonly requests: readonly PendingRequest[];
  readonly logs: string[];
}

function current(input: GovernInput, policy: string): Current {
  const targets = targetsOf(input);
  const steps = stepsOf(input, targets);
  const name = runName(nameOf(input.appSet), targets);
  const existing = input.runs.find((r) => nameOf(r) === name);
  if (existing !== undefined) {
    return {
      run: runOf(existing, steps, input.now),
      resource: existing,
      created: undefined,
      superseded: undefined,
      requests: pendingRequests(existing),
      logs: [],
    };
  }
  const logs = [`rollout ${name} started for ${String(Object.keys(targets).length)} Applications in ${String(steps.length)} steps`];
  let run = newRun({ id: name, steps, targetRevisions: targets, now: input.now });
  let superseded: RunStatusWrite | undefined;
  // The run it replaces: the running one (a run created without its status yet counts as running),
  // whatever the order (runs from before sequences may tie on their whole-second start times);
  // otherwise the newest.
  const ordered = newestFirst(input.runs);
  const previousResource = ordered.find((r) => runOf(r, steps, input.now).phase === RunPhase.Running) ?? ordered[0];
  if (previousResource !== undefined) {
    const previous = runOf(previousResource, steps, input.now);
    // A running or paused run will never roll these revisions out: the new run replaces it. A
    // halted one stays as it is, the record of the halt.
    if (previous.phase === RunPhase.Running || previous.phase === RunPhase.Paused) {
      const ended: RunState = { ...previous, phase: RunPhase.Aborted, haltReason: HaltReason.Superseded, endedAt: input.now };
      superseded = { name: previous.id, resource: previousResource, status: runStatus(ended, previousResource.status ?? {}) };
      logs.push(`rollout ${previous.id} superseded by ${name}`);
    }
    // A halt, or a pause, holds until someone resumes: the new run inherits it.
    if (previous.phase === RunPhase.Halted || previous.phase === RunPhase.Paused) {
      run = { ...run, phase: RunPhase.Paused, pausedAt: input.now };
      logs.push(
        `rollout ${name} starts paused: the previous rollout ${previous.id} is ${previous.phase}; resume to roll out these revisions`,
      );
    }
  }
  return { run, resource: undefined, created: runResource(input, name, policy, targets), superseded, requests: [], logs };
}

/** The status bookkeeping of the requests applied this pass. */
function requestBookkeeping(c: Current, decision: Decision): Pick<RolloutRunStatus, "observedRequests" | "requests"> {
  const before = c.resource?.status?.requests ?? [];
  const ignored = new Map(decision.ignored.map((i) => [i.request, i.why]));
  const results = c.requests.map((p) => {
    const why = ignored.get(p.request);
    return why === undefined
      ? { index: p.index, applied: true, message: `${p.request.kind} applied` }
      : { index: p.index, applied: false, message: why };
  });
  const observed = c.resource?.spec.requests?.length ?? 0;
  return { observedRequests: observed, requests: [...before, ...results].slice(-MAX_RUN_REQUESTS) };
}

const PROMOTING = new Set<string>([StepPhase.Progressing, StepPhase.Soaking, StepPhase.Completed]);

/** The Applications RollingSync may promote: those of the started steps while the run runs or has completed. */
function eligibleOf(run: RunState): Set<string> {
  if (run.phase !== RunPhase.Running && run.phase !== RunPhase.Completed) return new Set();
  return new Set(run.steps.filter((s) => PROMOTING.has(s.phase)).flatMap((s) => s.applications));
}

/**
 * Entries to send back to Waiting: the Applications of a step started again after a halt, those of
 * a starting step left Progressing by an earlier run, and the Applications rolled back.
 */
function resetOf(before: RunState, decision: Decision, entries: readonly AppStatusEntry[]): Set<string> {
  const out = new Set<string>();
  const status = new Map(entries.map((e) => [e.application, e.status]));
  for (const a of decision.actions) {
    if (a.type !== "startStep") continue;
    const again = before.steps[a.step]?.startedAt !== undefined;
    // A step starting again syncs all its Applications again; a step starting for the first time
    // syncs again those an earlier run left Progressing (a sync that ended, failed or not, without
    // Healthy), which RollingSync would otherwise wait on forever.
    for (const n of a.applications) if (again || status.get(n) === RollingSyncStatus.Progressing) out.add(n);
  }
  const run = decision.run;
  if (run.phase === RunPhase.Halted) (run.rollback?.applications ?? []).forEach((a) => out.add(a.name));
  return out;
}

/** The marker a rollback sync carries in its `info`, naming the run. */
export function rollbackMarker(run: string): string {
  return `RolloutRun ${run} rolled this Application back to the revisions of the last completed rollout`;
}

function rollbackSent(app: Application | undefined, marker: string): boolean {
  const info = app?.status?.operationState?.operation?.info ?? [];
  const pending = app?.operation?.info ?? [];
  return [...info, ...pending].some((i) => i.name === RollingSyncOperation.infoName && i.value === marker);
}

/** Rollbacks of a halted run not yet sent, for Applications with no operation in the way. */
function rollbacksOf(run: RunState, live: ReadonlyMap<string, Application>): { send: RollbackSync[]; waiting: number } {
  if (run.phase !== RunPhase.Halted || run.rollback === undefined) return { send: [], waiting: 0 };
  const marker = rollbackMarker(run.id);
  const send: RollbackSync[] = [];
  let waiting = 0;
  for (const a of run.rollback.applications) {
    const app = live.get(a.name);
    if (app === undefined || rollbackSent(app, marker)) continue;
    if (app.operation != null) waiting++;
    else send.push({ application: a.name, revisions: a.to, marker });
  }
  return { send, waiting };
}

/** When the current step's deadline or soak ends, from now. */
function nextLook(run: RunState, policy: ResolvedPolicy, now: number): number | undefined {
  if (run.phase !== RunPhase.Running) return undefined;
  const step = run.steps[run.currentStep];
  if (step === undefined) return undefined;
  const soakMs = rulesFor(policy.spec, step.index).soakMs;
  const times = [step.deadline, step.soakStartedAt !== undefined && soakMs !== undefined ? step.soakStartedAt + soakMs : undefined];
  const ahead = times.filter((t): t is number => t !== undefined).map((t) => Math.max(1000, t - now + 1000));
  return ahead.length === 0 ? undefined : Math.min(...ahead);
}

/** The runs beyond the history limit (the current one always counts as kept), oldest first. */
function beyondHistory(runs: readonly RolloutRun[], currentName: string, limit: number): string[] {
  const others = newestFirst(runs)
    .map(nameOf)
    .filter((n) => n !== currentName);
  return others.slice(Math.max(0, limit - 1)).reverse();
}

/** The Applications of the steps whose target revisions are not known yet (no entry, or an entry without revisions), sorted. */
function withoutRevisions(input: GovernInput): string[] {
  const known = new Set(input.entries.filter((e) => (e.targetRevisions ?? []).length > 0).map((e) => e.application));
  return [...input.appStep.keys()].filter((name) => !known.has(name)).sort();
}

/**
 * Held until every Application of the steps has target revisions: a run is named by the whole set,
 * so a run of the Applications seen so far would be replaced as each of the others is first seen.
 */
function awaitingRevisions(input: GovernInput, policy: string): Extract<Governance, { kind: "held" }> | undefined {
  const missing = withoutRevisions(input);
  if (missing.length === 0) return undefined;
  const shown = missing.slice(0, 10).join(", ") + (missing.length > 10 ? `, and ${String(missing.length - 10)} more` : "");
  const message = `RolloutPolicy ${policy}: waiting for the target revisions of ${shown} before a rollout starts`;
  return {
    kind: "held",
    policies: [policy],
    condition: condition(ConditionStatus.True, SafetyReason.AwaitingRevisions, message, input.now),
    logs: [],
  };
}

/** One rollout safety pass. */
export function govern(input: GovernInput): Governance {
  const policy = governing(input);
  if (!("selects" in policy)) return policy;
  const awaiting = awaitingRevisions(input, policy.name);
  if (awaiting !== undefined) return awaiting;
  const c = current(input, policy.name);
  const observations = input.observed.map(observationOf);
  const history = newestFirst(input.runs)
    .map((r) => runOf(r, [], input.now))
    .filter((r) => r.id !== c.run.id);
  const lastCompleted = lastCompletedRevisions(history);
  const decision = decide({
    policy: policy.spec,
    run: c.run,
    observations,
    requests: c.requests.map((p) => p.request),
    ...(lastCompleted !== undefined ? { lastCompleted } : {}),
    now: input.now,
  });
  const run = decision.run;
  const status = runStatus(run, requestBookkeeping(c, decision));
  const changed = c.resource === undefined || !isDeepStrictEqual(c.resource.status ?? {}, status);
  const rollbacks = rollbacksOf(run, input.live);
  const look = nextLook(run, policy, input.now);
  const requeue = rollbacks.waiting > 0 ? Math.min(look ?? ROLLBACK_RECHECK_MS, ROLLBACK_RECHECK_MS) : look;
  const events = eventsOf(c.run, run, c.created !== undefined);
  return {
    kind: "governed",
    policy: policy.name,
    run,
    decision,
    eligible: eligibleOf(run),
    reset: resetOf(c.run, decision, input.entries),
    writes: {
      ...(c.created ? { create: c.created } : {}),
      ...(c.superseded ? { supersede: c.superseded } : {}),
      ...(changed ? { status: { name: run.id, ...(c.resource ? { resource: c.resource } : {}), status } } : {}),
      delete: beyondHistory(input.runs, run.id, policy.historyLimit),
    },
    rollbacks: rollbacks.send,
    events,
    logs: [
      ...c.logs,
      ...events.map((e) => e.message),
      ...decision.ignored.map((i) => `rollout ${run.id}: ${i.request.kind} not applied: ${i.why}`),
    ],
    condition: runCondition(run, input.now),
    requeueAfterMs: requeue,
    report: reportOf(c.run, decision),
  };
}
