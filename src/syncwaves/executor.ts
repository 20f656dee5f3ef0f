/**
 * The executor: carries out a step's {@link Actions} through the kube ports and records each task's
 * outcome with the pure transitions of `tasks.ts`. Order within a batch
 * (docs/sync-engine.md#waves): hook finalizers removed, prunes in parallel, BeforeHookCreation
 * deletions (after which creation waits for the next step), then the apply runs — each run of one
 * kind in parallel, runs one after another. Every apply is a server-side apply with field manager
 * `argocd-controller` and forced conflicts.
 *
 * I/O boundary: apiserver requests through {@link KubeClient}; kinds are resolved to resources by
 * the injected `resolve` (discovery).
 */
import { Finalizer } from "../api/index.js";
import { errorMessage } from "../errors.js";
import { isConflict, isNotFound, type KubeClient, type KubeObject, type ResourceDescriptor } from "../kube/index.js";
import { groupOf } from "./objects.js";
import { taskObject } from "./order.js";
import { NO_ACTIONS, type Actions, type BatchReport } from "./plan.js";
import { applied, failed, pruned, resultKey, withState } from "./tasks.js";
import type { SyncTask } from "./types.js";

/** The field manager of every apply, as Argo CD's server-side apply uses. */
export const FIELD_MANAGER = "argocd-controller";

/** What the executor needs. */
export interface ExecutorDeps {
  readonly client: KubeClient;
  /** Resolves an object's apiVersion and kind to its resource (fails with NotFound for unknown kinds). */
  readonly resolve: (obj: KubeObject) => Promise<ResourceDescriptor>;
  readonly fieldManager?: string;
}

/** Per-operation execution options. */
export interface ExecuteOptions {
  readonly dryRun: boolean;
  /** Delete propagation for prunes and hook deletions. */
  readonly propagation: "Foreground" | "Background" | "Orphan";
}

/** `deployment.apps/name` (kubectl's way of naming an object in messages). */
export function describeObject(obj: KubeObject): string {
  const group = groupOf(obj);
  return `${(obj.kind ?? "").toLowerCase()}${group ? `.${group}` : ""}/${obj.metadata?.name ?? ""}`;
}

function keyOfObj(obj: KubeObject): { namespace?: string; name: string } {
  const ns = obj.metadata?.namespace;
  return { name: obj.metadata?.name ?? "", ...(ns ? { namespace: ns } : {}) };
}

/** Applies tasks and deletes objects for a sync operation. */
export class SyncExecutor {
  constructor(private readonly deps: ExecutorDeps) {}

  /** Server-side applies one target; returns the new state. */
  async apply(task: SyncTask, options: ExecuteOptions & { validateOnly?: boolean }): Promise<SyncTask> {
    const target = task.target;
    if (target === undefined) return task;
    try {
      const resource = await this.deps.resolve(target);
      const dryRun = options.dryRun || options.validateOnly === true;
      const result = await this.deps.client.patch<KubeObject>(
        resource,
        keyOfObj(target),
        { type: "apply", body: target, fieldManager: this.deps.fieldManager ?? FIELD_MANAGER, force: true },
        { dryRun, fieldManager: this.deps.fieldManager ?? FIELD_MANAGER },
      );
      const verb =
        task.live === undefined
          ? "created"
          : result.metadata?.resourceVersion === task.live.metadata?.resourceVersion
            ? "unchanged"
            : "configured";
      const message = `${describeObject(target)} ${verb}${dryRun ? " (dry run)" : ""}`;
      return withState({ ...task, live: dryRun ? task.live : result }, applied(message, options.dryRun));
    } catch (err) {
      return withState(task, failed(errorMessage(err)));
    }
  }

