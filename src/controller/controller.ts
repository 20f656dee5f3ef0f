/**
 * The ApplicationSet controller: informers for ApplicationSets, Applications (indexed by controller
 * owner), cluster Secrets and AppProjects feed the de-duplicating {@link WorkQueue}; the
 * {@link WorkerPool} runs the {@link AppSetReconciler} on each key. The caches are namespace-scoped to
 * the controller namespace unless other namespaces are allowed (docs/controller.md#namespaces).
 * `start` resolves once every cache has synced and the workers run; `stop` drains gracefully.
 */
import {
  isClusterSecret,
  parseApplicationSet,
  parseRolloutPolicy,
  parseRolloutRun,
  ROLLOUT_APPSET_LABEL,
  type Application,
  type ApplicationSet,
  type AppProject,
  type RolloutPolicy,
  type RolloutRun,
  type Secret,
} from "../api/index.js";
import type { Clock } from "../clock/index.js";
import type { ClusterSecretLister } from "../generators/index.js";
import type { CredentialsLookup } from "../git/index.js";
import { objectKey, resources, unreachableServer, type Informer, type KubeClient, type ListWatchSource } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { PlanExecutor } from "./apply.js";
import { informerWriteThrough } from "./apply-cache.js";
import { appProjectsSpec, applicationsSpec, parserOf, SharedCache } from "../manager/cache.js";
import { ClusterDirectory, clusterSecretsSpec } from "../manager/clusters.js";
import { RepoCredentialsCache, repoSecretsSpec } from "../manager/credentials.js";
import type { Loop } from "../manager/manager.js";
import { KubeEventSink, type EventSink } from "./events.js";
import {
  watchAppSets,
  watchApps,
  watchClusterSecrets,
  watchProjects,
  watchRolloutPolicies,
  watchRolloutRuns,
  type HandlerOptions,
} from "./handlers.js";
import { ownerKey } from "./predicates.js";
import { reconcileKeyFields } from "./shard-fields.js";
import type { Shard } from "../shard/index.js";
import { patternListMatcher } from "../glob/index.js";
import { AppSetReconciler, type ControllerCaches, type GenerateFn } from "./reconciler.js";
import type { RolloutMetrics } from "./rollout-metrics.js";
import type { PlanSettings } from "./snapshot.js";
import { WorkerPool, type StopReport, type WorkerMetrics } from "../manager/worker.js";
import { WorkQueue, type QueueMetrics } from "../manager/workqueue.js";
import { appControllerRateLimiter, type WorkqueueRateLimitConfig } from "../manager/app-ratelimit.js";

const OWNER_INDEX = "owner";
const RUN_APPSET_INDEX = "appset";
const NAMESPACE_INDEX = "namespace";

/** The informers of rollout safety, indexed by namespace (policies) and by ApplicationSet (runs). */
function rolloutInformers(
  enabled: boolean,
  cache: SharedCache,
  scope: string | undefined,
): { policies: Informer<RolloutPolicy> | undefined; runs: Informer<RolloutRun> | undefined } {
  if (!enabled) return { policies: undefined, runs: undefined };
  const ns = scope !== undefined ? { namespace: scope } : {};
  const policies = cache.informer({ resource: resources.RolloutPolicies, ...ns, parse: parserOf(parseRolloutPolicy) });
  const runs = cache.informer({ resource: resources.RolloutRuns, ...ns, parse: parserOf(parseRolloutRun) });
  policies.addIndex(NAMESPACE_INDEX, (p) => [p.metadata.namespace ?? ""]);
  runs.addIndex(RUN_APPSET_INDEX, (r) => [`${r.metadata.namespace ?? ""}/${r.metadata.labels?.[ROLLOUT_APPSET_LABEL] ?? ""}`]);
  return { policies, runs };
}

