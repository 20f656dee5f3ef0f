/**
 * The executor: carries out a step's {@link Actions} through the kube ports and records each task's
 * outcome with the pure transitions of `tasks.ts`. Order within a batch
 * (docs/sync-engine.md#waves): hook finalizers removed, prunes in parallel, BeforeHookCreation
 * deletions (after which creation waits for the next step), then the apply runs — each run of one
 * kind in parallel, runs one after another. A write is a server-side apply with field manager
 * `argocd-controller` and forced conflicts, or a replace with `Replace=true` (see {@link SyncExecutor.apply}).
 *
 * I/O boundary: apiserver requests through {@link KubeClient}; kinds are resolved to resources by
 * the injected `resolve` (discovery).
 */
import { Finalizer } from "../api/index.js";
import { errorMessage } from "../errors.js";
import { setTimeout as sleep } from "node:timers/promises";
import {
  isConflict,
  isInvalid,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceDescriptor,
  type WriteOptions,
} from "../kube/index.js";
import { groupOf, isCrd, keyString, resourceKeyOf } from "./objects.js";
import { needsMigration, upgradeManagedFields, type ManagedFieldsEntry } from "./csa-upgrade.js";
import { noKindMessage } from "./messages.js";
import { applyMode } from "./options.js";
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
  /** The operation's sync options (Replace, Force, Validate and the rest; resources' annotations override them). */
  readonly appOptions?: readonly string[];
  /** The operation's sync strategy forces (`syncStrategy.hook.force` or `.apply.force`). */
  readonly force?: boolean;
  /** The client-side apply manager whose fields are handed to ours before an apply; none: no migration. */
  readonly csaManager?: string;
}

/** What a write did to the object, as kubectl says it. */
function appliedVerb(task: SyncTask, result: KubeObject, mode: { replace: boolean; serverSide: boolean }): string {
  // kubectl apply --server-side says this whatever changed, and Argo CD reports kubectl's words.
  if (mode.serverSide) return "serverside-applied";
  const replaced = mode.replace;
  if (task.live === undefined) return "created";
  if (result.metadata?.resourceVersion === task.live.metadata?.resourceVersion) return "unchanged";
  return replaced ? "replaced" : "configured";
}

/** A target without the fields the apiserver owns, for a create or replace. */
function stripServerFields(obj: KubeObject): KubeObject {
  const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, managedFields: _mf, ...meta } = obj.metadata ?? {};
  return { ...obj, metadata: meta };
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

/** How long a kind of a just-applied CRD's group is looked up again before it counts as unknown. */
const NEW_KIND_WAIT_MS = 10_000;

/** Applies tasks and deletes objects for a sync operation. */
export class SyncExecutor {
  /** The groups of the CRDs this executor applied: their kinds may take a moment to be served. */
  private readonly newGroups = new Set<string>();

  constructor(private readonly deps: ExecutorDeps) {}

  /**
   * Resolves a target's resource. A kind of a group whose CRD this executor just applied is looked
   * up again for up to {@link NEW_KIND_WAIT_MS}: an Established CRD's group-version can reach
   * discovery a moment later under load, where kubectl's mapper would look again too.
   */
  private async resolveTarget(target: KubeObject): Promise<ResourceDescriptor> {
    for (let waited = 0; ; waited += 200) {
      try {
        return await this.deps.resolve(target);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        if (!this.newGroups.has(groupOf(target)) || waited >= NEW_KIND_WAIT_MS) throw new Error(noKindMessage(target), { cause: err });
        await sleep(200);
      }
    }
  }

