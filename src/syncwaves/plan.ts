/**
 * One step of a sync operation as a pure decision (gitops-engine `Sync`;
 * docs/sync-engine.md#one-step): from the task list (states restored, live objects freshly read)
 * and the time, decide to validate, to finish or wait, or to run the next (phase, wave) batch —
 * and, once the executor has run a batch, what its outcome means ({@link concludeBatch}). Nothing
 * here performs I/O.
 */
import type { ResourceCustomizations } from "./customizations/index.js";
import { Finalizer, HookDeletePolicy, OperationPhase, ResultCode, SyncPhase } from "../api/index.js";
import { hasDeletePolicy } from "./hooks.js";
import { OptionKey, optionIs, pruneDisposition } from "./options.js";
import { isCompleted, isPending, isRunning, isSuccessful, observe, pruned, pruneSkipped, resultKey, withState } from "./tasks.js";
import type { SyncTask } from "./types.js";
import { dryRunBatch, isPrune, kindRuns, sameBatch, selectBatch, type Batch } from "./waves.js";
import { Message, resultMessage, runningMessage } from "./messages.js";

/** What a step asks the executor to do, in this order. */
export interface Actions {
  /** Hooks whose live object loses the hook finalizer (read first when the task has none). */
  readonly removeFinalizers: readonly SyncTask[];
  /** Live objects to prune (deleted in parallel). */
  readonly prunes: readonly SyncTask[];
  /** Live hooks deleted before they are re-created (BeforeHookCreation); the batch then waits. */
  readonly beforeCreation: readonly SyncTask[];
  /** Targets to apply: runs of one kind, each run in parallel, runs in order. */
  readonly applyRuns: readonly (readonly SyncTask[])[];
  /** Completed hooks deleted by their delete policy. */
  readonly deleteHooks: readonly SyncTask[];
}

/** No actions. */
export const NO_ACTIONS: Actions = { removeFinalizers: [], prunes: [], beforeCreation: [], applyRuns: [], deleteHooks: [] };

/** The inputs of a step. */
export interface StepContext {
  /** Sorted tasks with states restored and live objects read for this step. */
  readonly tasks: readonly SyncTask[];
  /** True once the operation has recorded any result. */
  readonly started: boolean;
  /** True once the validation (dry-run) pass of this operation succeeded. */
  readonly validated: boolean;
  readonly dryRun: boolean;
  readonly prune: boolean;
  readonly appOptions: readonly string[];
  readonly startedAtMs: number;
  readonly nowMs: number;
  /** When the Application's deletion-approved annotation was set, if it is. */
  readonly deletionApprovedAtMs?: number;
  /** Optional per-operation deadline (beyond Argo CD): the operation fails after this long. */
  readonly deadlineMs?: number;
  /** The customizations of `argocd-cm` (custom health checks). */
  readonly customizations?: ResourceCustomizations | undefined;
}

/** The decision of a step. `tasks` carries states decided without I/O (observed health, skipped prunes). */
export interface Step {
  readonly kind: "validate" | "finish" | "batch";
  readonly phase: OperationPhase;
  readonly message: string;
  readonly tasks: readonly SyncTask[];
  readonly actions: Actions;
  readonly batch?: Batch;
}

function finish(tasks: readonly SyncTask[], phase: OperationPhase, message: string, actions: Partial<Actions> = {}): Step {
  return { kind: "finish", phase, message, tasks, actions: { ...NO_ACTIONS, ...actions } };
}

function hasLiveFinalizer(t: SyncTask): boolean {
  const f = t.live?.metadata?.finalizers;
  return Array.isArray(f) && f.includes(Finalizer.Hook);
}

/**
 * Completed hooks that lose the hook finalizer: those whose live object holds it, and those read
 * without a live object, which the executor reads again from the apiserver before it gives up on
 * them (gitops-engine looks up a completed hook missing from its cache, so that a hook still in the
 * cluster is not left behind with a finalizer that blocks its deletion; NotFound: nothing to do).
 */
