/**
 * The executor: applies a {@link Plan} through the kube ports, in Argo CD's order — Application creates
 * and updates, stale deletes, owner-reference strips, the status, then the ApplicationSet's own
 * metadata — and records the events of the writes that succeeded. The writes themselves are in
 * app-writes.ts (the Applications, with read-your-writes) and appset-writes.ts (the ApplicationSet).
 *
 * - Writes run in parallel up to `--concurrent-application-updates`. One failure does not
 *   stop the others; the error reported is the one of the lexicographically smallest failing name.
 * - A failed write sets ErrorOccurred with the plan's reason before the error is thrown, so
 *   the worker retries with backoff.
 * - Fenced status (docs/controller.md#fenced-status-writes): every status write carries the
 *   resourceVersion the plan was made from, so a plan from a stale ApplicationSet is refused (409,
 *   `StatusConflictError`) instead of overwriting a newer status; the reconciler re-reads and plans
 *   again.
 * - Dry run sends every write with `dryRun=All` and touches no cache.
 */
import { Reason, type Application, type ApplicationSet } from "../api/index.js";
import { rfc3339, type Clock } from "../clock/index.js";
import { AppSetError, errorMessage, NotOwnerError } from "../errors.js";
import { isConflict, type KubeClient, type KubeObject } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { AppWriter, type AppWriteThrough } from "./app-writes.js";
import { relock, touchesAnnotations } from "./appset-patches.js";
import { AppSetWriter } from "./appset-writes.js";
import type { EventSink } from "./events.js";
import type { JsonObject } from "../json/index.js";
import { isRollingSync } from "./plan.js";
import { hasRunWrites, type AppWrite, type Plan, type PlannedEvent } from "./plan-types.js";
import { writeRuns, type RunWriterOptions } from "./run-writes.js";
import { refOf, type RolloutMetrics } from "./rollout-metrics.js";
import { nextStatus, withApplicationStatus } from "./status.js";

/**
 * Called right before each write of a pass: throws {@link NotOwnerError} once this replica no longer
 * owns the ApplicationSet (docs/sharding.md#fencing), so a replica that lost a key writes nothing
 * more for it.
 */
export type Fence = () => void;

const NO_FENCE: Fence = () => {};

/** What one {@link PlanExecutor.apply} runs under. */
export interface ApplyContext {
  /** Aborts the writes (the process stopping). */
  readonly signal?: AbortSignal;
  /** The Applications the plan was made from, by name. */
  readonly seen?: ReadonlyMap<string, Application>;
  /** Asked before each write (sharded replicas); absent: every write goes. */
  readonly fence?: Fence;
}

/** What the executor needs. */
export interface ExecutorOptions {
  readonly client: KubeClient;
  readonly events: EventSink;
  readonly clock: Clock;
  readonly logger: Logger;
  /** `--concurrent-application-updates` (≥ 1). */
  readonly concurrency: number;
  /** `--dry-run`. */
  readonly dryRun: boolean;
  /** The Application cache to write through; absent, the cache waits for the watch. */
  readonly cache?: AppWriteThrough;
  /** Stores an ApplicationSet the apiserver returned (or a fresh read) in the ApplicationSet cache. */
  readonly appSetWritten?: (obj: KubeObject) => void;
  /** Where RollingSync progress is reported (docs/metrics.md#progressive-syncs). */
  readonly rolloutMetrics?: RolloutMetrics;
  /** The RolloutRun cache to write through (rollout safety). */
  readonly runCache?: Pick<RunWriterOptions, "written" | "gone">;
}

/** A write that failed, with the reason its condition gets. */
export class ApplyError extends AppSetError {}

type Outcome = { name: string; error?: unknown };

/** Applies plans for one controller. */
export class PlanExecutor {
  private readonly apps: AppWriter;
  private readonly appSets: AppSetWriter;