  /**
   * Writes one target as its sync options say ({@link applyMode}): a server-side apply, or with
   * `Replace=true` a create or a replace (an update for CRDs and Namespaces, which a replace would
   * empty), deleting and re-creating first with `Force=true`. An apply refused as invalid (an
   * immutable field) is deleted and re-created with `Force=true`. Fields are validated strictly
   * unless `Validate=false`. A new CRD is waited for until Established (at most 3 s). Returns the
   * new state.
   */
  async apply(task: SyncTask, options: ExecuteOptions & { validateOnly?: boolean }): Promise<SyncTask> {
    const target = task.target;
    if (target === undefined) return task;
    try {
      const resource = await this.resolveTarget(target);
      const dryRun = options.dryRun || options.validateOnly === true;
      const mode = applyMode(target, task.live, options.appOptions ?? [], options.force === true);
      const write = this.writeOptions(dryRun, mode.validate);
      const result = mode.replace
        ? await this.replace(resource, task, write, mode.force)
        : await this.serverSideApply(resource, task, write, { force: mode.force, csa: options.csaManager });
      if (!dryRun && isCrd(target)) {
        await this.established(resource, keyOfObj(target));
        const group = (target.spec as { group?: unknown } | undefined)?.group;
        if (typeof group === "string") this.newGroups.add(group);
      }
      const message = `${describeObject(target)} ${appliedVerb(task, result, mode)}${dryRun ? " (dry run)" : ""}`;
      return withState({ ...task, live: dryRun ? task.live : result }, applied(message, options.dryRun));
    } catch (err) {
      return withState(task, failed(errorMessage(err)));
    }
  }

  private writeOptions(dryRun: boolean, validate: boolean): WriteOptions {
    return { dryRun, fieldManager: this.deps.fieldManager ?? FIELD_MANAGER, fieldValidation: validate ? "Strict" : "Ignore" };
  }

  private async serverSideApply(
    resource: ResourceDescriptor,
    task: SyncTask,
    write: WriteOptions,
    mode: { force: boolean; csa: string | undefined },
  ): Promise<KubeObject> {
    const target = task.target ?? {};
    const manager = write.fieldManager ?? FIELD_MANAGER;
    if (write.dryRun !== true) await this.migrateIfNeeded(resource, task, mode.csa, manager);
    try {
      return await this.deps.client.patch<KubeObject>(
        resource,
        keyOfObj(target),
        { type: "apply", body: target, fieldManager: manager, force: true },
        write,
      );
    } catch (err) {
      if (!mode.force || task.live === undefined || !(isInvalid(err) || isConflict(err))) throw err;
      await this.recreateFrom(resource, target, write);
      return this.deps.client.create<KubeObject>(resource, stripServerFields(target), write);
    }
  }

  /**
   * Migrates the live object's client-side fields to `ssa` when `csa` owns some (as Argo CD before a
   * server-side apply), and — beyond Argo CD — those `ssa` itself holds as an `Update` manager: Argo CD's
   * client-side applies write under `argocd-controller` too, so an object it synced moves over whole.
   */
  private async migrateIfNeeded(resource: ResourceDescriptor, task: SyncTask, csa: string | undefined, ssa: string): Promise<void> {
    if (csa === undefined) return;
    const fields = task.live?.metadata?.managedFields as ManagedFieldsEntry[] | undefined;
    const from = [...new Set([csa, ssa])].filter((m) => needsMigration(fields, m));
    const target = task.target ?? {};
    try {
      for (const manager of from) await this.migrateFields(resource, keyOfObj(target), manager, ssa);
    } catch (err) {
      throw new Error(`Failed to perform client-side apply migration for ${describeObject(target)}: ${errorMessage(err)}`, { cause: err });
    }
  }