export function completedHooksToRelease(tasks: readonly SyncTask[]): SyncTask[] {
  return tasks.filter((t) => t.hook && isCompleted(t) && (t.live === undefined || hasLiveFinalizer(t)));
}

/** Hooks with a live object and the given policy that are not running: deleted when the operation ends. */
export function hooksToDelete(tasks: readonly SyncTask[], policy: HookDeletePolicy): SyncTask[] {
  return tasks.filter((t) => t.hook && t.live !== undefined && !isRunning(t) && hasDeletePolicy(t.target ?? t.live, policy));
}

/** True when the first and last task differ in phase or wave: non-hook health is then awaited. */
function isMultiStep(tasks: readonly SyncTask[]): boolean {
  const first = tasks[0];
  const last = tasks[tasks.length - 1];
  return first !== undefined && last !== undefined && !sameBatch(first, last);
}

/**
 * The SyncFail phase: fail at once when there are no SyncFail hooks or all completed;
 * otherwise start the pending ones and keep running.
 */
export function syncFailPhase(tasks: readonly SyncTask[], message: string, onComplete: Partial<Actions> = {}): Step {
  const syncFail = tasks.filter((t) => t.phase === SyncPhase.SyncFail);
  const reasons = tasks.filter((t) => t.phase !== SyncPhase.SyncFail && t.state.status === ResultCode.SyncFailed);
  let text = message;
  if (reasons.length > 0) text += `, reason: ${reasons.map((t) => t.state.message ?? "").join(",")}`;
  if (syncFail.every(isCompleted)) {
    const failedHooks = syncFail.filter((t) => t.state.status === ResultCode.SyncFailed);
    if (failedHooks.length > 0) {
      text += `\n${Message.SyncFailHooksFailed}, reason: ${failedHooks.map((t) => t.state.message ?? "").join(",")}`;
    }
    return finish(tasks, OperationPhase.Failed, text, onComplete);
  }
  const start = syncFail.filter(isPending);
  // A named SyncFail hook left by an earlier operation is deleted first (BeforeHookCreation), so it runs again.
  const stale = start.filter((t) => t.live !== undefined && hasDeletePolicy(t.target ?? {}, HookDeletePolicy.BeforeHookCreation));
  if (stale.length > 0) {
    return finish(tasks, OperationPhase.Running, runningMessage(stale, { deletion: true }), { beforeCreation: stale });
  }
  return finish(tasks, OperationPhase.Running, runningMessage(syncFail.filter((t) => !isCompleted(t))), {
    applyRuns: kindRuns(start),
  });
}

/** Steps 1–5: a reason to stop or wait before anything new runs, if there is one. */
function gate(ctx: StepContext, tasks: readonly SyncTask[]): Step | undefined {
  if (ctx.deadlineMs !== undefined && ctx.nowMs - ctx.startedAtMs > ctx.deadlineMs) {
    const running = tasks.filter(isRunning);
    const waiting = running.length > 0 ? `; ${runningMessage(running)}` : "";
    return finish(tasks, OperationPhase.Failed, `${Message.deadlineExceeded(ctx.deadlineMs)}${waiting}`, {
      removeFinalizers: tasks.filter((t) => t.hook && hasLiveFinalizer(t)),
      deleteHooks: running.filter((t) => t.hook && t.live !== undefined),
    });
  }
  const invalid = tasks.filter((t) => t.invalid !== undefined);
  if (invalid.length > 0) {
    const messages = [...new Set(invalid.map((t) => t.invalid ?? ""))].sort();
    const marked = tasks.map((t) =>
      t.invalid !== undefined ? withState(t, { status: ResultCode.SyncFailed, message: resultMessage(t, t.invalid) }) : t,
    );
    return finish(marked, OperationPhase.Failed, `${Message.InvalidTasks}: ${messages.join("; ")}`);
  }
  if (!ctx.started && !ctx.validated) {
    return { kind: "validate", phase: OperationPhase.Running, message: Message.TasksRunning, tasks, actions: NO_ACTIONS };
  }
  const multiStep = isMultiStep(tasks);
  const waited = tasks.filter((t) => isRunning(t) && (multiStep || t.hook));
  if (waited.length > 0) return finish(tasks, OperationPhase.Running, runningMessage(waited));
  const deleting = tasks.filter((t) => t.state.status === ResultCode.Pruned && t.live?.metadata?.deletionTimestamp);
  if (deleting.length > 0) return finish(tasks, OperationPhase.Running, runningMessage(deleting, { deletion: true }));
  return undefined;
}

