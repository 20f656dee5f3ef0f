/**
 * The task state machine (docs/sync-engine.md#task-states) as pure transitions: what an apply, a
 * prune or an observed health does to a task's `{status, hookPhase, message}`, the result key that
 * carries state between steps, and the conversion to and from `syncResult.resources[]`. Pure.
 */
import { OperationPhase, ResultCode, type ResourceResult } from "../api/index.js";
import type { KubeObject } from "../kube/index.js";
import { resourceHealth } from "./health/index.js";
import type { ResourceCustomizations } from "./customizations/index.js";
import { groupOf, resourceKeyOf, versionOf } from "./objects.js";
import { taskObject } from "./order.js";
import { PruneMessage } from "./options.js";
import type { HealthResult, SyncTask, TaskState } from "./types.js";

/** `group/kind/namespace/name:phase`: the key of a task's result within one operation. */
export function resultKey(task: SyncTask): string {
  const k = resourceKeyOf(taskObject(task));
  return `${k.group}/${k.kind}/${k.namespace}/${k.name}:${task.phase}`;
}

/** The key of a stored result, matching {@link resultKey}. */
export function storedResultKey(r: ResourceResult): string {
  return `${r.group}/${r.kind}/${r.namespace}/${r.name}:${r.syncPhase ?? ""}`;
}

/** True when the task has not run in this operation. */
export const isPending = (t: SyncTask): boolean => !t.state.hookPhase;
/** True while the task's outcome is awaited. */
export const isRunning = (t: SyncTask): boolean => t.state.hookPhase === OperationPhase.Running;
/** True when the task reached Succeeded, Failed or Error. */
export const isCompleted = (t: SyncTask): boolean =>
  t.state.hookPhase === OperationPhase.Succeeded ||
  t.state.hookPhase === OperationPhase.Failed ||
  t.state.hookPhase === OperationPhase.Error;
/** True when the task succeeded. */
export const isSuccessful = (t: SyncTask): boolean => t.state.hookPhase === OperationPhase.Succeeded;

/** Returns the task with a new state. */
export function withState(task: SyncTask, state: TaskState): SyncTask {
  return { ...task, state };
}

/** State after a successful apply: Synced, Running (a dry-run operation: Succeeded). */
export function applied(message: string, dryRun: boolean): TaskState {
  return { status: ResultCode.Synced, hookPhase: dryRun ? OperationPhase.Succeeded : OperationPhase.Running, message };
}

/** State after a failed apply or prune: SyncFailed, Failed. */
export function failed(message: string): TaskState {
  return { status: ResultCode.SyncFailed, hookPhase: OperationPhase.Failed, message };
}

/** State after a prune: Pruned, Succeeded. */
export function pruned(dryRun: boolean): TaskState {
  return {
    status: ResultCode.Pruned,
    hookPhase: OperationPhase.Succeeded,
    message: dryRun ? PruneMessage.PrunedDryRun : PruneMessage.Pruned,
  };
}

/** State of a prune that was not done: PruneSkipped, Succeeded. */
export function pruneSkipped(message: string): TaskState {
  return { status: ResultCode.PruneSkipped, hookPhase: OperationPhase.Succeeded, message };
}

/** State of a task whose object vanished while it ran. */
export function missing(task: SyncTask): TaskState {
  const k = resourceKeyOf(taskObject(task));
  return {
    status: ResultCode.SyncFailed,
    hookPhase: OperationPhase.Error,
    message: `Resource ${k.group}/${k.kind}/${k.name} is missing, it might have been deleted`,
  };
}

/**
 * The phase of a running hook from its health: Healthy → Succeeded; Progressing/Suspended →
 * Running; Degraded/Unknown → Failed; no health (or Missing) → Succeeded "<name> created".
 */
export function hookPhaseFromHealth(health: HealthResult | undefined, name: string): { phase: OperationPhase; message: string } {
  switch (health?.status) {
    case "Healthy":
      return { phase: OperationPhase.Succeeded, message: health.message ?? "" };
    case "Progressing":
    case "Suspended":
      return { phase: OperationPhase.Running, message: health.message ?? "" };
    case "Degraded":
    case "Unknown":
      return { phase: OperationPhase.Failed, message: health.message ?? "" };
    default:
      return { phase: OperationPhase.Succeeded, message: `${name} created` };
  }
}

/**
 * The phase of a running non-hook resource from its health: no health or Healthy → Succeeded;
 * Degraded → Failed; anything else stays Running.
 */
