/**
 * Terminating a running operation (docs/sync-engine.md#terminating-an-operation):
 * `status.operationState.phase = Terminating` (set by whoever asks, or by us when a running
 * operation's Application is deleted). Completed hooks lose the hook finalizer (one read without a
 * live object is looked up first); each running hook is read, loses its finalizer and is deleted
 * when it is still running, its health is Unknown, or it has HookFailed; its result becomes its
 * real completed phase, else Failed "Terminated". Non-hook resources are left alone. The operation
 * ends `Failed` "Operation terminated" (`Error` "Operation termination had errors" when the
 * finalizer removal or deletion of a running hook failed; a completed hook's failure only shows on
 * its own result) and is never retried. The plan is pure; {@link terminate} runs it through the
 * {@link StepExecutor}.
 */
import { Finalizer, HookDeletePolicy, OperationPhase, type OperationState } from "../api/index.js";
import { rfc3339 } from "../clock/index.js";
import type { ExecuteOptions } from "./executor.js";
import { resourceHealth } from "./health/index.js";
import type { ResourceCustomizations } from "./customizations/index.js";
import { hasDeletePolicy } from "./hooks.js";
import { Message } from "./messages.js";
import { completedHooksToRelease, NO_ACTIONS } from "./plan.js";
import type { StepExecutor } from "./step.js";
import { hookPhaseFromHealth, isRunning, mergeResults, resultKey, withState } from "./tasks.js";
import type { SyncTask } from "./types.js";

/** What terminating does: finalizers to remove, hooks to delete, and the tasks' final states. */
export interface TerminatePlan {
  readonly removeFinalizers: readonly SyncTask[];
  readonly deleteHooks: readonly SyncTask[];
  readonly tasks: readonly SyncTask[];
}

function hasLiveFinalizer(t: SyncTask): boolean {
  const f = t.live?.metadata?.finalizers;
  return Array.isArray(f) && f.includes(Finalizer.Hook);
}

/** Plans the termination of the running hooks among `tasks`. */
export function planTerminate(tasks: readonly SyncTask[], custom?: ResourceCustomizations): TerminatePlan {
  const removeFinalizers: SyncTask[] = completedHooksToRelease(tasks);
  const deleteHooks: SyncTask[] = [];
  const out = tasks.map((t) => {
    if (!t.hook || !isRunning(t)) return t;
    if (t.live === undefined) return withState(t, { ...t.state, hookPhase: OperationPhase.Succeeded, message: "Terminated" });
    return terminateRunning(t, t.live, { removeFinalizers, deleteHooks, custom });
  });
  return { removeFinalizers, deleteHooks, tasks: out };
}

/**
 * A running hook with a live object, terminated: deleted when it still runs, its health is unknown
 * or it is to be deleted on failure (else its finalizer is removed), and its final phase.
 */
function terminateRunning(
  t: SyncTask,
  live: NonNullable<SyncTask["live"]>,
  plan: { removeFinalizers: SyncTask[]; deleteHooks: SyncTask[]; custom: ResourceCustomizations | undefined },
): SyncTask {
  const health = resourceHealth(live, { isHook: true, custom: plan.custom });
  const next = hookPhaseFromHealth(health, live.metadata?.name ?? "");
  const stillRunning = next.phase === OperationPhase.Running;
  if (stillRunning || health?.status === "Unknown" || hasDeletePolicy(t.target ?? live, HookDeletePolicy.HookFailed)) {
    plan.deleteHooks.push(t);
  } else if (hasLiveFinalizer(t)) {
    plan.removeFinalizers.push(t);
  }
  return withState(
    t,
    stillRunning
      ? { ...t.state, hookPhase: OperationPhase.Failed, message: "Terminated" }
      : { ...t.state, hookPhase: next.phase, message: next.message },
  );
}

/**
 * Terminates an operation: runs the plan and returns the final, never retried, operation state
 * (`finishedAt` set; the caller clears `operation`).
 */
export async function terminate(
  state: OperationState,
  tasks: readonly SyncTask[],
  exec: StepExecutor,
  at: { nowMs: number; options: ExecuteOptions; customizations?: ResourceCustomizations | undefined },
): Promise<OperationState> {
  const plan = planTerminate(tasks, at.customizations);
  const report = await exec.execute({ ...NO_ACTIONS, removeFinalizers: plan.removeFinalizers, deleteHooks: plan.deleteHooks }, plan.tasks, {
    ...at.options,
    dryRun: false,
  });
  // As in gitops-engine, only the running hooks decide: a completed hook that keeps its finalizer
  // shows the error on its own result, the termination itself still succeeded.
  const terminated = new Set(tasks.filter((t) => t.hook && isRunning(t)).map(resultKey));
  const errors = report.tasks.some((t) => terminated.has(resultKey(t)) && t.state.hookPhase === OperationPhase.Error);
  const stored = state.syncResult?.resources ?? [];
  return {
    ...state,
    phase: errors ? OperationPhase.Error : OperationPhase.Failed,
    message: errors ? Message.TerminationErrors : Message.Terminated,
    finishedAt: rfc3339(at.nowMs),
    ...(state.syncResult ? { syncResult: { ...state.syncResult, resources: mergeResults(stored, report.tasks) } } : {}),
  };
}
