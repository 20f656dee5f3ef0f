/**
 * A run as the state machine holds it ({@link RunState}: 0-based indexes, epoch milliseconds) and
 * as the `RolloutRun` resource stores it (1-based step numbers, RFC 3339 seconds): the name of a
 * run, its target revisions, its status both ways, and the control requests not yet applied.
 */
import { createHash } from "node:crypto";
import type { RolloutRun, RolloutRunStatus, RunRequest, RunStepStatus, RunTarget } from "../../api/index.js";
import { rfc3339 } from "../../clock/index.js";
import { parseTime } from "../observe.js";
import { newRun, waitingStep } from "./run.js";
import {
  ControlKind,
  RunPhase,
  StepPhase,
  type ControlRequest,
  type HaltReason,
  type RunState,
  type StepCounts,
  type StepRun,
} from "./types.js";

/** Target revisions by Application. */
export type Targets = Readonly<Record<string, readonly string[]>>;

/** The longest object name Kubernetes accepts. */
const MAX_NAME = 253;
/** Hex digits of the target hash in a run's name. */
const HASH_DIGITS = 10;

/** The targets as a sorted list (the resource's `spec.targetRevisions`). */
export function targetList(targets: Targets): RunTarget[] {
  return Object.keys(targets)
    .sort()
    .map((application) => ({ application, revisions: [...(targets[application] ?? [])] }));
}

/** The targets of a resource's `spec.targetRevisions`. */
export function targetsOf(list: readonly RunTarget[] | undefined): Record<string, readonly string[]> {
  return Object.fromEntries((list ?? []).map((t) => [t.application, [...t.revisions]]));
}

/** A stable hash of a set of target revisions: the same set always names the same run. */
export function targetsHash(targets: Targets): string {
  return createHash("sha256")
    .update(JSON.stringify(targetList(targets)))
    .digest("hex")
    .slice(0, HASH_DIGITS);
}

/** The name of the run of `appSet` to these targets: `<appSet>-<hash>`, the ApplicationSet's part cut to fit 253 characters. */
export function runName(appSet: string, targets: Targets): string {
  const hash = targetsHash(targets);
  return `${appSet.slice(0, MAX_NAME - HASH_DIGITS - 1)}-${hash}`;
}

const time = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : rfc3339(ms));

function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function stepStatus(s: StepRun): RunStepStatus {
  return defined({
    step: s.index + 1,
    phase: s.phase,
    applications: [...s.applications],
    counts: { ...s.counts },
    toleratedFailures: [...s.toleratedFailures],
    startedAt: time(s.startedAt),
    endedAt: time(s.endedAt),
    deadline: time(s.deadline),
    soakStartedAt: time(s.soakStartedAt),
    soakRestarts: s.soakRestarts,
    approvedAt: time(s.approvedAt),
    message: s.why,
  });
}

/** What a run waits on, in one line: its current step's "why", or how it ended. */
export function runMessage(run: RunState): string {
  if (run.phase === RunPhase.Completed) return "completed";
  const step = run.steps[run.currentStep];
  if (run.phase === RunPhase.Aborted)
    return `aborted${run.haltReason !== undefined && run.haltReason !== "Aborted" ? ` (${run.haltReason})` : ""}`;
  return step?.why ?? "";
}

/** The status of a run, keeping the request bookkeeping given. */
export function runStatus(run: RunState, requests: Pick<RolloutRunStatus, "observedRequests" | "requests">): RolloutRunStatus {
  return defined({
    phase: run.phase,
    currentStep: run.currentStep < run.steps.length ? run.currentStep + 1 : undefined,
    haltReason: run.haltReason,
    message: runMessage(run),
    startedAt: time(run.startedAt),
    endedAt: time(run.endedAt),
    pausedAt: time(run.pausedAt),
    steps: run.steps.map(stepStatus),
    rollback:
      run.rollback === undefined
        ? undefined
        : {
            at: rfc3339(run.rollback.at),
            applications: run.rollback.applications.map((a) => ({ application: a.name, from: [...a.from], to: [...a.to] })),
            skipped: [...run.rollback.skipped],
          },
    observedRequests: requests.observedRequests,
    requests: requests.requests,
  });
}

