/**
 * The reconcile's writes of the Application: its status after a comparison (operation state, sync
 * and health status, resources, conditions, reconciledAt) with its operation, a ComparisonError
 * when the manifests or the destination cannot be read, the project's refusal, and the end of a
 * deleted Application's operation. Each is one update of the whole Application (which has no
 * status subresource; a stale resourceVersion conflicts and the Application is simply reconciled
 * again), fenced first, and an operation it completes is counted in the metrics.
 *
 * I/O boundary: updates of the Application; time from the injected Clock.
 */
import { OperationPhase, type Application, type OperationState } from "../api/index.js";
import { rfc3339, type Clock } from "../clock/index.js";
import { resources, type KubeClient } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { comparisonErrorStatus, nextApplication, needsWrite } from "./app-status.js";
import { Message } from "./messages.js";
import type { SyncMetrics } from "./metrics.js";
import { sourceOf, type Observed } from "./observe.js";
import { isAwaitingRetry, isCompletedPhase, recordOutcome, restartIfDue, retryDelayMs } from "./operation.js";
import { projectErrorStatus, projectOperationMessage, type ProjectVerdict } from "./project-gate.js";
import type { AppRequeue, Outcome } from "./reconcile-types.js";

/** What the status writes need. */
export interface StatusWriterDeps {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly metrics?: SyncMetrics;
  /** How often an idle Application is re-compared. */
  readonly pollMs: number;
  /** Throws once this replica no longer owns the Application; asked before each write of it. */
  readonly fence: (app: Application) => void;
}

/** Writes an Application's status (and operation) back, as one reconcile decided it. */
export class StatusWriter {
  constructor(private readonly deps: StatusWriterDeps) {}

  /** Reports an operation that this reconcile completed. */
  countCompleted(app: Application, state: OperationState | undefined): void {
    if (state !== undefined && isCompletedPhase(state.phase)) this.deps.metrics?.syncCompleted(app, state);
  }

  async write(app: Application, w: Outcome & { observed: Observed; now: number }): Promise<void> {
    const next = nextApplication(app, {
      state: w.state,
      operation: w.operation,
      comparison: w.observed.comparison,
      revision: w.observed.revision,
      sourceType: w.observed.sourceType,
      ...(w.observed.multiSource ? { multiSource: { revisions: w.observed.revisions, sourceTypes: w.observed.sourceTypes } } : {}),
      repeated: w.observed.repeated,
      excluded: w.observed.excluded,
      source: sourceOf(app),
      deletionHooks: { pre: w.observed.preHooks.length > 0, post: w.observed.postHooks.length > 0 },
      nowMs: w.now,
      ...(w.syncError !== undefined ? { syncError: w.syncError } : {}),
    });
    // reconciledAt is a heartbeat: written again once it is half a poll old, so each periodic comparison records it.
    if (!needsWrite(app, next, this.deps.pollMs / 2)) return;
    this.deps.fence(app);
    await this.deps.client.update(resources.Applications, next);
  }

  /** Ends the operation of a deleted Application whose manifests or cluster cannot be read. */
  async abandon(app: Application, state: OperationState, reason: string): Promise<AppRequeue> {
    const finished = {
      ...state,
      phase: OperationPhase.Error,
      message: `${Message.TerminationErrors}: ${reason}`,
      finishedAt: rfc3339(this.deps.clock.now()),
    };
    const next: Application = { ...app, status: { ...(app.status ?? {}), operationState: finished } };
    delete next.operation;
    this.deps.fence(app);
    await this.deps.client.update(resources.Applications, next);
    this.deps.metrics?.syncCompleted(app, finished);
    return { requeueAfterMs: 0 };
  }

  /**
   * The project stops the Application (Argo CD's refresh with error conditions): its conditions,
   * sync and health Unknown, nothing read or applied; a running operation ends in Error (its retry
   * policy applies), a terminating one too.
   */
  async refuse(app: Application, state: OperationState | undefined, verdict: ProjectVerdict): Promise<AppRequeue> {
    const now = this.deps.clock.now();
    const next: Application = { ...app, status: projectErrorStatus(app, verdict, now) };
    let ended: OperationState | undefined;
    if (state !== undefined) {
      const current = isAwaitingRetry(state) ? restartIfDue(state, now) : state;
      if (current !== undefined) {
        ended = recordOutcome(current, { phase: OperationPhase.Error, message: projectOperationMessage(verdict) }, now);
        next.status = { ...next.status, operationState: ended };
        if (isCompletedPhase(ended.phase)) delete next.operation;
      }
    }
    this.deps.log.info({ app: app.metadata.name, conditions: verdict.conditions.map((c) => c.message) }, "refused by its project");
    if (needsWrite(app, next, this.deps.pollMs / 2)) {
      this.deps.fence(app);
      await this.deps.client.update(resources.Applications, next);
    }
    if (ended !== undefined) this.countCompleted(app, ended);
    if (ended !== undefined && isAwaitingRetry(ended)) return { requeueAfterMs: retryDelayMs(ended, now) };
    return { requeueAfterMs: this.deps.pollMs };
  }

  async writeComparisonError(app: Application, message: string, operationState?: OperationState): Promise<AppRequeue> {
    const status = comparisonErrorStatus(app, message, this.deps.clock.now());
    const next: Application = { ...app, status };
    if (operationState !== undefined) {
      status.operationState = operationState;
      if (isCompletedPhase(operationState.phase)) delete next.operation;
    }
    this.deps.fence(app);
    await this.deps.client.update(resources.Applications, next);
    if (operationState !== undefined && isCompletedPhase(operationState.phase)) this.deps.metrics?.syncCompleted(app, operationState);
    if (operationState !== undefined && isAwaitingRetry(operationState))
      return { requeueAfterMs: retryDelayMs(operationState, this.deps.clock.now()) };
    return { requeueAfterMs: 10_000 };
  }
}
