/**
 * Application deletion, the shell around {@link planAppDeletion}: reads what the plan needs (the
 * deletion hooks of the manifests at the deployed revision, the live objects the Application owns),
 * carries out one decision per pass — create hooks, delete failed hooks and report a
 * `DeletionError` condition, delete one wave of resources, delete hooks by policy, or drop
 * finalizers — and says when to look again. When the last of our finalizers is gone the apiserver
 * removes the Application.
 *
 * I/O boundary: the manifest source, reads, creates and deletes on the destination cluster, and
 * updates of the Application.
 */
import type { ResourceCustomizations } from "./customizations/index.js";
import { AppConditionType, Finalizer, type Application } from "../api/index.js";
import { rfc3339, type Clock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { isAlreadyExists, isNotFound, resources, type KubeClient, type KubeObject } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { isTrackedBy, prepareTarget } from "./build.js";
import { hasHookFinalizer, planAppDeletion, type AppDeletionStep } from "./app-deletion.js";
import type { ClusterAccess } from "./destinations.js";
import { SyncExecutor } from "./executor.js";
import { hookName } from "./hooks.js";
import { candidateOf, candidatesFrom, readLive } from "./live.js";
import type { ManifestSource } from "./manifests.js";
import { observe } from "./observe.js";
import type { AppRequeue } from "./reconcile.js";
import type { ProjectVerdict } from "./project-gate.js";
import type { Writer } from "./impersonation.js";

/** Our finalizers on Applications. */
const OURS: ReadonlySet<string> = new Set([
  Finalizer.Resources,
  Finalizer.ResourcesForeground,
  Finalizer.ResourcesBackground,
  Finalizer.PreDelete,
  Finalizer.PreDeleteCleanup,
  Finalizer.PostDelete,
  Finalizer.PostDeleteCleanup,
]);

const HOOK_FINALIZERS: ReadonlySet<string> = new Set([
  Finalizer.PreDelete,
  Finalizer.PreDeleteCleanup,
  Finalizer.PostDelete,
  Finalizer.PostDeleteCleanup,
]);

/** What deletion needs. */
export interface FinalizerDeps {
  readonly client: KubeClient;
  readonly source: ManifestSource;
  readonly clock: Clock;
  readonly log: Logger;
  readonly trackingName: (app: Application) => string;
  /** How soon a pass that waits looks again (default 1 s; resource watches usually come first). */
  readonly operationPollMs?: number;
  /** The customizations of `argocd-cm` as they are now (custom health checks of the deletion hooks). */
  readonly customizations?: () => ResourceCustomizations;
  /**
   * The AppProject gate: a deletion whose project cannot be loaded waits with a `DeletionError`,
   * only live objects the project permits are deleted, and a deletion hook it does not permit is
   * never created. Absent: no project rules (tests of the deletion alone).
   */
  readonly project?: (app: Application) => ProjectVerdict;
  /**
   * The access the deletion's writes go through (sync impersonation: the project's service
   * account), or the `DeletionError` that stops it; absent: the engine's own access.
   */
  readonly writer?: (app: Application, access: ClusterAccess, verdict: ProjectVerdict | undefined) => Promise<Writer>;
  /**
   * Sharded replicas (docs/sharding.md#the-sync-engine): throws once this replica no longer owns the
   * Application; asked where a pass's writes begin and before each write of the Application. Absent:
   * every write goes.
   */
  readonly fence?: (app: Application) => void;
}

/** The deletion steps that create or delete objects (removeFinalizers fences its own write). */
const WRITING_STEPS: ReadonlySet<AppDeletionStep["kind"]> = new Set(["createHooks", "hooksFailed", "delete", "deleteHooks"]);

/** What one pass read. */
interface DeletionView {
  readonly preHooks: KubeObject[];
  readonly postHooks: KubeObject[];
  readonly live: KubeObject[];
}

function finalizersOf(app: Application): string[] {
  return Array.isArray(app.metadata.finalizers) ? app.metadata.finalizers : [];
}

/**
 * Names generateName deletion hooks after the revision, the stage and the deletion time (stable
 * across passes), and marks every hook with the Application's tracking id.
 */
function nameHooks(
  hooks: readonly KubeObject[],
  stage: string,
  app: Application,
  at: { revision: string; trackingName: string },
): KubeObject[] {
  const deletedAt = Date.parse(app.metadata.deletionTimestamp ?? "");
  return hooks.map((h) => {
    const name = hookName(h, { revision: at.revision, phase: stage, startedAtMs: Number.isNaN(deletedAt) ? 0 : deletedAt });
    const named = name === undefined ? h : { ...h, metadata: { ...h.metadata, name } };
    return prepareTarget(named, { appName: at.trackingName, destinationNamespace: "", isNamespaced: () => undefined });
  });
}

/**
 * What a deletion may touch: the live objects the project permits; a deletion hook it does not
 * permit fails the deletion with the project's message.
 */
function permittedView(view: DeletionView, verdict: ProjectVerdict | undefined): DeletionView {
  if (verdict === undefined) return view;
  for (const hook of [...view.preHooks, ...view.postHooks]) {
    const refused = verdict.objectError(hook, (hook.metadata?.namespace ?? "") !== "");
    if (refused !== undefined) throw new Error(refused);
  }
  return { ...view, live: view.live.filter(verdict.livePermitted) };
}

/** Runs the deletion of Applications. */
export class AppFinalizer {
  constructor(private readonly deps: FinalizerDeps) {}

  /** One pass of an Application's deletion; `access` is undefined when its destination is unknown. */
  async finalize(app: Application, access: ClusterAccess | undefined): Promise<AppRequeue> {
    const ours = finalizersOf(app).filter((f) => OURS.has(f));
    if (ours.length === 0) return {};
    if (access === undefined) {
      this.deps.log.warn({ app: app.metadata.name }, "destination unknown; resources left in place");
      return this.removeFinalizers(app, ours);
    }
    const verdict = this.deps.project?.(app);
    if (verdict?.loadError !== undefined) return this.deletionError(app, verdict.loadError);
    const writer = await this.writer(app, access, verdict);
    if ("error" in writer) return this.deletionError(app, writer.error);
    let view: DeletionView;
    try {
      view = permittedView(await this.read(app, access), verdict);
    } catch (err) {
      return this.deletionError(app, errorMessage(err));
    }
    const appOptions = app.spec.syncPolicy?.syncOptions ?? [];
    const customizations = this.deps.customizations?.();
    const step = planAppDeletion({ app, preHooks: view.preHooks, postHooks: view.postHooks, live: view.live, appOptions, customizations });
    this.deps.log.info({ app: app.metadata.name, step: step.kind }, "deletion step");
    return this.carryOut(app, writer.access, step);
  }

  /** The access the deletion writes through (the engine's own, unless impersonation says otherwise). */
  private async writer(app: Application, access: ClusterAccess, verdict: ProjectVerdict | undefined): Promise<Writer> {
    return this.deps.writer === undefined ? { access } : this.deps.writer(app, access, verdict);
  }

  /**
   * Reads the deletion hooks (when a hook stage is pending) and the owned live objects: the
   * manifests' targets and hooks, `status.resources` and the last operation's results.
   */
  private async read(app: Application, access: ClusterAccess): Promise<DeletionView> {
    const trackingName = this.deps.trackingName(app);
    const recorded = [
      ...candidatesFrom(app.status?.resources ?? []),
      ...candidatesFrom(app.status?.operationState?.syncResult?.resources ?? []),
    ];
    const { preHooks, postHooks, targets } = await this.readManifests(app, access, trackingName);
    const candidates = [...recorded, ...[...targets, ...preHooks, ...postHooks].map(candidateOf)];
    const found = await readLive({ client: access.client, resolve: access.resolve }, candidates);
    return { preHooks, postHooks, live: found.filter((o) => isTrackedBy(o, trackingName)) };
  }

  /**
   * The manifests' targets and deletion hooks, named. Unreadable manifests fail the read when a
   * hook stage is pending; otherwise they count as none, so the recorded resources are deleted.
   */
  private async readManifests(
    app: Application,
    access: ClusterAccess,
    trackingName: string,
  ): Promise<{ preHooks: KubeObject[]; postHooks: KubeObject[]; targets: KubeObject[] }> {
    const out: { preHooks: KubeObject[]; postHooks: KubeObject[]; targets: KubeObject[] } = { preHooks: [], postHooks: [], targets: [] };
    try {
      const revision = app.status?.sync?.revision || undefined;
      const revisions = app.status?.sync?.revisions;
      const at = { ...(revision ? { revision } : {}), ...(revisions && revisions.length > 0 ? { revisions } : {}) };
      const observed = await observe({ app, access, source: this.deps.source, trackingName, ...at });
      const named = { revision: observed.revision, trackingName };
      out.preHooks = nameHooks(observed.preHooks, "PreDelete", app, named);
      out.postHooks = nameHooks(observed.postHooks, "PostDelete", app, named);
      out.targets = observed.targets;
    } catch (err) {
      if (finalizersOf(app).some((f) => HOOK_FINALIZERS.has(f))) throw err;
      this.deps.log.warn({ app: app.metadata.name, err: errorMessage(err) }, "manifests unreadable; deleting the recorded resources");
    }
    return out;
  }

  private async carryOut(app: Application, access: ClusterAccess, step: AppDeletionStep): Promise<AppRequeue> {
    const poll = { requeueAfterMs: this.deps.operationPollMs ?? 1000 };
    // Where the step's creates and deletes begin: once for the step (see AppReconciler's fence).
    if (WRITING_STEPS.has(step.kind)) this.deps.fence?.(app);
    switch (step.kind) {
      case "createHooks":
        await Promise.all(step.hooks.map((h) => this.create(access, h)));
        return poll;
      case "hooksFailed":
        await Promise.all(step.remove.map((o) => this.delete(access, o, "Foreground")));
        return this.deletionError(app, step.message);
      case "delete":
        await Promise.all(step.objects.map((o) => this.delete(access, o, step.propagation)));
        return poll;
      case "deleteHooks":
        await Promise.all(step.objects.map((o) => this.delete(access, o, "Foreground")));
        return poll;
      case "removeFinalizers":
        return this.removeFinalizers(app, step.finalizers);
      case "wait":
        return poll;
      case "done":
        return {};
    }
  }

  private async create(access: ClusterAccess, obj: KubeObject): Promise<void> {
    try {
      await access.client.create(await access.resolve(obj), obj);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  private async delete(access: ClusterAccess, obj: KubeObject, propagation: "Foreground" | "Background"): Promise<void> {
    if (hasHookFinalizer(obj)) await new SyncExecutor({ client: access.client, resolve: access.resolve }).removeHookFinalizer(obj);
    if (obj.metadata?.deletionTimestamp) return;
    const key = { name: obj.metadata?.name ?? "", ...(obj.metadata?.namespace ? { namespace: obj.metadata.namespace } : {}) };
    try {
      await access.client.delete(await access.resolve(obj), key, { propagationPolicy: propagation });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  private async removeFinalizers(app: Application, remove: readonly string[]): Promise<AppRequeue> {
    const finalizers = finalizersOf(app).filter((f) => !remove.includes(f));
    this.deps.fence?.(app);
    await this.deps.client.update(resources.Applications, { ...app, metadata: { ...app.metadata, finalizers } });
    return {};
  }

  private async deletionError(app: Application, message: string): Promise<AppRequeue> {
    const conditions = (app.status?.conditions ?? []).filter((c) => c.type !== AppConditionType.DeletionError);
    const status = {
      ...(app.status ?? {}),
      conditions: [...conditions, { type: AppConditionType.DeletionError, message, lastTransitionTime: rfc3339(this.deps.clock.now()) }],
    };
    this.deps.fence?.(app);
    await this.deps.client.update(resources.Applications, { ...app, status });
    return { requeueAfterMs: 5_000 };
  }
}