  /** Hands the fields of the client-side manager `csa` to `ssa` on the fresh object; a conflict (it changed meanwhile) is retried. */
  private async migrateFields(
    resource: ResourceDescriptor,
    key: { namespace?: string; name: string },
    csa: string,
    ssa: string,
  ): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const fresh = await this.deps.client.get<KubeObject>(resource, key);
      const upgraded = upgradeManagedFields(fresh.metadata?.managedFields as ManagedFieldsEntry[], csa, ssa);
      if (upgraded === undefined) return;
      try {
        await this.deps.client.patch(resource, key, {
          type: "json",
          ops: [
            { op: "replace", path: "/metadata/managedFields", value: upgraded },
            { op: "replace", path: "/metadata/resourceVersion", value: fresh.metadata?.resourceVersion },
          ],
        });
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 4) throw err;
      }
    }
  }

  private async replace(resource: ResourceDescriptor, task: SyncTask, write: WriteOptions, force: boolean): Promise<KubeObject> {
    const target = stripServerFields(task.target ?? {});
    const live = task.live;
    if (live === undefined) return this.deps.client.create<KubeObject>(resource, target, write);
    if (force && target.kind !== "CustomResourceDefinition" && !(target.kind === "Namespace" && groupOf(target) === "")) {
      await this.recreateFrom(resource, target, write);
      return this.deps.client.create<KubeObject>(resource, target, write);
    }
    const body = { ...target, metadata: { ...target.metadata, resourceVersion: live.metadata?.resourceVersion } };
    return this.deps.client.update<KubeObject>(resource, body, write);
  }

  /** Deletes the live object (foreground) and waits until it is gone, for a forced re-creation. */
  private async recreateFrom(resource: ResourceDescriptor, target: KubeObject, write: WriteOptions): Promise<void> {
    const key = keyOfObj(target);
    try {
      await this.deps.client.delete(resource, key, { dryRun: write.dryRun === true, propagationPolicy: "Foreground" });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (write.dryRun === true) return;
    for (let i = 0; i < 300; i++) {
      try {
        await this.deps.client.get(resource, key);
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      await sleep(100);
    }
    throw new Error(`${describeObject(target)} was not deleted within 30s for its forced re-creation`);
  }

  /** Waits (at most 3 s, as Argo CD) for a CRD to be Established; one that is not is no error (Argo CD only logs it). */
  private async established(resource: ResourceDescriptor, key: { name: string }): Promise<void> {
    for (let i = 0; i < 30; i++) {
      const crd = await this.deps.client.get<KubeObject>(resource, key).catch(() => undefined);
      const conditions = (crd?.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
      if (conditions.some((c) => c.type === "Established" && c.status === "True")) return;
      await sleep(100);
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
   * Removes the hook finalizer from an object, read fresh first (the caller's copy may be stale or
   * missing); NotFound, of the object or of its kind, counts as done. The patch tests only the
   * list entry it removes, so other controllers adding or removing their own finalizers at the same
   * time (the garbage collector's `foregroundDeletion`) rarely conflict; a conflict is retried.
   */
  async removeHookFinalizer(obj: KubeObject): Promise<void> {
    let resource: ResourceDescriptor;
    try {
      resource = await this.deps.resolve(obj);
    } catch (err) {
      // A kind the cluster does not serve has no object to release.
      if (isNotFound(err)) return;
      throw err;
    }
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

  /**
   * The validation pass, client-side as Argo CD's dry run is: every target's kind must resolve
   * (the tasks that skip the check are left out by the caller). Nothing is sent to the apiserver,
   * so a completed hook whose spec changed, or an object in a namespace not created yet, does not
   * fail here. Returns the tasks that failed, with their state.
   */
  async validate(tasks: readonly SyncTask[], _options: ExecuteOptions): Promise<SyncTask[]> {
    const results = await Promise.all(
      tasks
        .filter((t) => t.target !== undefined)
        .map(async (t) => {
          try {
            await this.deps.resolve(t.target ?? {});
            return undefined;
          } catch (err) {
            return withState(t, failed(errorMessage(err)));
          }
        }),
    );
    return results.filter((t): t is SyncTask => t !== undefined);
  }

  /**
   * Runs `fn` once per object (a hook of two phases is two tasks of one object), recording a
   * failure on each of its tasks.
   */
  private async cleanup(tasks: readonly SyncTask[], fn: (obj: KubeObject) => Promise<void>, record: (t: SyncTask) => void): Promise<void> {
    const byObject = new Map<string, SyncTask[]>();
    for (const t of tasks) {
      const key = keyString(resourceKeyOf(t.live ?? taskObject(t)));
      byObject.set(key, [...(byObject.get(key) ?? []), t]);
    }
    await Promise.all(
      [...byObject.values()].map(async (same) => {
        const first = same[0]!;
        try {
          await fn(first.live ?? taskObject(first));
        } catch (err) {
          for (const t of same) record(withState(t, { ...t.state, hookPhase: "Error", message: errorMessage(err) }));
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