export function resourcePhaseFromHealth(health: HealthResult | undefined): { phase: OperationPhase; message: string } | undefined {
  if (health === undefined || health.status === "Healthy") return { phase: OperationPhase.Succeeded, message: health?.message ?? "" };
  if (health.status === "Degraded") return { phase: OperationPhase.Failed, message: health.message ?? "" };
  return undefined;
}

/**
 * Re-evaluates a running task against its freshly read live object (step 3 of a sync step). A task
 * whose object is gone fails with "is missing". Non-running tasks are returned unchanged.
 */
export function observe(task: SyncTask, custom?: ResourceCustomizations): SyncTask {
  if (!isRunning(task)) return task;
  const live = task.live;
  if (live === undefined) return withState(task, missing(task));
  const health = resourceHealth(live, { isHook: task.hook, custom });
  const next = task.hook ? hookPhaseFromHealth(health, live.metadata?.name ?? "") : resourcePhaseFromHealth(health);
  if (next === undefined) return task;
  // An empty message keeps the one the task has (what it was applied with, say), as Argo CD keeps the latest non-empty one.
  const message = next.message !== "" ? next.message : task.state.message;
  if (next.phase === task.state.hookPhase && message === task.state.message) return task;
  return withState(task, { ...task.state, hookPhase: next.phase, ...(message !== undefined ? { message } : {}) });
}

/** The `syncResult.resources[]` entry of a task. */
export function toResult(task: SyncTask): ResourceResult {
  const obj: KubeObject = taskObject(task);
  const k = resourceKeyOf(obj);
  const result: ResourceResult = {
    group: groupOf(obj),
    version: versionOf(obj),
    kind: k.kind,
    namespace: k.namespace,
    name: k.name,
    syncPhase: task.phase,
  };
  if (task.state.status !== undefined) result.status = task.state.status;
  if (task.state.message !== undefined) result.message = task.state.message;
  if (task.state.hookPhase !== undefined) result.hookPhase = task.state.hookPhase;
  if (task.hook) result.hookType = task.phase;
  const images = imagesOf(obj);
  if (images.length > 0) result.images = images;
  return result;
}

/** Where an object keeps its containers: a Pod, a template (Deployment, Job…), a CronJob's job template. */
const CONTAINER_PATHS = [
  ["spec", "containers"],
  ["spec", "template", "spec", "containers"],
  ["spec", "jobTemplate", "spec", "template", "spec", "containers"],
] as const;

/**
 * The container images of an object (`syncResult.resources[].images`), as Argo CD lists them: the
 * first of the container paths the object has, its containers' images in order (init containers
 * are not listed).
 */
export function imagesOf(obj: KubeObject): string[] {
  for (const path of CONTAINER_PATHS) {
    let v: unknown = obj;
    for (const p of path) v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[p] : undefined;
    if (!Array.isArray(v)) continue;
    return v.flatMap((c) => {
      const image = c !== null && typeof c === "object" ? (c as Record<string, unknown>)["image"] : undefined;
      return typeof image === "string" ? [image] : [];
    });
  }
  return [];
}

/** Restores each task's state from the operation's stored results (matched by result key). */
export function restoreStates(tasks: readonly SyncTask[], results: readonly ResourceResult[]): SyncTask[] {
  const byKey = new Map(results.map((r) => [storedResultKey(r), r]));
  return tasks.map((t) => {
    const r = byKey.get(resultKey(t));
    if (r === undefined) return t;
    return withState(t, {
      ...(r.status !== undefined ? { status: r.status as TaskState["status"] } : {}),
      ...(r.hookPhase ? { hookPhase: r.hookPhase as OperationPhase } : {}),
      ...(r.message !== undefined ? { message: r.message } : {}),
    });
  });
}

/**
 * Merges task results into the stored list, keeping first-insertion order: existing entries are
 * replaced in place, new ones appended.
 */
export function mergeResults(stored: readonly ResourceResult[], tasks: readonly SyncTask[]): ResourceResult[] {
  const out = [...stored];
  const index = new Map(out.map((r, i) => [storedResultKey(r), i]));
  for (const task of tasks) {
    if (task.state.hookPhase === undefined && task.state.status === undefined) continue;
    const r = toResult(task);
    const at = index.get(storedResultKey(r));
    if (at === undefined) {
      index.set(storedResultKey(r), out.length);
      out.push(r);
    } else {
      out[at] = r;
    }
  }
  return out;
}

/** A task as waiting messages name it: `group/kind/name` (the core group renders empty). */
export function taskLabel(task: SyncTask): string {
  const k = resourceKeyOf(taskObject(task));
  return `${k.group}/${k.kind}/${k.name}`;
}