/**
 * Plans one step of a sync operation. Running tasks are first re-evaluated against their live
 * objects ({@link observe}).
 */
export function planStep(ctx: StepContext): Step {
  const tasks = ctx.tasks.map((t) => observe(t, ctx.customizations));
  const stop = gate(ctx, tasks);
  if (stop !== undefined) return stop;
  const removeFinalizers = completedHooksToRelease(tasks);
  const main = tasks.filter((t) => t.phase !== SyncPhase.SyncFail);
  if (main.some((t) => isCompleted(t) && !isSuccessful(t))) {
    const step = syncFailPhase(tasks, Message.TasksCompletedUnsuccessfully);
    const deleteHooks = hooksToDelete(tasks, HookDeletePolicy.HookFailed);
    return { ...step, actions: { ...step.actions, removeFinalizers, deleteHooks } };
  }
  const applyOutOfSyncOnly = optionIs(ctx.appOptions, OptionKey.ApplyOutOfSyncOnly, "true");
  const pending = main.filter(
    (t) => isPending(t) && !(applyOutOfSyncOnly && !t.hook && t.live !== undefined && t.target !== undefined && t.modified === false),
  );
  const batch = ctx.dryRun ? dryRunBatch(pending) : selectBatch(pending);
  if (batch === undefined) {
    return finish(tasks, OperationPhase.Succeeded, Message.NoMoreTasks, {
      removeFinalizers,
      deleteHooks: hooksToDelete(tasks, HookDeletePolicy.HookSucceeded),
    });
  }
  return planBatch(ctx, tasks, batch, removeFinalizers);
}

function approved(ctx: StepContext): boolean {
  return ctx.deletionApprovedAtMs !== undefined && ctx.deletionApprovedAtMs >= ctx.startedAtMs;
}

/** Step 9: the actions of one batch; prunes that need no I/O get their state here. */
function planBatch(ctx: StepContext, all: readonly SyncTask[], batch: Batch, removeFinalizers: readonly SyncTask[]): Step {
  const decided = new Map<SyncTask, SyncTask>();
  const prunes: SyncTask[] = [];
  const confirm: SyncTask[] = [];
  for (const t of batch.tasks.filter(isPrune)) {
    const d = pruneDisposition(t.live, ctx.appOptions, ctx.prune);
    if (d.action === "skip") decided.set(t, withState(t, pruneSkipped(d.message)));
    else if (d.action === "confirm" && !approved(ctx)) confirm.push(t);
    else if (t.live?.metadata?.deletionTimestamp) decided.set(t, withState(t, pruned(ctx.dryRun)));
    else prunes.push(t);
  }
  if (confirm.length > 0) {
    return finish(all, OperationPhase.Running, runningMessage(confirm, { confirmation: true }), { removeFinalizers });
  }
  const tasks = all.map((t) => decided.get(t) ?? t);
  const pendingHooks = batch.tasks.filter((t) => t.hook && t.live !== undefined);
  const beforeCreation = ctx.dryRun ? [] : pendingHooks.filter((t) => hasDeletePolicy(t.target ?? {}, HookDeletePolicy.BeforeHookCreation));
  const actions: Actions = {
    removeFinalizers: ctx.dryRun ? [] : [...removeFinalizers, ...pendingHooks.filter(hasLiveFinalizer)],
    prunes,
    beforeCreation,
    applyRuns: kindRuns(batch.tasks.filter((t) => !isPrune(t))),
    deleteHooks: [],
  };
  const refreshed = { ...batch, tasks: batch.tasks.map((t) => decided.get(t) ?? t) };
  return { kind: "batch", phase: OperationPhase.Running, message: Message.TasksRunning, tasks, actions, batch: refreshed };
}