const STEP_PHASES = new Set<string>(Object.values(StepPhase));
const RUN_PHASES = new Set<string>(Object.values(RunPhase));

const counted = (c: RunStepStatus["counts"], total: number): StepCounts =>
  c === undefined
    ? { total, ready: 0, failed: 0, pending: total }
    : { total: c.total, ready: c.ready, failed: c.failed, pending: c.pending };

function stepRun(s: RunStepStatus, fallback: StepRun): StepRun {
  const apps = s.applications ?? fallback.applications;
  const at = (v: string | null | undefined): number | undefined => parseTime(v);
  return {
    index: s.step - 1,
    phase: STEP_PHASES.has(s.phase) ? (s.phase as StepPhase) : fallback.phase,
    applications: apps,
    counts: counted(s.counts, apps.length),
    toleratedFailures: s.toleratedFailures ?? [],
    ...defined({
      startedAt: at(s.startedAt),
      endedAt: at(s.endedAt),
      deadline: at(s.deadline),
      soakStartedAt: at(s.soakStartedAt),
      approvedAt: at(s.approvedAt),
    }),
    soakRestarts: s.soakRestarts ?? 0,
    why: s.message ?? "",
  };
}

/**
 * The run a resource holds. A run without a status yet (just created) is a new run on the given
 * steps; stored steps win over the given ones, so a run keeps the membership it started with.
 */
export function runOf(resource: RolloutRun, steps: readonly (readonly string[])[], now: number): RunState {
  const targets = targetsOf(resource.spec.targetRevisions);
  const id = resource.metadata.name ?? "";
  const st = resource.status;
  const fresh = newRun({ id, steps, targetRevisions: targets, now: parseTime(resource.metadata.creationTimestamp) ?? now });
  if (st?.phase === undefined || !RUN_PHASES.has(st.phase)) return fresh;
  const runSteps = storedSteps(st, fresh);
  return {
    id,
    phase: st.phase as RunPhase,
    targetRevisions: targets,
    steps: runSteps,
    currentStep: st.currentStep === undefined ? runSteps.length : Math.min(Math.max(0, st.currentStep - 1), runSteps.length),
    startedAt: parseTime(st.startedAt) ?? fresh.startedAt,
    ...defined({ endedAt: parseTime(st.endedAt), pausedAt: parseTime(st.pausedAt), haltReason: st.haltReason as HaltReason | undefined }),
    ...rollbackOf(st.rollback),
  };
}

function rollbackOf(rb: RolloutRunStatus["rollback"]): { rollback?: RunState["rollback"] } {
  if (rb === undefined) return {};
  return {
    rollback: {
      at: parseTime(rb.at) ?? 0,
      applications: (rb.applications ?? []).map((a) => ({ name: a.application, from: a.from ?? [], to: a.to ?? [] })),
      skipped: rb.skipped ?? [],
    },
  };
}

/** The steps a stored status holds, renumbered 1.. in order; none stored: the fresh run's. */
function storedSteps(st: RolloutRunStatus, fresh: RunState): StepRun[] {
  const stored = (st.steps ?? []).filter((s) => Number.isInteger(s.step) && s.step >= 1).sort((a, b) => a.step - b.step);
  if (stored.length === 0) return [...fresh.steps];
  return stored.map((s, i) => stepRun({ ...s, step: i + 1 }, fresh.steps[i] ?? waitingStep(i, s.applications ?? [])));
}

const KINDS: Readonly<Record<RunRequest["action"], ControlKind>> = {
  pause: ControlKind.Pause,
  resume: ControlKind.Resume,
  promote: ControlKind.Promote,
  abort: ControlKind.Abort,
  approve: ControlKind.Approve,
};

/** A request not applied yet, with its index in `spec.requests`. */
export interface PendingRequest {
  readonly index: number;
  readonly request: ControlRequest;
}

/** The requests after `status.observedRequests`, in order. */
export function pendingRequests(resource: RolloutRun): PendingRequest[] {
  const all = resource.spec.requests ?? [];
  const from = Math.max(0, resource.status?.observedRequests ?? 0);
  return all.slice(from).map((r, i) => ({
    index: from + i,
    request: { kind: KINDS[r.action], ...(r.step !== undefined ? { step: r.step - 1 } : {}) },
  }));
}