  /** Deletes an object; NotFound counts as done. */
  async delete(obj: KubeObject, options: ExecuteOptions): Promise<void> {
    const resource = await this.deps.resolve(obj);
    try {
      await this.deps.client.delete(resource, keyOfObj(obj), { dryRun: options.dryRun, propagationPolicy: options.propagation });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /**
   * Removes the hook finalizer from a live object; NotFound counts as done. The patch tests only the
   * list entry it removes, so other controllers adding or removing their own finalizers at the same
   * time (the garbage collector's `foregroundDeletion`) rarely conflict; a conflict is retried.
   */
  async removeHookFinalizer(obj: KubeObject): Promise<void> {
    const resource = await this.deps.resolve(obj);
    let last: unknown;
    for (let attempt = 0; attempt < 10; attempt++) {
      try {
        const live = await this.deps.client.get<KubeObject>(resource, keyOfObj(obj));
        const current = Array.isArray(live.metadata?.finalizers) ? live.metadata.finalizers : [];
        const at = current.indexOf(Finalizer.Hook);
        if (at < 0) return;
        await this.deps.client.patch(resource, keyOfObj(obj), {
          type: "json",
          ops: [
            { op: "test", path: `/metadata/finalizers/${String(at)}`, value: Finalizer.Hook },
            { op: "remove", path: `/metadata/finalizers/${String(at)}` },
          ],
        });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) && !isInvalidTest(err)) throw err;
        last = err;
      }
    }
    throw new Error(`failed to remove hook finalizer: ${errorMessage(last)}`);
  }

  /** Prunes one live object. */
  private async prune(task: SyncTask, options: ExecuteOptions): Promise<SyncTask> {
    try {
      if (task.live !== undefined) await this.delete(task.live, options);
      return withState(task, pruned(options.dryRun));
    } catch (err) {
      return withState(task, failed(errorMessage(err)));
    }
  }

  /**
   * Runs a step's actions and reports the tasks with their new states. Finalizer removals and hook
   * deletions that fail are reported as errors on the task (hookPhase Error).
   */
  async execute(actions: Actions, tasks: readonly SyncTask[], options: ExecuteOptions): Promise<BatchReport> {
    const updated = new Map<string, SyncTask>();
    const record = (t: SyncTask): void => void updated.set(resultKey(t), t);
    const current = (): SyncTask[] => tasks.map((t) => updated.get(resultKey(t)) ?? t);
    if (!options.dryRun) await this.cleanup(actions.removeFinalizers, (o) => this.removeHookFinalizer(o), record);
    (await Promise.all(actions.prunes.map((t) => this.prune(t, options)))).forEach(record);
    if (actions.prunes.some((t) => updated.get(resultKey(t))?.state.status === "SyncFailed")) {
      return { tasks: current(), waitingForDeletion: false };
    }
    if (actions.beforeCreation.length > 0) {
      await this.cleanup(actions.beforeCreation, (o) => this.delete(o, options), record);
      return { tasks: current(), waitingForDeletion: true };
    }
    for (const run of actions.applyRuns) {
      (await Promise.all(run.map((t) => this.apply(t, options)))).forEach(record);
    }
    if (!options.dryRun) {
      await this.cleanup(
        actions.deleteHooks,
        async (o) => {
          await this.removeHookFinalizer(o);
          await this.delete(o, options);
        },
        record,
      );
    }
    return { tasks: current(), waitingForDeletion: false };
  }

  /** Dry-runs every target (the validation pass); returns the tasks that failed, with their state. */
  async validate(tasks: readonly SyncTask[], options: ExecuteOptions): Promise<SyncTask[]> {
    const results = await Promise.all(
      tasks.filter((t) => t.target !== undefined).map((t) => this.apply(t, { ...options, validateOnly: true })),
    );
    return results.filter((t) => t.state.status === "SyncFailed");
  }

  private async cleanup(tasks: readonly SyncTask[], fn: (obj: KubeObject) => Promise<void>, record: (t: SyncTask) => void): Promise<void> {
    await Promise.all(
      tasks.map(async (t) => {
        try {
          await fn(t.live ?? taskObject(t));
        } catch (err) {
          record(withState(t, { ...t.state, hookPhase: "Error", message: errorMessage(err) }));
        }
      }),
    );
  }
}

function isInvalidTest(err: unknown): boolean {
  return err instanceof Error && /test/i.test(err.message) && /fail/i.test(err.message);
}

/** Actions that only start the given tasks. */
export function startActions(tasks: readonly SyncTask[]): Actions {
  return { ...NO_ACTIONS, applyRuns: [tasks] };
}