/** What the controller needs. */
export interface ControllerOptions {
  readonly client: KubeClient & ListWatchSource;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The controller namespace (cluster Secrets, AppProjects; always an allowed namespace). */
  readonly namespace: string;
  /** `--applicationset-namespaces` patterns (the controller namespace is added). */
  readonly appSetNamespaces: readonly string[];
  readonly settings: PlanSettings;
  /**
   * Argo CD's `cluster.inClusterEnabled` read live from argocd-cm (the implicit in-cluster
   * destination; off only when it says "false"); absent: `settings.inClusterEnabled`.
   */
  readonly inClusterEnabled?: () => boolean;
  /**
   * Runs the generators. Receives the cache-backed cluster Secret lister, so the Cluster generator
   * reads the same cache the controller watches, and repository credentials that follow the
   * repository Secrets.
   */
  readonly generate: (clusters: ClusterSecretLister, credentials: CredentialsLookup) => GenerateFn;
  /** `--concurrent-reconciliations`. */
  readonly concurrentReconciliations: number;
  /** `--concurrent-application-updates`. */
  readonly concurrentApplicationUpdates: number;
  readonly dryRun: boolean;
  /**
   * `--cache-sync-period` (ms; 0 or absent: never): every informer relists from the apiserver this
   * often, so a change whose watch event was lost is still reconciled.
   */
  readonly cacheSyncPeriodMs?: number;
  /** `--enable-progressive-syncs` (also on when `settings.progressiveSyncs` is set). */
  readonly progressiveSyncs: boolean;
  readonly events?: EventSink;
  readonly metrics?: QueueMetrics & WorkerMetrics;
  readonly observeReconcile?: (appSet: ApplicationSet, seconds: number) => void;
  /** Where RollingSync progress is reported (`argocd_appset_progressive_sync_*`, `argocd_appset_app_refresh_total`). */
  readonly rolloutMetrics?: RolloutMetrics;
  /**
   * The process's shared cache (the manager's). Absent: the controller keeps a cache of its own,
   * which it starts and stops itself.
   */
  readonly cache?: SharedCache;
  /** The process's repository credentials (over the shared cache's repository Secrets); absent: the controller's own. */
  readonly credentials?: CredentialsLookup;
  /** `--reconcile-timeout-seconds` in ms: each reconcile's deadline (absent or 0: none). */
  readonly reconcileTimeoutMs?: number;
  /** The `--wq-*` settings of the queue's retry delays; absent: the queue's default limiter. */
  readonly workqueueRateLimit?: WorkqueueRateLimitConfig;
  /**
   * Subscribes to the apiserver answering again after the process's requests failed to reach it:
   * ApplicationSets waiting for it are then retried at once (docs/controller.md#when-the-apiserver-cannot-be-reached).
   */
  readonly apiserverBack?: (listener: () => void) => () => void;
  /**
   * Whether rollout safety runs (docs/progressive-syncs.md#rollout-safety): the RolloutPolicy and
   * RolloutRun CRDs are served and the controller may read them. Absent or false: no RolloutPolicy
   * is read and every ApplicationSet behaves as without one.
   */
  readonly rolloutSafety?: boolean;
  /**
   * Sharded replicas (docs/sharding.md): which ApplicationSets this replica owns. The controller then
   * runs in every replica (no leader election), queues and reconciles only the keys it owns, checks
   * ownership again before each write, and queues every ApplicationSet again when the owners change.
   */
  readonly shard?: Shard;
}

/** The running controller. */
export class AppSetController {
  readonly queue: WorkQueue;
  readonly appSets: Informer<ApplicationSet>;
  readonly apps: Informer<Application>;
  readonly secrets: Informer<Secret>;
  readonly projects: Informer<AppProject>;
  /** Repository and repo-creds Secrets of the controller namespace. */
  readonly repoSecrets: Informer<Secret>;
  /** Repository credentials that follow {@link repoSecrets}. */
  readonly credentials: CredentialsLookup;
  /** The clusters of the controller namespace, over {@link secrets}. */
  readonly clusters: ClusterDirectory;
  /** RolloutPolicies and RolloutRuns, when rollout safety runs. */
  readonly rolloutPolicies: Informer<RolloutPolicy> | undefined;
  readonly rolloutRuns: Informer<RolloutRun> | undefined;
  readonly cache: SharedCache;
  private readonly ownsCache: boolean;
  private readonly pool: WorkerPool;
  private readonly allowed: (namespace: string) => boolean;
  /** Progressive syncs, for the planner and the watch predicates alike. */
  private readonly progressiveSyncs: boolean;