/** What the executor reports after running a batch's actions. */
export interface BatchReport {
  /** The task list with the states the executor recorded. */
  readonly tasks: readonly SyncTask[];
  /** True when BeforeHookCreation deletions were issued, so creation waits for the next step. */
  readonly waitingForDeletion: boolean;
}

/** The outcome of a batch (step 10), plus whether the wave delay applies before the next step. */
export interface Conclusion extends Step {
  readonly waveDelay: boolean;
}

/** The current versions of a batch's tasks, matched by result key. */
function batchTasks(batch: Batch, tasks: readonly SyncTask[]): SyncTask[] {
  const keys = new Set(batch.tasks.map(resultKey));
  return tasks.filter((t) => keys.has(resultKey(t)));
}

/**
 * Concludes a batch from the executor's report: failed → SyncFail phase (after running tasks
 * complete); successful and nothing left and no hooks → Succeeded at once; otherwise Running.
 */
export function concludeBatch(step: Step, report: BatchReport): Conclusion {
  const batch = step.batch;
  const tasks = report.tasks;
  if (batch === undefined) return { ...step, tasks, waveDelay: false };
  const mine = batchTasks(batch, tasks);
  const failedRun = mine.some((t) => t.state.status === ResultCode.SyncFailed);
  if (failedRun) {
    const running = mine.filter(isRunning);
    const sf = syncFailPhase(tasks, Message.ObjectsFailedToApply);
    if (running.length > 0) {
      const waiting = [...running, ...tasks.filter((t) => t.phase === SyncPhase.SyncFail && !isCompleted(t))];
      const applyRuns = sf.phase === OperationPhase.Running ? sf.actions.applyRuns : [];
      return {
        ...sf,
        phase: OperationPhase.Running,
        message: runningMessage(waiting),
        actions: { ...NO_ACTIONS, applyRuns },
        waveDelay: false,
      };
    }
    const deleteHooks = sf.phase === OperationPhase.Failed ? hooksToDelete(tasks, HookDeletePolicy.HookFailed) : [];
    return { ...sf, actions: { ...sf.actions, deleteHooks }, waveDelay: false };
  }
  if (report.waitingForDeletion) {
    return { ...finish(tasks, OperationPhase.Running, runningMessage(step.actions.beforeCreation, { deletion: true })), waveDelay: true };
  }
  const remaining = tasks.filter((t) => t.phase !== SyncPhase.SyncFail && isPending(t));
  // The batch was the last of the tasks to run (those ApplyOutOfSyncOnly skips are not among them).
  // A dry run ends with its only batch: Argo CD finds no task left after its dry-run pass.
  if (batch.dryRun === true || (batch.finalWave && !mine.some((t) => t.hook))) {
    const done = finish(tasks, OperationPhase.Succeeded, batch.dryRun === true ? Message.NoMoreTasks : Message.AllTasksRun, {
      removeFinalizers: completedHooksToRelease(tasks),
      deleteHooks: hooksToDelete(tasks, HookDeletePolicy.HookSucceeded),
    });
    return { ...done, waveDelay: false };
  }
  const running = mine.filter(isRunning);
  return {
    ...finish(tasks, OperationPhase.Running, runningMessage(running.length > 0 ? running : remaining)),
    waveDelay: !batch.finalWave,
  };
}
