/**
 * The per-Application reconcile: read the Application fresh, find its destination cluster, read its
 * manifests and live objects, compare (status.sync, status.health, status.resources,
 * status.reconciledAt), start, continue by one step or terminate its sync operation, start
 * automated syncs, keep the deletion-hook finalizers in line with the manifests, and have
 * {@link StatusWriter} write everything back in one update of the Application. A deleted
 * Application is handed to {@link AppFinalizer}, after its running operation is terminated.
 *
 * I/O boundary: the kube ports, discovery and the manifest source; time from the injected Clock.
 */
import { Annotation, AppConditionType, OperationPhase, type Application, type OperationState } from "../api/index.js";
import { rfc3339 } from "../clock/index.js";
import { errorMessage, NotOwnerError } from "../errors.js";
import { isNotFound, objectKey, resources } from "../kube/index.js";
import { deadlinePassed, type ReconcileContext, type ReconcileResult, type Reconciler } from "../manager/worker.js";
import { autoSync } from "./automated.js";
import { buildTasks } from "./build.js";
import { LocalDestinations, type ClusterAccess, type DestinationResolver } from "./destinations.js";
import { SyncExecutor } from "./executor.js";
import { executeOptions, taskInput, withFindings } from "./step-inputs.js";
import { AppFinalizer } from "./finalize.js";
import { accessFor } from "./metrics.js";
import { loadTargetMessage, observe, type Observed } from "./observe.js";
import { isAwaitingRetry, isCompletedPhase, recordOutcome, restartIfDue, retryDelayMs } from "./operation.js";
import { propagationPolicy } from "./options.js";
import { runSyncStep } from "./step.js";
import { mergeResults, restoreStates } from "./tasks.js";
import { terminate } from "./terminate.js";
import type { SyncTask } from "./types.js";
import { deletionIdentity, Impersonator, syncIdentity } from "./impersonation.js";
import {
  currentOperation,
  pinnedRevisions,
  resultOf,
  withCompared,
  type AppRequeue,
  type Outcome,
  type ReconcilerDeps,
} from "./reconcile-types.js";
import { gatedOf, WINDOW_POLL_MS, windowHold, windowTarget, type Gated } from "./gated.js";
import { judgeProject, type ProjectVerdict } from "./project-gate.js";
import { StatusWriter } from "./status-writes.js";
import { AUTO_SYNC_PREVENTED_MESSAGE, windowsPermitAutoSync } from "../project/sync-windows-gate.js";

export { currentOperation, type AppRequeue, type ReconcilerDeps } from "./reconcile-types.js";

/**
 * Reconciles Applications (the worker pool's {@link Reconciler}: one key at a time). The signal
 * of the context bounds the reads (manifests from Git, the destination): a reconcile stopped or
 * past its deadline gives up before it changes anything, and one past its deadline reports it as a
 * ComparisonError. Once a sync step starts applying, it runs to its end and is written down with
 * the Application, whatever the signal says, so no wave is ever half applied and unrecorded.
 */
export class AppReconciler implements Reconciler {
  private readonly executors = new WeakMap<ClusterAccess, SyncExecutor>();
  private readonly destinations: DestinationResolver;
  private readonly finalizer: AppFinalizer;
  private readonly impersonator: Impersonator;
  private readonly status: StatusWriter;
  /** Keys in a wave delay → when it ends (Clock ms). */
  private readonly holds = new Map<string, number>();

  constructor(private readonly deps: ReconcilerDeps) {
    this.destinations =
      deps.destinations ?? new LocalDestinations({ id: "local", client: deps.client as ClusterAccess["client"], resolve: deps.resolve });
    const projects = deps.projects;
    this.impersonator = new Impersonator({ destinations: this.destinations, log: deps.log, metrics: deps.metrics });
    this.finalizer = new AppFinalizer({
      ...deps,
      trackingName: (app) => this.trackingName(app),
      writer: (app, access, verdict) => this.impersonator.writer(app, access, deletionIdentity(verdict?.impersonation)),
      fence: (app) => this.fence(app),
      ...(projects ? { project: (app: Application) => judgeProject(app, projects) } : {}),
    });
    this.status = new StatusWriter({ ...deps, pollMs: this.pollMs, fence: (app) => this.fence(app) });
  }