  constructor(private readonly opts: ControllerOptions) {
    this.progressiveSyncs = opts.progressiveSyncs || opts.settings.progressiveSyncs === true;
    const patterns = [...opts.appSetNamespaces, opts.namespace];
    this.allowed = patternListMatcher(patterns);
    const scope = opts.appSetNamespaces.length === 0 ? opts.namespace : undefined;
    const log = opts.logger.child({ component: "informer" });
    this.ownsCache = opts.cache === undefined;
    this.cache =
      opts.cache ?? new SharedCache({ source: opts.client, clock: opts.clock, log, resyncPeriodMs: opts.cacheSyncPeriodMs ?? 0 });
    const cache = this.cache;
    this.appSets = cache.informer({
      resource: resources.ApplicationSets,
      ...(scope !== undefined ? { namespace: scope } : {}),
      parse: parserOf(parseApplicationSet),
    });
    this.apps = cache.informer(applicationsSpec(scope));
    this.secrets = cache.informer(clusterSecretsSpec(opts.namespace));
    this.projects = cache.informer(appProjectsSpec(opts.namespace));
    this.repoSecrets = cache.informer(repoSecretsSpec(opts.namespace));
    this.credentials = opts.credentials ?? new RepoCredentialsCache(this.repoSecrets).lookup;
    this.clusters = new ClusterDirectory(this.secrets, opts.inClusterEnabled ?? opts.settings.inClusterEnabled);
    ({ policies: this.rolloutPolicies, runs: this.rolloutRuns } = rolloutInformers(opts.rolloutSafety === true, cache, scope));
    this.apps.addIndex(OWNER_INDEX, (a) => {
      const k = ownerKey(a);
      return k === undefined ? [] : [k];
    });
    this.queue = new WorkQueue({
      clock: opts.clock,
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      ...(opts.workqueueRateLimit ? { rateLimiter: appControllerRateLimiter(opts.clock, opts.workqueueRateLimit) } : {}),
    });
    const reconciler = this.reconcilerOf(opts);
    this.pool = new WorkerPool({
      queue: this.queue,
      reconciler,
      concurrency: opts.concurrentReconciliations,
      clock: opts.clock,
      logger: opts.logger,
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      ...(opts.reconcileTimeoutMs ? { reconcileTimeoutMs: opts.reconcileTimeoutMs } : {}),
      // The controller reaches one apiserver: whichever server an error names, it waits for that one.
      unreachableServer,
      keyFields: reconcileKeyFields(opts.shard),
    });
    this.registerHandlers();
  }

  /** The reconciler over the caches, with its executor. */
  private reconcilerOf(opts: ControllerOptions): AppSetReconciler {
    const executor = new PlanExecutor({
      client: opts.client,
      events: opts.events ?? new KubeEventSink({ writer: opts.client, clock: opts.clock, logger: opts.logger }),
      clock: opts.clock,
      logger: opts.logger,
      concurrency: opts.concurrentApplicationUpdates,
      dryRun: opts.dryRun,
      cache: informerWriteThrough(this.apps),
      appSetWritten: (obj) => this.appSets.written(obj),
      ...(this.rolloutRuns
        ? { runCache: { written: (obj) => this.rolloutRuns?.written(obj), gone: (ns, n) => this.rolloutRuns?.evict(ns, n) } }
        : {}),
      ...(opts.rolloutMetrics ? { rolloutMetrics: opts.rolloutMetrics } : {}),
    });
    return new AppSetReconciler({
      caches: this.caches(),
      generate: opts.generate({ listClusterSecrets: () => Promise.resolve(this.secrets.list().filter(isClusterSecret)) }, this.credentials),
      executor,
      settings: { ...opts.settings, progressiveSyncs: this.progressiveSyncs },
      ...(opts.inClusterEnabled ? { inClusterEnabled: opts.inClusterEnabled } : {}),
      clock: opts.clock,
      ...(opts.observeReconcile ? { observe: opts.observeReconcile } : {}),
      ...(opts.rolloutMetrics ? { rolloutMetrics: opts.rolloutMetrics } : {}),
      ...(opts.shard ? { owns: (key: string) => opts.shard!.owns(key) } : {}),
    });
  }

