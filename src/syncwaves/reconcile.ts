/**
 * The per-Application reconcile: read the Application fresh, read its manifests and live objects,
 * compare (status.sync, status.health, status.resources, status.reconciledAt), start or continue
 * its sync operation by one step, start automated syncs, and write everything back in one update
 * of the Application (which has no status subresource; a stale resourceVersion conflicts and the
 * Application is simply reconciled again).
 *
 * I/O boundary: the kube ports, discovery and the manifest source; time from the injected Clock.
 */
import {
  Annotation,
  AppConditionType,
  OperationPhase,
  SyncStatus,
  type Application,
  type ApplicationSource,
  type Operation,
  type OperationState,
} from "../api/index.js";
import { rfc3339, type Clock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { isNotFound, resources, type KubeClient, type KubeObject, type ResourceDescriptor } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { buildTasks, isSyncTarget, isTrackedBy, prepareTarget } from "./build.js";
import { compare, type Comparison } from "./compare.js";
import { SyncExecutor } from "./executor.js";
import { candidateOf, candidatesFrom, readLive } from "./live.js";
import type { ManifestSource } from "./manifests.js";
import { keyOf, keyString } from "./objects.js";
import { propagationPolicy } from "./options.js";
import { appendHistory, isAwaitingRetry, isCompletedPhase, newOperationState, recordOutcome, restartIfDue, retryDelayMs } from "./operation.js";
import { runSyncStep } from "./step.js";
import { mergeResults, restoreStates } from "./tasks.js";
import { automatedOperation } from "./automated.js";

/** What the reconciler needs. */
export interface ReconcilerDeps {
  readonly client: KubeClient;
  readonly resolve: (obj: KubeObject) => Promise<ResourceDescriptor>;
  readonly source: ManifestSource;
  readonly clock: Clock;
  readonly log: Logger;
  /** Pause after a wave before the next step (ARGOCD_SYNC_WAVE_DELAY; 0 by default here). */
  readonly waveDelayMs?: number;
  /** How often a running operation is re-checked while it waits on health. */
  readonly pollMs?: number;
  /** Optional per-operation deadline. */
  readonly deadlineMs?: number;
  /** The name tracking ids carry; defaults to the Application's name. */
  readonly trackingName?: (app: Application) => string;
}

/** The outcome of one reconcile: when to look again. */
export interface ReconcileResult {
  readonly requeueAfterMs?: number;
}

/** What one reconcile read. */
interface Observed {
  readonly revision: string;
  readonly targets: KubeObject[];
  readonly live: KubeObject[];
  readonly comparison: Comparison;
  readonly scope: Map<string, boolean>;
  readonly invalid: Map<string, string>;
}

function sourceOf(app: Application): ApplicationSource | undefined {
  return app.spec.source ?? app.spec.sources?.[0];
}

/** True when two versions of an Application differ at most in `status.reconciledAt`. */
function sameExceptReconciledAt(a: Application, b: Application): boolean {
  const strip = (x: Application): string => JSON.stringify({ ...x, status: { ...(x.status ?? {}), reconciledAt: null } });
  return strip(a) === strip(b);
}

/** Reconciles Applications one at a time. */
export class AppReconciler {
  private readonly executor: SyncExecutor;

  constructor(private readonly deps: ReconcilerDeps) {
    this.executor = new SyncExecutor({ client: deps.client, resolve: deps.resolve });
  }

  /** Reconciles `namespace/name`. */
  async reconcile(namespace: string, name: string): Promise<ReconcileResult> {
    let app: Application;
    try {
      app = await this.deps.client.get<Application>(resources.Applications, { namespace, name });
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    if (app.metadata.deletionTimestamp) return {};
    return this.reconcileApp(app);
  }

  private trackingName(app: Application): string {
    return this.deps.trackingName?.(app) ?? app.metadata.name ?? "";
  }

  private async observe(app: Application, revision: string | undefined): Promise<Observed> {
    const source = sourceOf(app);
    if (source === undefined) throw new Error("spec.source is required");
    const manifests = await this.deps.source.read(app, source, revision);
    const raw = manifests.objects.filter(isSyncTarget);
    const scope = new Map<string, boolean>();
    const invalid = new Map<string, string>();
    const crdKinds = new Set(raw.filter((o) => o.kind === "CustomResourceDefinition").map((o) => {
      const spec = o.spec as { group?: string; names?: { kind?: string } } | undefined;
      return `${spec?.group ?? ""}/${spec?.names?.kind ?? ""}`;
    }));
    await Promise.all(raw.map(async (o) => {
      try {
        scope.set(`${o.apiVersion ?? ""}/${o.kind ?? ""}`, (await this.deps.resolve(o)).namespaced);
      } catch (err) {
        const group = (o.apiVersion ?? "").includes("/") ? (o.apiVersion ?? "").split("/")[0] : "";
        if (!crdKinds.has(`${group ?? ""}/${o.kind ?? ""}`)) invalid.set(`${o.apiVersion ?? ""}/${o.kind ?? ""}`, errorMessage(err));
      }
    }));
    const appName = this.trackingName(app);
    const destinationNamespace = app.spec.destination.namespace ?? "";
    const isNamespaced = (o: KubeObject): boolean | undefined => scope.get(`${o.apiVersion ?? ""}/${o.kind ?? ""}`);
    const targets = raw.map((o) => prepareTarget(o, { appName, destinationNamespace, isNamespaced }));
    const candidates = [
      ...targets.map(candidateOf),
      ...candidatesFrom(app.status?.resources ?? []),
      ...candidatesFrom(app.status?.operationState?.syncResult?.resources ?? []),
    ];
    const targetKeys = new Set(targets.map((t) => keyString(keyOf(t))));
    const found = await readLive({ client: this.deps.client, resolve: this.deps.resolve }, candidates);
    const live = found.filter((o) => isTrackedBy(o, appName) || targetKeys.has(keyString(keyOf(o))));
    const comparison = compare(targets, live.filter((o) => isTrackedBy(o, appName) || targetKeys.has(keyString(keyOf(o)))));
    return { revision: manifests.revision, targets, live, comparison, scope, invalid };
  }

  private async reconcileApp(app: Application): Promise<ReconcileResult> {
    const now = this.deps.clock.now();
    let state = app.status?.operationState;
    let operation: Operation | null | undefined = app.operation;
    if (operation?.sync !== undefined && (state === undefined || isCompletedPhase(state.phase))) {
      state = newOperationState(operation, now);
    }
    const running = state !== undefined && state.phase === OperationPhase.Running;
    const pinned = running ? state?.syncResult?.revision || state?.operation.sync?.revision || undefined : undefined;
    let observed: Observed;
    try {
      observed = await this.observe(app, pinned);
    } catch (err) {
      return this.writeComparisonError(app, errorMessage(err));
    }
    let requeueAfterMs = this.deps.pollMs ?? 180_000;
    if (running && state !== undefined) {
      const stepped = await this.step(app, state, observed, now);
      state = stepped.state;
      requeueAfterMs = stepped.requeueAfterMs;
      if (isCompletedPhase(state.phase)) operation = null;
    } else if (operation === undefined) {
      const auto = automatedOperation(app, observed.comparison.sync, observed.revision);
      if (auto !== undefined) {
        operation = auto;
        requeueAfterMs = 0;
      }
    }
    await this.write(app, { state, operation, observed, now });
    return { requeueAfterMs };
  }

  private async step(app: Application, initial: OperationState, observed: Observed, now: number): Promise<{ state: OperationState; requeueAfterMs: number }> {
    let state = initial;
    if (isAwaitingRetry(state)) {
      const restarted = restartIfDue(state, now);
      if (restarted === undefined) return { state, requeueAfterMs: retryDelayMs(state, now) };
      return { state: restarted, requeueAfterMs: 0 };
    }
    const sync = state.operation.sync ?? {};
    const appOptions = sync.syncOptions ?? app.spec.syncPolicy?.syncOptions ?? [];
    const startedAtMs = Date.parse(state.startedAt);
    const stored = state.syncResult?.resources ?? [];
    const built = buildTasks({
      targets: observed.targets,
      live: observed.live,
      appName: this.trackingName(app),
      destinationNamespace: app.spec.destination.namespace ?? "",
      revision: observed.revision,
      startedAtMs,
      skipHooks: sync.syncStrategy?.apply !== undefined || (sync.resources?.length ?? 0) > 0,
      appOptions,
      ...(sync.resources ? { selected: sync.resources } : {}),
      isNamespaced: (o) => observed.scope.get(`${o.apiVersion ?? ""}/${o.kind ?? ""}`),
      namespaceExists: true,
    });
    const tasks = restoreStates(built, stored).map((t) => {
      const obj = t.target ?? t.live ?? {};
      const invalid = observed.invalid.get(`${obj.apiVersion ?? ""}/${obj.kind ?? ""}`);
      const modified = observed.comparison.modified.get(keyString(keyOf(obj)));
      return { ...t, ...(invalid !== undefined ? { invalid } : {}), ...(modified !== undefined ? { modified } : {}) };
    });
    const approved = Date.parse(app.metadata.annotations?.[Annotation.DeletionApproved] ?? "");
    const result = await runSyncStep(
      {
        tasks,
        started: stored.length > 0,
        validated: false,
        dryRun: sync.dryRun === true,
        prune: sync.prune === true,
        appOptions,
        startedAtMs,
        nowMs: now,
        ...(Number.isNaN(approved) ? {} : { deletionApprovedAtMs: approved }),
        ...(this.deps.deadlineMs !== undefined ? { deadlineMs: this.deps.deadlineMs } : {}),
      },
      this.executor,
      { dryRun: sync.dryRun === true, propagation: propagationPolicy(appOptions) },
    );
    state = { ...state, syncResult: { ...(state.syncResult ?? {}), revision: observed.revision, ...(sourceOf(app) ? { source: sourceOf(app) } : {}) } };
    state = recordOutcome(state, { phase: result.phase, message: result.message, resources: mergeResults(stored, result.tasks) }, this.deps.clock.now());
    this.deps.log.info({ app: app.metadata.name, phase: state.phase, message: state.message }, "sync step");
    const requeueAfterMs = isCompletedPhase(state.phase) ? 0 : result.waveDelay ? (this.deps.waveDelayMs ?? 0) : 1000;
    return { state, requeueAfterMs: isAwaitingRetry(state) ? retryDelayMs(state, this.deps.clock.now()) : requeueAfterMs };
  }

  private async write(
    app: Application,
    w: { state: OperationState | undefined; operation: Operation | null | undefined; observed: Observed; now: number },
  ): Promise<void> {
    const status = { ...(app.status ?? {}) };
    const c = w.observed.comparison;
    const source = sourceOf(app);
    status.sync = { status: c.sync, revision: w.observed.revision, comparedTo: { ...(source ? { source } : {}), destination: app.spec.destination } };
    const lastTransition = app.status?.health?.status === c.health.status ? app.status.health.lastTransitionTime : rfc3339(w.now);
    status.health = { status: c.health.status, ...(c.health.message ? { message: c.health.message } : {}), lastTransitionTime: lastTransition ?? rfc3339(w.now) };
    status.resources = c.resources;
    status.reconciledAt = rfc3339(w.now);
    status.conditions = (status.conditions ?? []).filter((x) => x.type !== AppConditionType.ComparisonError);
    if (w.state !== undefined) {
      status.operationState = w.state;
      if (w.state.phase === OperationPhase.Succeeded && w.operation === null) {
        status.history = appendHistory(status.history ?? [], w.state, { nowMs: w.now, limit: app.spec.revisionHistoryLimit });
      }
    }
    const annotations = { ...(app.metadata.annotations ?? {}) };
    delete annotations[Annotation.Refresh];
    const next: Application = { ...app, metadata: { ...app.metadata, annotations }, status };
    if (w.operation === null) delete next.operation;
    else if (w.operation !== undefined) next.operation = w.operation;
    const refreshed = app.metadata.annotations?.[Annotation.Refresh] !== undefined || app.status?.reconciledAt == null;
    if (!refreshed && sameExceptReconciledAt(app, next)) return;
    await this.deps.client.update(resources.Applications, next);
  }

  private async writeComparisonError(app: Application, message: string): Promise<ReconcileResult> {
    const status = { ...(app.status ?? {}) };
    const others = (status.conditions ?? []).filter((x) => x.type !== AppConditionType.ComparisonError);
    status.conditions = [...others, { type: AppConditionType.ComparisonError, message, lastTransitionTime: rfc3339(this.deps.clock.now()) }];
    status.sync = { ...(status.sync ?? {}), status: SyncStatus.Unknown };
    await this.deps.client.update(resources.Applications, { ...app, status });
    return { requeueAfterMs: 10_000 };
  }
}
