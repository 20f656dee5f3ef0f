/**
 * The reconciler: read → plan → apply, and nothing else. It reads the ApplicationSet and what the
 * planner needs from the caches ({@link ControllerCaches}), runs the generators ({@link GenerateFn}),
 * asks the pure {@link planAppSet} what should change, hands the plan to the {@link PlanExecutor},
 * and returns the planned requeue. Write failures propagate (the worker retries with backoff); a
 * status write refused because the ApplicationSet changed since it was read plans again from a
 * fresh read.
 */
import type { Application, ApplicationSet, Cluster } from "../api/index.js";
import type { Clock } from "../clock/index.js";
import type { Fence, PlanExecutor } from "./apply.js";
import { NotOwnerError } from "../errors.js";
import { StatusConflictError, withResourceVersion } from "./appset-writes.js";
import { planAppSet } from "./plan.js";
import { EMPTY_PLAN } from "./plan-types.js";
import { withReverseDeletionFinalizer } from "./plan-rollout.js";
import type { RolloutMetrics } from "./rollout-metrics.js";
import type { AppSetSnapshot, Generation, PlanSettings, RolloutRead } from "./snapshot.js";
import type { ReconcileContext, ReconcileResult, Reconciler } from "../manager/worker.js";

/** The cached state a reconcile reads. Objects are shared with the caches: never modify them. */
export interface ControllerCaches {
  appSet(namespace: string, name: string): ApplicationSet | undefined;
  /** Applications whose controller owner is the ApplicationSet `namespace/name`. */
  ownedApps(namespace: string, name: string): Application[];
  app(namespace: string, name: string): Application | undefined;
  /** AppProject names of the controller namespace. */
  projectNames(): ReadonlySet<string>;
  /** Clusters of the controller namespace's cluster Secrets. */
  clusters(): readonly Cluster[];
  /** Rollout safety's objects for the ApplicationSet `namespace/name`; absent when rollout safety does not run. */
  rollout?(namespace: string, name: string): RolloutRead | undefined;
}

/** Runs the generators of an ApplicationSet. Rejects only for failures that are not generator errors. */
export type GenerateFn = (appSet: ApplicationSet, signal: AbortSignal) => Promise<Generation>;

/** What {@link AppSetReconciler} needs. */
export interface ReconcilerOptions {
  readonly caches: ControllerCaches;
  readonly generate: GenerateFn;
  readonly executor: PlanExecutor;
  readonly settings: PlanSettings;
  /** Argo CD's `cluster.inClusterEnabled` now (argocd-cm, read live); absent: `settings.inClusterEnabled`. */
  readonly inClusterEnabled?: () => boolean;
  readonly clock: Clock;
  /** Reports the duration of each reconcile (`argocd_appset_reconcile`). */
  readonly observe?: (appSet: ApplicationSet, seconds: number) => void;
  /** Told when an ApplicationSet is gone, so its RollingSync per-step counts go too. */
  readonly rolloutMetrics?: Pick<RolloutMetrics, "forgetAppSet">;
  /**
   * Sharded replicas (docs/sharding.md): whether this replica owns the ApplicationSet `namespace/name`
   * now. A pass for a key it does not own does nothing; every write of a pass asks again first.
   * Absent: every key is this replica's.
   */
  readonly owns?: (key: string) => boolean;
}

/** Plans per pass at most: the first, and re-plans after status writes refused as stale. */
const MAX_PLANS = 3;

/** The snapshot with rollout safety's objects, when the caches hold them. */
function withRolloutRead(s: AppSetSnapshot, caches: ControllerCaches): AppSetSnapshot {
  const rollout = caches.rollout?.(s.appSet.metadata.namespace ?? "", s.appSet.metadata.name ?? "");
  return rollout === undefined ? s : { ...s, rollout };
}

