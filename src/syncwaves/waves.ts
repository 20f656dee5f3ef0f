/**
 * Waves (docs/sync-engine.md#waves): the wave of an object, the mirrored waves of prune tasks,
 * PruneLast, and the choice of the next (phase, wave) batch. Pure.
 */
import { Annotation, SyncPhase } from "../api/index.js";
import type { KubeObject } from "../kube/index.js";
import { annotation, atoi } from "./objects.js";
import type { SyncTask } from "./types.js";

/**
 * The wave of an object: `argocd.argoproj.io/sync-wave` as a signed integer; when absent or not an
 * integer, `helm.sh/hook-weight`; else 0.
 */
export function objectWave(obj: KubeObject | undefined): number {
  return atoi(annotation(obj, Annotation.SyncWave)) ?? atoi(annotation(obj, Annotation.HelmHookWeight)) ?? 0;
}

/** The wave a task runs in: its override, else the wave of its object (target, or live for a prune). */
export function taskWave(task: SyncTask): number {
  return task.waveOverride ?? objectWave(task.target ?? task.live);
}

/** True for a prune task: a live object with no target. */
export function isPrune(task: SyncTask): boolean {
  return task.target === undefined;
}

/**
 * Mirrors the waves of prune tasks so that higher waves are pruned first: the sorted unique prune
 * waves are swapped i-th lowest ↔ i-th highest. Non-prune tasks keep their waves.
 */
export function mirrorPruneWaves(tasks: readonly SyncTask[]): SyncTask[] {
  const waves = [...new Set(tasks.filter(isPrune).map(taskWave))].sort((a, b) => a - b);
  const mirror = new Map(waves.map((w, i) => [w, waves[waves.length - 1 - i] ?? w]));
  return tasks.map((t) => (isPrune(t) ? { ...t, waveOverride: mirror.get(taskWave(t)) ?? taskWave(t) } : t));
}

/**
 * Moves PruneLast prune tasks (selected by `isPruneLast`) after everything else:
 * wave = max(0, highest wave of all Sync-phase tasks) + 1. Apply after {@link mirrorPruneWaves}.
 */
export function applyPruneLast(tasks: readonly SyncTask[], isPruneLast: (task: SyncTask) => boolean): SyncTask[] {
  const syncWaves = tasks.filter((t) => t.phase === SyncPhase.Sync).map(taskWave);
  const last = Math.max(0, ...syncWaves) + 1;
  return tasks.map((t) => (isPrune(t) && isPruneLast(t) ? { ...t, waveOverride: last } : t));
}

/** True when two tasks run in the same batch: same phase and wave. */
export function sameBatch(a: SyncTask, b: SyncTask): boolean {
  return a.phase === b.phase && taskWave(a) === taskWave(b);
}

/** The next batch to run, and whether it is the last (phase, wave) with work left. */
export interface Batch {
  readonly tasks: SyncTask[];
  readonly phase: SyncPhase;
  readonly wave: number;
  readonly finalWave: boolean;
  /** A dry-run operation's single batch of every pending task (phases and waves together). */
  readonly dryRun?: boolean;
}

/**
 * Picks the next batch from the pending tasks, given in sync order: every task with the same phase
 * and wave as the first one. Returns undefined when nothing is pending.
 */
export function selectBatch(pending: readonly SyncTask[]): Batch | undefined {
  const first = pending[0];
  const lastTask = pending[pending.length - 1];
  if (first === undefined || lastTask === undefined) return undefined;
  return {
    tasks: pending.filter((t) => sameBatch(t, first)),
    phase: first.phase,
    wave: taskWave(first),
    finalWave: sameBatch(first, lastTask),
  };
}

/**
 * A dry-run operation's batch: every pending task at once, as Argo CD checks them all in its
 * dry-run pass (nothing is created, so no wave has anything to wait for).
 */
export function dryRunBatch(pending: readonly SyncTask[]): Batch | undefined {
  const first = pending[0];
  if (first === undefined) return undefined;
  return { tasks: [...pending], phase: first.phase, wave: taskWave(first), finalWave: true, dryRun: true };
}

/**
 * Splits the tasks to apply into runs of consecutive equal kind: each run is applied in parallel,
 * runs one after another.
 */
export function kindRuns(tasks: readonly SyncTask[]): SyncTask[][] {
  const runs: SyncTask[][] = [];
  for (const task of tasks) {
    const run = runs[runs.length - 1];
    const kind = task.target?.kind;
    if (run !== undefined && run[0]?.target?.kind === kind) run.push(task);
    else runs.push([task]);
  }
  return runs;
}