  /** How often an idle Application is re-compared. */
  private get pollMs(): number {
    return this.deps.pollMs ?? 180_000;
  }

  /** Whether changes of `key`'s managed resources wait (a wave delay runs). */
  held(key: string): boolean {
    return (this.holds.get(key) ?? 0) > this.deps.clock.now();
  }

  /**
   * Reconciles the Application `namespace/name`; within a wave delay, only asks to come back when it
   * ends. A sharded replica does nothing for an Application it does not own, and stops a reconcile
   * whose fence refuses a write (no condition written, not retried here: the owner takes it on).
   */
  async reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileResult> {
    if (this.deps.owns !== undefined && !this.deps.owns(key)) return {};
    const heldMs = (this.holds.get(key) ?? 0) - this.deps.clock.now();
    if (heldMs > 0) return { requeueAfterMs: heldMs };
    const i = key.indexOf("/");
    let next: AppRequeue;
    try {
      next = await this.reconcileKey(i < 0 ? "" : key.slice(0, i), i < 0 ? key : key.slice(i + 1), ctx);
    } catch (err) {
      if (!(err instanceof NotOwnerError)) throw err;
      this.holds.delete(key);
      ctx.logger.info({}, "another replica owns the Application now: this reconcile stops without writing more");
      return {};
    }
    if (next.holdMs !== undefined && next.holdMs > 0) this.holds.set(key, this.deps.clock.now() + next.holdMs);
    else this.holds.delete(key);
    return resultOf(next);
  }