  constructor(private readonly opts: ExecutorOptions) {
    this.apps = new AppWriter({
      client: opts.client,
      events: opts.events,
      logger: opts.logger,
      dryRun: opts.dryRun,
      ...(opts.cache === undefined ? {} : { cache: opts.cache }),
      wrote: (appSet, w) => this.reportWrite(appSet, w),
    });
    this.appSets = new AppSetWriter({
      client: opts.client,
      dryRun: opts.dryRun,
      ...(opts.appSetWritten === undefined ? {} : { written: opts.appSetWritten }),
    });
  }

  /**
   * Applies `plan` for `appSet`; rejects with the first failure (after setting its condition), or with
   * {@link NotOwnerError} as soon as the fence refuses a write (no condition then: it is no longer ours).
   */
  async apply(before: ApplicationSet, plan: Plan, at: ApplyContext = {}): Promise<ApplicationSet> {
    const { signal, seen, fence = NO_FENCE } = at;
    const fields = { applicationset: { Namespace: before.metadata.namespace, Name: before.metadata.name } };
    for (const w of plan.warnings) this.opts.logger.warn(fields, w);
    for (const line of plan.logs ?? []) this.opts.logger.info(fields, line);
    fence();
    let appSet = await this.writeApplicationStatus(before, plan.applicationStatus);
    this.reportRollout(appSet, plan.rolloutReport);
    fence();
    await this.writeRollout(appSet, plan);
    if (plan.deletionCheck !== undefined) await this.apps.checkDeleted(appSet, plan.deletionCheck, fence);
    const current = appSet;
    const fenced =
      <T>(fn: (item: T) => Promise<void>) =>
      (item: T): Promise<void> => {
        fence();
        return fn(item);
      };
    const writes = await this.each(
      plan.writes,
      fenced((w) => this.apps.write(current, w, signal, seen?.get(w.name))),
    );
    await this.fail(appSet, plan.writeErrorReason, writes);
    await this.fail(
      appSet,
      Reason.DeleteApplicationError,
      await this.each(
        plan.deletes,
        fenced((d) => this.apps.remove(current, d)),
      ),
    );
    const strips = await this.each(
      plan.ownerStrips,
      fenced((s) => this.apps.strip(current, s)),
    );
    if (strips !== undefined) throw strips instanceof Error ? strips : new Error(errorMessage(strips));
    fence();
    if (plan.status !== undefined) appSet = await this.writeStatus(appSet, plan.status);
    fence();
    if (plan.appSetPatch !== undefined) appSet = await this.patchAppSet(appSet, plan.appSetPatch);
    return appSet;
  }

  /** Rollout safety's RolloutRun writes, then its events; before any Application is written. */
  private async writeRollout(appSet: ApplicationSet, plan: Plan): Promise<void> {
    if (plan.rolloutRuns !== undefined && hasRunWrites(plan.rolloutRuns)) {
      await writeRuns({ client: this.opts.client, dryRun: this.opts.dryRun, ...this.opts.runCache }, appSet, plan.rolloutRuns);
    }
    for (const e of plan.rolloutEvents ?? []) this.event(appSet, e);
    if (plan.safetyReport !== undefined) this.opts.rolloutMetrics?.reportSafety?.(refOf(appSet), plan.safetyReport);
  }

  /**
   * Persists the rollout's `applicationStatus` before any Application is written ([] removes it), and
   * returns the ApplicationSet as later status writes must see it.
   */
  private async writeApplicationStatus(appSet: ApplicationSet, entries: Plan["applicationStatus"]): Promise<ApplicationSet> {
    if (entries === undefined) return appSet;
    const written = await this.writeStatus(appSet, { applicationStatus: entries.length === 0 ? null : [...entries] });
    const status = withApplicationStatus(appSet.status, entries);
    return { ...written, ...(status ? { status } : {}) };
  }

  /**
   * Once `applicationStatus` is persisted and before any Application is written: the per-step counts
   * of the pass, and how long it took from deciding which Applications may sync to triggering them.
   */
  private reportRollout(appSet: ApplicationSet, report: Plan["rolloutReport"]): void {
    const metrics = this.opts.rolloutMetrics;
    if (metrics === undefined || report === undefined) return;
    const ref = refOf(appSet);
    if (report.entries !== undefined) metrics.setAppStatus(ref, report.entries);
    if (report.detectedAt !== undefined) metrics.observeDetectionToTrigger(ref, (this.opts.clock.now() - report.detectedAt) / 1000);
  }