/** Splits a `namespace/name` key. */
export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf("/");
  return i < 0 ? { namespace: "", name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** The ApplicationSet reconciler. */
export class AppSetReconciler implements Reconciler {
  constructor(private readonly opts: ReconcilerOptions) {}

  async reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileResult> {
    const { namespace, name } = splitKey(key);
    const owns = this.opts.owns;
    if (owns !== undefined && !owns(key)) return {};
    const found = this.opts.caches.appSet(namespace, name);
    if (found === undefined) {
      this.opts.rolloutMetrics?.forgetAppSet({ namespace, name });
      return {};
    }
    const started = this.opts.clock.now();
    const fence: Fence =
      owns === undefined
        ? () => {}
        : () => {
            if (!owns(key)) throw new NotOwnerError(key);
          };
    try {
      return await this.pass(found, ctx, fence);
    } catch (err) {
      if (!(err instanceof NotOwnerError)) throw err;
      ctx.logger.info({}, "another replica owns the ApplicationSet now: this pass stops without writing more");
      return {};
    } finally {
      this.opts.observe?.(found, (this.opts.clock.now() - started) / 1000);
    }
  }

  /** The plan settings with the live `cluster.inClusterEnabled`. */
  private settingsNow(): PlanSettings {
    const live = this.opts.inClusterEnabled;
    return live === undefined ? this.opts.settings : { ...this.opts.settings, inClusterEnabled: live() };
  }

  /**
   * One pass; a status write refused because the ApplicationSet changed since it was read re-reads
   * it from the apiserver and plans again (the generators' output is kept while the spec's
   * generation is the same), up to {@link MAX_PLANS} plans.
   */
  private async pass(found: ApplicationSet, ctx: ReconcileContext, fence: Fence): Promise<ReconcileResult> {
    let current = found;
    let generation: Generation | undefined;
    for (let plans = 1; ; plans++) {
      const { appSet, patch } = withReverseDeletionFinalizer(current, this.opts.settings);
      try {
        // Reads and generation run under the deadline; writes only stop with the process, so a
        // generation that ran out of time still gets its condition written.
        const planned =
          patch === undefined
            ? appSet
            : withResourceVersion(
                appSet,
                (await this.opts.executor.apply(current, { ...EMPTY_PLAN, appSetPatch: patch }, { signal: ctx.stopping, fence })).metadata
                  .resourceVersion,
              );
        const snapshot = await this.snapshot(planned, ctx.signal, generation);
        generation = snapshot.generation;
        const plan = planAppSet(snapshot, this.opts.clock.now(), this.settingsNow());
        ctx.logger.debug({ writes: plan.writes.length, deletes: plan.deletes.length, status: plan.status !== undefined }, "planned");
        await this.opts.executor.apply(snapshot.appSet, plan, { signal: ctx.stopping, seen: snapshot.live, fence });
        return plan.requeueAfterMs > 0 ? { requeueAfterMs: plan.requeueAfterMs } : {};
      } catch (err) {
        if (!(err instanceof StatusConflictError) || plans >= MAX_PLANS) throw err;
        ctx.logger.info({ plans }, "the ApplicationSet changed since it was read; planning again from a fresh read");
        const fresh = await this.opts.executor.readAppSet(current);
        if (fresh === undefined) return {};
        if (fresh.metadata.generation !== current.metadata.generation) generation = undefined;
        current = fresh;
      }
    }
  }

  /** The generators' output (`reuse` when given); none for an ApplicationSet being deleted. */
  private async generation(appSet: ApplicationSet, signal: AbortSignal, reuse: Generation | undefined): Promise<Generation | undefined> {
    if (appSet.metadata.deletionTimestamp != null) return undefined;
    return reuse ?? (await this.opts.generate(appSet, signal));
  }

  /** Reads everything the planner looks at; `reuse` stands for the generators' output when given. */
  async snapshot(appSet: ApplicationSet, signal: AbortSignal, reuse?: Generation): Promise<AppSetSnapshot> {
    const { caches } = this.opts;
    const namespace = appSet.metadata.namespace ?? "";
    const generation = await this.generation(appSet, signal, reuse);
    const owned = caches.ownedApps(namespace, appSet.metadata.name ?? "");
    const live = new Map(owned.map((a) => [a.metadata.name ?? "", a]));
    if (generation?.ok) {
      for (const g of generation.apps) {
        const n = g.metadata.name ?? "";
        const found = n === "" || live.has(n) ? undefined : caches.app(namespace, n);
        if (found !== undefined) live.set(n, found);
      }
    }
    const snapshot: AppSetSnapshot = { appSet, owned, live, projects: caches.projectNames(), clusters: caches.clusters() };
    return withRolloutRead(generation ? { ...snapshot, generation } : snapshot, caches);
  }
}