  private async reconcileKey(namespace: string, name: string, ctx: ReconcileContext): Promise<AppRequeue> {
    const started = this.deps.clock.now();
    let app: Application;
    try {
      app = await this.deps.client.get<Application>(resources.Applications, { namespace, name });
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    try {
      return await this.reconcileFound(app, ctx);
    } finally {
      this.deps.metrics?.reconciled(app, (this.deps.clock.now() - started) / 1000);
    }
  }

  private async reconcileFound(app: Application, ctx: ReconcileContext): Promise<AppRequeue> {
    const name = app.metadata.name ?? "";
    if (app.metadata.deletionTimestamp && !this.operationRunning(app)) {
      let access: ClusterAccess | undefined;
      try {
        access = accessFor(await this.destinations.access(app), app, this.deps.metrics);
      } catch (err) {
        this.deps.log.warn({ app: name, err: errorMessage(err) }, "destination of a deleted Application is unknown");
      }
      return this.finalizer.finalize(app, access);
    }
    return this.reconcileApp(app, ctx);
  }

  private operationRunning(app: Application): boolean {
    const phase = app.status?.operationState?.phase;
    return (
      phase === OperationPhase.Running ||
      phase === OperationPhase.Terminating ||
      (app.operation?.sync !== undefined && (phase === undefined || isCompletedPhase(phase)))
    );
  }

  /**
   * Sharded replicas (docs/sharding.md#the-sync-engine): throws {@link NotOwnerError} once this
   * replica no longer owns `app`. It is asked before each write of the Application (its status, its
   * operation, its finalizers) and once where the writes of a sync step, a termination or a deletion
   * pass begin, not before each of their applies and deletes: a step's applies are server-side
   * applies of the same manifests (its deletes, of the same objects), idempotent, so when ownership
   * moves in the middle of a step the new owner, finding the step unrecorded, runs it again to the
   * same result, while the old owner's record of it is refused at the Application's write.
   */
  private fence(app: Application): void {
    const owns = this.deps.owns;
    if (owns === undefined) return;
    const key = objectKey(app);
    if (!owns(key)) throw new NotOwnerError(key);
  }

  private trackingName(app: Application): string {
    return this.deps.trackingName?.(app) ?? app.metadata.name ?? "";
  }

  private executor(access: ClusterAccess): SyncExecutor {
    let exec = this.executors.get(access);
    if (exec === undefined) {
      exec = new SyncExecutor({ client: access.client, resolve: access.resolve });
      this.executors.set(access, exec);
    }
    return exec;
  }

  private async reconcileApp(app: Application, ctx: ReconcileContext): Promise<AppRequeue> {
    const now = this.deps.clock.now();
    const state = currentOperation(app, now);
    const verdict = this.deps.projects === undefined ? undefined : judgeProject(app, this.deps.projects);
    if (verdict !== undefined && verdict.conditions.length > 0) return this.status.refuse(app, state, verdict);
    let seen: { observed: Observed; shared: ClusterAccess };
    try {
      seen = await this.observeApp(app, state, ctx.signal, verdict);
    } catch (err) {
      return this.observeFailed(app, state, ctx, err);
    }
    // Stopped while reading: start nothing. From here on the step and its record run to the end.
    if (ctx.stopping.aborted) throw ctx.stopping.reason;
    const { shared } = seen;
    const observed = gatedOf(seen.observed, verdict);
    this.deps.onManaged?.(shared, observed.descriptors);
    const next = state !== undefined ? await this.advance(app, state, observed, now) : this.idle(app, observed, now);
    await this.status.write(app, { ...next, observed, now });
    if (state !== undefined) this.status.countCompleted(app, next.state);
    return { requeueAfterMs: next.requeueAfterMs, ...(next.holdMs ? { holdMs: next.holdMs } : {}) };
  }

  /** Reads the destination, the manifests (at a running sync's pinned revision) and the live objects. */
  private async observeApp(
    app: Application,
    state: OperationState | undefined,
    signal: AbortSignal,
    verdict: ProjectVerdict | undefined,
  ): Promise<{ observed: Observed; shared: ClusterAccess }> {
    const shared = await this.destinations.access(app);
    const access = accessFor(shared, app, this.deps.metrics);
    const pinned = pinnedRevisions(app, state);
    const input = {
      app,
      access,
      source: this.deps.source,
      trackingName: this.trackingName(app),
      signal,
      customizations: this.deps.customizations?.(),
      ...(verdict ? { livePermitted: verdict.livePermitted } : {}),
    };
    return { observed: await observe({ ...input, ...pinned }), shared };
  }

  /**
   * What a failed read leads to: nothing when the engine stops, else a ComparisonError (the
   * deadline first in its message when it passed), or the end of a deleted Application's operation.
   */
  private observeFailed(app: Application, state: OperationState | undefined, ctx: ReconcileContext, err: unknown): Promise<AppRequeue> {
    if (ctx.stopping.aborted) throw err;
    const detail = deadlinePassed(ctx.signal) ? `${errorMessage(ctx.signal.reason)}: ${errorMessage(err)}` : errorMessage(err);
    // Argo CD's words for manifests that cannot be generated (its repo-server's reply follows).
    const message = loadTargetMessage(err, detail);
    if (app.metadata.deletionTimestamp && state !== undefined) return this.status.abandon(app, state, message);
    if (state?.phase === OperationPhase.Running) return this.status.writeComparisonError(app, message, this.unreadable(state, message));
    return this.status.writeComparisonError(app, message);
  }

  /**
   * A running operation whose manifests or destination cannot be read ends in Error, as Argo CD
   * ends it ("ComparisonError: <why>"), and its retry policy applies; one waiting for a retry that
   * is not due yet is left to wait.
   */
  private unreadable(state: OperationState, message: string): OperationState | undefined {
    const now = this.deps.clock.now();
    const current = isAwaitingRetry(state) ? restartIfDue(state, now) : state;
    if (current === undefined) return undefined;
    return recordOutcome(current, { phase: OperationPhase.Error, message: `${AppConditionType.ComparisonError}: ${message}` }, now);
  }

  /** Moves an active operation on by one step, or terminates it. */
  private async advance(app: Application, state: OperationState, observed: Gated, now: number): Promise<Outcome> {
    const stepped =
      state.phase === OperationPhase.Terminating
        ? await this.terminate(app, state, observed, now)
        : await this.step(app, state, observed, now);
    return { ...stepped, operation: isCompletedPhase(stepped.state.phase) ? null : app.operation };
  }

  /** No operation runs: start an automated sync when one is due, wait out a self-heal back-off, or report why not. */
  private idle(app: Application, observed: Gated, now: number): Outcome {
    const last = app.status?.operationState;
    const poll = this.pollMs;
    const decision = autoSync({
      app,
      sync: observed.comparison.sync,
      resources: observed.comparison.resources,
      revision: observed.revision,
      ...(observed.multiSource ? { revisions: observed.revisions } : {}),
      nowMs: now,
      ...(this.deps.selfHealBackoff ? { selfHealBackoff: this.deps.selfHealBackoff } : {}),
    });
    switch (decision.kind) {
      case "start":
        if (observed.windows !== undefined && !windowsPermitAutoSync(observed.windows, windowTarget(app), now)) {
          this.deps.log.info({ app: app.metadata.name }, AUTO_SYNC_PREVENTED_MESSAGE);
          return { state: last, operation: app.operation, requeueAfterMs: Math.min(WINDOW_POLL_MS, poll) };
        }
        return { state: last, operation: decision.operation, requeueAfterMs: 0 };
      case "wait":
        return { state: last, operation: app.operation, requeueAfterMs: Math.min(Math.ceil(decision.afterMs), poll) };
      case "error":
        return { state: last, operation: app.operation, requeueAfterMs: poll, syncError: decision.message };
      default:
        return { state: last, operation: app.operation, requeueAfterMs: poll };
    }
  }

  /** The operation's tasks with their recorded states, validity and diff. */
  private tasksOf(app: Application, state: OperationState, observed: Gated): SyncTask[] {
    const input = taskInput(app, state, observed, this.trackingName(app));
    const built = buildTasks(input);
    return restoreStates(built, state.syncResult?.resources ?? []).map((t) =>
      withFindings(t, observed, input.appOptions, observed.permission),
    );
  }

  private async terminate(
    app: Application,
    state: OperationState,
    observed: Gated,
    now: number,
  ): Promise<{ state: OperationState; requeueAfterMs: number }> {
    const appOptions = state.operation.sync?.syncOptions ?? app.spec.syncPolicy?.syncOptions ?? [];
    // As Argo CD, the sources are compared before terminating: the result names the revision.
    const compared = observed.multiSource
      ? withCompared(app, state, observed)
      : { ...state, syncResult: { ...(state.syncResult ?? {}), revision: state.syncResult?.revision || observed.revision } };
    const writer = await this.impersonator.writer(app, observed.access, syncIdentity(observed.impersonation));
    if ("error" in writer) {
      return { state: { ...compared, phase: OperationPhase.Error, message: writer.error, finishedAt: rfc3339(now) }, requeueAfterMs: 0 };
    }
    this.fence(app);
    const done = await terminate(compared, this.tasksOf(app, compared, observed), this.executor(writer.access), {
      nowMs: now,
      options: { dryRun: false, propagation: propagationPolicy(appOptions) },
      customizations: observed.customizations,
    });
    this.deps.log.info({ app: app.metadata.name, phase: done.phase }, "operation terminated");
    return { state: done, requeueAfterMs: 0 };
  }

  private async step(
    app: Application,
    initial: OperationState,
    observed: Gated,
    now: number,
  ): Promise<Omit<Outcome, "operation"> & { state: OperationState }> {
    let state = initial;
    if (isAwaitingRetry(state)) {
      const restarted = restartIfDue(state, now);
      if (restarted === undefined) return { state, requeueAfterMs: retryDelayMs(state, now) };
      return { state: restarted, requeueAfterMs: 0 };
    }
    const writer = await this.beforeStep(app, state, observed, now);
    if ("stop" in writer) return writer.stop;
    const sync = state.operation.sync ?? {};
    const appOptions = sync.syncOptions ?? app.spec.syncPolicy?.syncOptions ?? [];
    const stored = state.syncResult?.resources ?? [];
    // Where the step's writes begin: once for the step, not per apply (see fence).
    this.fence(app);
    const result = await runSyncStep(
      this.stepInput(app, state, observed, now),
      this.executor(writer.access),
      executeOptions(app, sync, appOptions),
    );
    state = withCompared(app, state, observed);
    state = recordOutcome(
      state,
      { phase: result.phase, message: result.message, resources: mergeResults(stored, result.tasks) },
      this.deps.clock.now(),
    );
    this.deps.log.info({ app: app.metadata.name, phase: state.phase, message: state.message }, "sync step");
    return { state, ...this.afterStep(state, result.waveDelay) };
  }

  /**
   * What stops a step before it runs, as Argo CD checks it: a sync window that holds the operation,
   * then the service account it cannot write as (the operation ends in Error); else the access
   * its writes go through.
   */
  private async beforeStep(
    app: Application,
    state: OperationState,
    observed: Gated,
    now: number,
  ): Promise<{ stop: { state: OperationState; requeueAfterMs: number; holdMs?: number } } | { access: ClusterAccess }> {
    const held = windowHold(app, state, observed.windows, now);
    if (held !== undefined) return { stop: { state: held, requeueAfterMs: WINDOW_POLL_MS } };
    const writer = await this.impersonator.writer(app, observed.access, syncIdentity(observed.impersonation));
    if ("access" in writer) return writer;
    // Argo CD compares before it derives the account: the result names the revision.
    const ended = recordOutcome(
      withCompared(app, state, observed),
      { phase: OperationPhase.Error, message: writer.error },
      this.deps.clock.now(),
    );
    return { stop: { state: ended, ...this.afterStep(ended, undefined) } };
  }

  /** What one step of a running operation is given. */
  private stepInput(app: Application, state: OperationState, observed: Gated, now: number): Parameters<typeof runSyncStep>[0] {
    const sync = state.operation.sync ?? {};
    const approved = Date.parse(app.metadata.annotations?.[Annotation.DeletionApproved] ?? "");
    return {
      tasks: this.tasksOf(app, state, observed),
      started: (state.syncResult?.resources ?? []).length > 0,
      validated: false,
      dryRun: sync.dryRun === true,
      prune: sync.prune === true,
      appOptions: sync.syncOptions ?? app.spec.syncPolicy?.syncOptions ?? [],
      startedAtMs: Date.parse(state.startedAt),
      nowMs: now,
      ...(Number.isNaN(approved) ? {} : { deletionApprovedAtMs: approved }),
      ...(this.deps.deadlineMs !== undefined ? { deadlineMs: this.deps.deadlineMs } : {}),
      customizations: observed.customizations,
    };
  }

  /** When to look again after a step: at the retry, at once when done, after the wave delay, or at the poll. */
  private afterStep(state: OperationState, waveDelay: boolean | undefined): { requeueAfterMs: number; holdMs?: number } {
    if (isAwaitingRetry(state)) return { requeueAfterMs: retryDelayMs(state, this.deps.clock.now()) };
    if (isCompletedPhase(state.phase)) return { requeueAfterMs: 0 };
    const delay = this.deps.waveDelayMs ?? 0;
    return waveDelay === true ? { requeueAfterMs: delay, holdMs: delay } : { requeueAfterMs: this.deps.operationPollMs ?? 1000 };
  }
}