  /** A write that went out: counts the sync it triggered and the refresh it asked for. */
  private reportWrite(appSet: ApplicationSet, w: AppWrite): void {
    const metrics = this.opts.rolloutMetrics;
    if (metrics === undefined) return;
    if (w.syncStep !== undefined) metrics.syncTriggered(refOf(appSet), w.syncStep);
    if (w.refresh === true) metrics.refreshTriggered(refOf(appSet));
  }

  /**
   * Runs `fn` on every item, at most `--concurrent-application-updates` at a time; returns the error
   * of the smallest failing name. A fixed set of workers takes the items in order: nothing is
   * allocated per item before it is written, which for a fan-out of thousands is most of a pass's memory.
   */
  private async each<T extends { name: string }>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<unknown> {
    const failed: Outcome[] = [];
    let next = 0;
    let lost: NotOwnerError | undefined;
    const worker = async (): Promise<void> => {
      for (let item = items[next++]; item !== undefined && lost === undefined; item = items[next++]) {
        try {
          await fn(item);
        } catch (error) {
          if (error instanceof NotOwnerError) {
            // Another replica owns the ApplicationSet now: nothing more is written for it.
            lost = error;
            return;
          }
          this.opts.logger.error({ application: item.name, error: errorMessage(error) }, "failed to write Application");
          failed.push({ name: item.name, error });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency, items.length) }, worker));
    if (lost !== undefined) throw lost;
    failed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return failed[0]?.error;
  }

  /** Sets ErrorOccurred with `reason` and throws, when `error` is set. */
  private async fail(appSet: ApplicationSet, reason: string, error: unknown): Promise<void> {
    if (error === undefined) return;
    const message = errorMessage(error);
    const status = nextStatus(appSet.status, {
      outcome: { kind: "error", reason: reason as Reason, message, paramsGenerated: true },
      now: rfc3339(this.opts.clock.now()),
      rollingSync: isRollingSync(appSet),
    });
    if (status !== undefined) {
      await this.writeStatus(appSet, status).catch((err: unknown) =>
        this.opts.logger.warn({ error: errorMessage(err) }, "failed to set the error condition"),
      );
    }
    throw new ApplyError(reason, message, { cause: error });
  }

  /** A fenced status write (see {@link AppSetWriter.writeStatus}). */
  private writeStatus(appSet: ApplicationSet, status: object): Promise<ApplicationSet> {
    return this.appSets.writeStatus(appSet, status);
  }

  /**
   * Merge-patches the ApplicationSet's metadata, locked to the resourceVersion it has now (past this
   * pass's own status writes). A failure, a 409 Conflict included, fails the pass so the key is
   * retried; a failed removal of the refresh annotation also sets `RefreshApplicationError`, as in Argo CD.
   */
  private async patchAppSet(appSet: ApplicationSet, planned: JsonObject): Promise<ApplicationSet> {
    const body = relock(planned, appSet);
    try {
      return await this.appSets.patch(appSet, body);
    } catch (err) {
      if (appSet.metadata.deletionTimestamp != null || !touchesAnnotations(body)) throw err;
      // Argo CD sets the condition on a fresh read, so a conflict does not keep it from being written.
      const current = isConflict(err) ? ((await this.readAppSet(appSet).catch(() => undefined)) ?? appSet) : appSet;
      await this.fail(current, Reason.RefreshApplicationError, err);
      return appSet;
    }
  }

  /** The ApplicationSet as the apiserver has it now, or undefined when it is gone. */
  readAppSet(appSet: ApplicationSet): Promise<ApplicationSet | undefined> {
    return this.appSets.read(appSet);
  }

  /** Records an event without waiting for it: events never slow down or fail the writes. */
  private event(appSet: ApplicationSet, event: PlannedEvent): void {
    void this.opts.events.record(appSet, event);
  }
}
