/**
 * Operation messages of the sync engine, verbatim from Argo CD where Argo CD has them, and the
 * waiting messages (`setRunningPhase`). Pure.
 */
import { resourceKeyOf } from "./objects.js";
import { taskObject } from "./order.js";
import type { SyncTask } from "./types.js";

/** Fixed operation messages. */
export const Message = {
  TasksRunning: "one or more tasks are running",
  InvalidTasks: "one or more synchronization tasks are not valid",
  DryRunFailed: "one or more objects failed to apply (dry run)",
  TasksCompletedUnsuccessfully: "one or more synchronization tasks completed unsuccessfully",
  ObjectsFailedToApply: "one or more objects failed to apply",
  SyncFailHooksFailed: "one or more SyncFail hooks failed",
  NoMoreTasks: "successfully synced (no more tasks)",
  AllTasksRun: "successfully synced (all tasks run)",
  NamespaceFailed: "the namespace failed to apply",
  Terminated: "Operation terminated",
  TerminationErrors: "Operation termination had errors",
  NoOperation: "Invalid operation request: no operation specified",
  /** Beyond Argo CD: the optional per-operation deadline passed. */
  deadlineExceeded: (ms: number): string => `sync deadline of ${String(Math.round(ms / 1000))}s exceeded`,
} as const;

/**
 * A task's result message as Argo CD records it: a kind the apiserver does not serve (`the server
 * could not find the requested resource`) reads `The Kubernetes API could not find <group>/<kind>
 * for requested resource <namespace>/<name>. Make sure the "<kind>" CRD is installed on the
 * destination cluster.`; other messages are kept.
 */
export function resultMessage(task: SyncTask, message: string): string {
  if (!message.includes("the server could not find the requested resource")) return message;
  const k = resourceKeyOf(taskObject(task));
  return `The Kubernetes API could not find ${k.group}/${k.kind} for requested resource ${k.namespace}/${k.name}. Make sure the "${k.kind}" CRD is installed on the destination cluster.`;
}

/** kubectl's message for an object whose kind the apiserver does not serve (without kubectl's file name). */
export function noKindMessage(obj: { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } }): string {
  const where = `name: "${obj.metadata?.name ?? ""}" namespace: "${obj.metadata?.namespace ?? ""}"`;
  return `resource mapping not found for ${where}: no matches for kind "${obj.kind ?? ""}" in version "${obj.apiVersion ?? ""}"\nensure CRDs are installed first`;
}

/** What the tasks are waited on for. */
export interface RunningMessageOptions {
  readonly deletion?: boolean;
  readonly confirmation?: boolean;
}

function label(task: SyncTask): string {
  const k = resourceKeyOf(taskObject(task));
  return `${k.group}/${k.kind}/${k.name}`;
}

/**
 * `waiting for completion of hook <g>/<k>/<n>` (when any task is a hook, the first hook named),
 * else `waiting for healthy state of …`; `deletion of[ hook]` and `pruning confirmation of` for the
 * other waits; suffix ` and N more resources` (`hooks` when all are hooks).
 */
export function runningMessage(tasks: readonly SyncTask[], options: RunningMessageOptions = {}): string {
  const hooks = tasks.filter((t) => t.hook);
  const first = hooks[0] ?? tasks[0];
  if (first === undefined) return Message.TasksRunning;
  let reason: string;
  if (options.confirmation === true) reason = "pruning confirmation of";
  else if (options.deletion === true) reason = hooks.length > 0 ? "deletion of hook" : "deletion of";
  else reason = hooks.length > 0 ? "completion of hook" : "healthy state of";
  let message = `waiting for ${reason} ${label(first)}`;
  const others = tasks.length - 1;
  if (others > 0) message += ` and ${String(others)} more ${hooks.length === tasks.length ? "hooks" : "resources"}`;
  return message;
}