  /** The read side of the caches, as the reconciler sees it. */
  caches(): ControllerCaches {
    return {
      appSet: (ns, name) => this.appSets.get(ns, name),
      ownedApps: (ns, name) => this.apps.byIndex(OWNER_INDEX, `${ns}/${name}`),
      app: (ns, name) => this.apps.get(ns, name),
      projectNames: () => new Set(this.projects.list().map((p) => p.metadata.name ?? "")),
      clusters: () => this.clusters.clusters(),
      rollout: (ns, name) => {
        if (this.rolloutPolicies === undefined || this.rolloutRuns === undefined) return undefined;
        return {
          policies: this.rolloutPolicies.byIndex(NAMESPACE_INDEX, ns),
          runs: this.rolloutRuns.byIndex(RUN_APPSET_INDEX, `${ns}/${name}`),
        };
      },
    };
  }

  /** The controller namespace. */
  get namespace(): string {
    return this.opts.namespace;
  }

  /** Whether an ApplicationSet namespace is allowed. */
  namespaceAllowed(namespace: string): boolean {
    return this.allowed(namespace);
  }

  private registerHandlers(): void {
    const shard = this.opts.shard;
    const h: HandlerOptions = {
      enqueue:
        shard === undefined
          ? (key, urgent) => this.queue.add(key, urgent)
          : (key, urgent) => {
              if (shard.owns(key)) this.queue.add(key, urgent);
            },
      allowed: this.allowed,
      progressiveSyncs: this.progressiveSyncs,
      appSets: () => this.appSets.list(),
    };
    watchAppSets(this.appSets, h);
    watchApps(this.apps, h);
    watchClusterSecrets(this.secrets, h);
    watchProjects(this.projects, h);
    if (this.rolloutPolicies) watchRolloutPolicies(this.rolloutPolicies, h);
    if (this.rolloutRuns) watchRolloutRuns(this.rolloutRuns, h);
    // A replica's share changed: every ApplicationSet it may now own is queued (the others are not).
    shard?.onChange(() => {
      for (const a of this.appSets.list()) if (this.allowed(a.metadata.namespace ?? "")) h.enqueue(objectKey(a));
    });
    // What waited for the apiserver goes again as soon as it answers.
    this.opts.apiserverBack?.(() => this.pool.serverReachable());
  }

  /** Starts the cache, waits until it has synced (or `signal` aborts), then starts the workers. */
  async start(signal?: AbortSignal): Promise<void> {
    this.cache.start();
    await this.cache.waitForSync(signal);
    this.startWorkers();
  }

  /** Starts the workers (the cache has synced). */
  startWorkers(): void {
    this.opts.logger.info(
      { appSets: this.appSets.list().length, applications: this.apps.list().length },
      "caches synced, starting workers",
    );
    this.pool.start();
  }

  /** The controller as one loop of the manager. */
  loop(): Loop {
    return {
      name: "applicationset",
      leaderOnly: this.opts.shard === undefined,
      start: () => this.startWorkers(),
      stop: (graceMs) => this.stop(graceMs),
    };
  }

  /**
   * Stops taking work, aborts running reconciles and waits up to `graceMs` for them, then stops the
   * cache when it is the controller's own.
   */
  async stop(graceMs: number): Promise<StopReport> {
    const report = await this.pool.stop(graceMs);
    if (report.unfinished === 0) await this.pool.stopped();
    if (this.ownsCache) await this.cache.stop();
    return report;
  }

  /** The ApplicationSets (in allowed namespaces) this replica owns now; all of them without sharding. */
  ownedAppSets(): number {
    const shard = this.opts.shard;
    return this.appSets.list().filter((a) => this.allowed(a.metadata.namespace ?? "") && (shard?.owns(objectKey(a)) ?? true)).length;
  }

  /** Resolves when the queue holds nothing and no reconcile runs (tests and benchmarks). */
  idle(): boolean {
    return this.queue.len() === 0 && this.pool.active === 0;
  }
}
