/**
 * The sync engine's loop, on the same machinery as the ApplicationSet controller: the shared
 * cache's Application informer feeds a {@link WorkQueue} (de-duplicating, delays, backoff), and a
 * {@link WorkerPool} runs the {@link AppReconciler} on each key (never two at once for one key),
 * under a deadline, with the queue and reconcile metrics of a controller named `sync-engine`.
 * A key is requeued when the reconcile asks (at once for the next step of a sync, later for a
 * poll), or with capped exponential backoff after an error. Changes to managed resources (watched
 * per cluster and kind, see {@link ResourceWatches}) requeue the Applications that track them,
 * unless a wave delay holds them; a running operation is re-checked on those events, with a slow
 * poll as the backstop.
 *
 * I/O boundary: the informers' list/watch, the reconciler's requests, timers on the injected Clock.
 */
import { type AppProject, type Application, type Cluster } from "../api/index.js";
import type { Clock } from "../clock/index.js";
import type { Shard } from "../shard/index.js";
import { unreachableServer, objectKey, type Informer, type ListWatchSource } from "../kube/index.js";
import { appProjectsSpec, applicationsSpec, SharedCache } from "../manager/cache.js";
import { repoSecretsSpec } from "../manager/credentials.js";
import type { ProjectSettings } from "./project-gate.js";
import { InformerProjectSettings } from "./project-settings.js";
import { ensureDefaultProject } from "./default-project.js";
import { errorMessage } from "../errors.js";
import type { Loop } from "../manager/manager.js";
import { ExponentialFailureRateLimiter } from "../manager/ratelimit.js";
import { WorkerPool, type StopReport, type WorkerMetrics } from "../manager/worker.js";
import { WorkQueue, type QueueMetrics } from "../manager/workqueue.js";
import { AppReconciler, type ReconcilerDeps } from "./reconcile.js";
import { argoCdConfigMapSpec, CustomizationsCache } from "./argocd-cm.js";
import type { ResourceCustomizations } from "./customizations/index.js";
import { ResourceWatches } from "./watches.js";

/** The engine's backoff after a failed reconcile: 100 ms doubling to at most 60 s. */
const BACKOFF_BASE_MS = 100;
const BACKOFF_MAX_MS = 60_000;
/** How long the workers wait, at most, for the cache to hold the `default` project the engine created. */
const DEFAULT_PROJECT_WAIT_MS = 10_000;
/** How long `stop()` waits for running reconciles by default. */
const STOP_GRACE_MS = 10_000;

/**
 * True when an update touched nothing but `status` (our own writes): such updates do not requeue,
 * so the engine never feeds on its own status writes. Running operations are polled instead.
 */
export function statusOnlyChange(old: Application, cur: Application): boolean {
  const strip = (a: Application): string =>
    JSON.stringify({
      spec: a.spec,
      operation: a.operation,
      annotations: a.metadata.annotations,
      deletion: a.metadata.deletionTimestamp,
      finalizers: a.metadata.finalizers,
    });
  return strip(old) === strip(cur);
}

/** Options of {@link SyncEngine}. */
export interface SyncEngineOptions extends ReconcilerDeps {
  /** Where the engine's own cache lists and watches, when no shared `cache` is given. */
  readonly watch: ListWatchSource;
  /** The process's shared cache (the manager's); absent: a cache of the engine's own. */
  readonly cache?: SharedCache;
  /** Watch Applications of one namespace only. */
  readonly namespace?: string;
  /**
   * Which namespaces' Applications the engine serves (Argo CD's application controller: its own
   * namespace and those `application.namespaces` matches); Applications elsewhere are neither
   * queued nor written. Absent: every namespace watched.
   */
  readonly namespaceAllowed?: (namespace: string) => boolean;
  /** Reconciles running at once (default 10). */
  readonly concurrency?: number;
  /**
   * Watch managed resources and requeue their Applications on change (default true). With watches
   * a running operation is polled every `operationPollMs` (default then 10 s) only as a backstop.
   */
  readonly watchResources?: boolean;
  /** Each reconcile's deadline in ms (absent or 0: none). */
  readonly reconcileTimeoutMs?: number;
  /** Subscribes to the apiserver answering again after requests failed to reach it: Applications waiting for it are retried at once. */
  readonly apiserverBack?: (listener: () => void) => () => void;
  /**
   * The `host:port` of the engine's own apiserver. An Application whose reconcile could not reach it
   * is retried every second, its back-off not grown; one that could not reach another server (a
   * destination cluster, which may stay down for long) backs off exponentially. Absent: every
   * server backs off.
   */
  readonly apiserverHost?: string;
  /** Subscribes to a destination cluster's server answering again: the Applications waiting for it are retried at once. */
  readonly clusterBack?: (listener: (server: string) => void) => () => void;
  /** The queue and reconcile metrics (controller `sync-engine`). */
  readonly loopMetrics?: QueueMetrics & WorkerMetrics;
  /**
   * Argo CD's namespace: its `argocd-cm` is followed through the cache, and its resource
   * customizations (custom health, system-level ignore rules, exclusions) apply from the next
   * reconcile on. Ignored when `customizations` is given; none when both are absent.
   */
  readonly argoCdNamespace?: string;
  /**
   * The clusters of the cluster Secrets now: with `argoCdNamespace`, turns on the AppProject gate
   * (docs/projects.md), which follows the AppProjects, `argocd-cm` and the repository Secrets of
   * Argo CD's namespace through the cache; an AppProject's change requeues its Applications.
   */
  readonly projectClusters?: () => readonly Cluster[];
  /**
   * Sharded replicas (docs/sharding.md#the-sync-engine): which Applications this replica owns, by
   * `namespace/name`, through the process's one membership (the ApplicationSet controller asks the
   * same). The engine then runs in every replica (no leader election), queues and reconciles only
   * the Applications it owns, checks ownership again before its writes, and queues every
   * Application again when the owners change. Absent: every Application is this replica's.
   */
  readonly shard?: Shard;
}

/** The customizations the reconciler asks for: those given, else `argocd-cm`'s followed through the cache. */
function customizationsOf(options: SyncEngineOptions, cache: SharedCache): (() => ResourceCustomizations) | undefined {
  if (options.customizations !== undefined || options.argoCdNamespace === undefined) return options.customizations;
  const namespace = options.argoCdNamespace;
  const informer = cache.informer(argoCdConfigMapSpec(namespace));
  const settings = new CustomizationsCache({ get: (ns, name) => informer.get(ns, name), namespace, log: options.log });
  return () => settings.current();
}

/** The project gate's settings over the cache, when the options turn it on. */
function projectsOf(
  options: SyncEngineOptions,
  cache: SharedCache,
): { settings: ProjectSettings; projects: Informer<AppProject> } | undefined {
  if (options.projects !== undefined || options.argoCdNamespace === undefined || options.projectClusters === undefined) return undefined;
  const namespace = options.argoCdNamespace;
  const projects = cache.informer(appProjectsSpec(namespace));
  const settings = new InformerProjectSettings({
    namespace,
    projects,
    argoCdConfigMap: cache.informer(argoCdConfigMapSpec(namespace)),
    repoSecrets: cache.informer(repoSecretsSpec(namespace)),
    clusters: options.projectClusters,
  });
  return { settings, projects };
}

/** The engine's reconciler: the options, with the customizations, the project gate and the resource watches. */
function reconcilerOf(
  options: SyncEngineOptions,
  made: { customizations: (() => ResourceCustomizations) | undefined; gate: { settings: ProjectSettings } | undefined; watch: boolean },
  ensureWatches: NonNullable<ReconcilerDeps["onManaged"]>,
): AppReconciler {
  const { customizations, gate, watch } = made;
  const shard = options.shard;
  return new AppReconciler({
    ...options,
    ...(customizations ? { customizations } : {}),
    // A sharded replica's reconcile lines ("sync step" among them) name it (docs/sharding.md#metrics-and-logs).
    ...(shard ? { owns: (key: string) => shard.owns(key), log: options.log.child({ replica: shard.identity }) } : {}),
    ...(gate ? { projects: gate.settings } : {}),
    ...(watch ? { operationPollMs: options.operationPollMs ?? 10_000 } : {}),
    onManaged: (access, descriptors) => {
      ensureWatches(access, descriptors);
      options.onManaged?.(access, descriptors);
    },
  });
}

/** Runs the sync engine until stopped. */
export class SyncEngine {
  private readonly informer: Informer<Application>;
  private readonly reconciler: AppReconciler;
  private readonly queue: WorkQueue;
  private readonly pool: WorkerPool;
  private readonly cache: SharedCache;
  private readonly ownsCache: boolean;
  private readonly clock: Clock;
  private readonly watches: ResourceWatches | undefined;
  /** Tracking name → Application keys. */
  private readonly byTrackingName = new Map<string, Set<string>>();
  private readonly trackingName: (app: Application) => string;
  private readonly namespaceAllowed: (namespace: string) => boolean;
  private readonly shard: Shard | undefined;
  private readonly client: SyncEngineOptions["client"];
  private readonly log: SyncEngineOptions["log"];
  /** Argo CD's namespace when the project gate is on. */
  private readonly projectsNamespace: string | undefined;
  private readonly gateProjects: Informer<AppProject> | undefined;
  private stopping = false;

  constructor(options: SyncEngineOptions) {
    this.clock = options.clock;
    this.namespaceAllowed = options.namespaceAllowed ?? (() => true);
    this.shard = options.shard;
    this.trackingName = (app) => options.trackingName?.(app) ?? app.metadata.name ?? "";
    const watch = options.watchResources !== false;
    this.ownsCache = options.cache === undefined;
    this.cache = options.cache ?? new SharedCache({ source: options.watch, clock: options.clock });
    const customizations = customizationsOf(options, this.cache);
    const gate = projectsOf(options, this.cache);
    this.client = options.client;
    this.log = options.log;
    this.projectsNamespace = gate === undefined ? undefined : options.argoCdNamespace;
    this.gateProjects = gate?.projects;
    this.watches = watch ? new ResourceWatches({ clock: options.clock, onChange: (name) => this.changed(name) }) : undefined;
    this.reconciler = reconcilerOf(options, { customizations, gate, watch }, (access, descriptors) =>
      this.watches?.ensure(access, descriptors),
    );
    const metrics = options.loopMetrics;
    this.queue = new WorkQueue({
      clock: options.clock,
      rateLimiter: new ExponentialFailureRateLimiter(BACKOFF_BASE_MS, BACKOFF_MAX_MS),
      ...(metrics ? { metrics } : {}),
    });
    this.pool = new WorkerPool({
      queue: this.queue,
      reconciler: this.reconciler,
      concurrency: options.concurrency ?? 10,
      clock: options.clock,
      logger: options.log,
      // A sharded replica's lines name it too (docs/sharding.md#metrics-and-logs).
      keyFields: (key) => ({ app: key, ...(this.shard === undefined ? {} : { replica: this.shard.identity }) }),
      ...(metrics ? { metrics } : {}),
      ...(options.reconcileTimeoutMs ? { reconcileTimeoutMs: options.reconcileTimeoutMs } : {}),
      unreachableServer,
      // A destination cluster that stays down must not be retried every second; the apiserver is.
      pacedOutageRetry: (server) => options.apiserverHost !== undefined && (server === "" || server === options.apiserverHost),
    });
    this.followReachability(options);
    this.informer = this.cache.informer(applicationsSpec(options.namespace));
    const changed = (p: AppProject): void => this.projectChanged(p);
    gate?.projects.on({ add: changed, update: (_, p) => changed(p), delete: changed });
    this.watchApplications();
    // A replica's share changed: every Application it may now own is queued (the others are not).
    this.shard?.onChange(() => {
      for (const app of this.informer.list()) if (this.allowed(app)) this.enqueue(objectKey(app));
    });
  }

  /** Queues `key` (urgent: ahead of the others), unless another replica owns it. */
  private enqueue(key: string, urgent = false): void {
    if (this.shard === undefined || this.shard.owns(key)) this.queue.add(key, urgent);
  }

  /** What waited for the apiserver, or for one destination cluster, goes again as soon as it answers. */
  private followReachability(options: SyncEngineOptions): void {
    options.apiserverBack?.(() => {
      this.pool.serverReachable(options.apiserverHost);
      this.pool.serverReachable("");
    });
    options.clusterBack?.((server) => {
      this.pool.serverReachable(server);
      this.watches?.retryNow(server);
    });
  }

  /** Queues the Applications the engine serves as they change (those with an operation to run first). */
  private watchApplications(): void {
    this.informer.on({
      // An Application with an operation to run goes first: after a restart, syncs already asked
      // for do not wait behind the comparison of every other Application.
      add: (app) => {
        if (!this.allowed(app)) return;
        this.index(app, true);
        this.enqueue(objectKey(app), app.operation != null);
      },
      update: (old, app) => {
        if (!this.allowed(app)) return;
        this.index(old, false);
        this.index(app, true);
        if (!statusOnlyChange(old, app)) this.enqueue(objectKey(app), app.operation != null);
      },
      delete: (app) => {
        if (!this.allowed(app)) return;
        this.index(app, false);
        this.enqueue(objectKey(app));
      },
    });
  }

  /** Whether the engine serves `app`'s namespace. */
  private readonly allowed = (app: Application): boolean => this.namespaceAllowed(app.metadata.namespace ?? "");

  /** An AppProject changed: its Applications are judged again at once. */
  private projectChanged(project: AppProject): void {
    const name = project.metadata.name ?? "";
    for (const app of this.informer.list()) {
      if (this.allowed(app) && (app.spec.project || "default") === name) this.enqueue(objectKey(app));
    }
  }

  private index(app: Application, present: boolean): void {
    const name = this.trackingName(app);
    const keys = this.byTrackingName.get(name) ?? new Set<string>();
    if (present) keys.add(objectKey(app));
    else keys.delete(objectKey(app));
    if (keys.size > 0) this.byTrackingName.set(name, keys);
    else this.byTrackingName.delete(name);
  }

  /** A managed object of `trackingName` changed: requeue its Applications, unless a wave delay holds them. */
  private changed(trackingName: string): void {
    for (const key of this.byTrackingName.get(trackingName) ?? []) {
      if (!this.reconciler.held(key)) this.enqueue(key);
    }
  }

  /**
   * The Applications the engine serves now (its informer cache): with a shard, those this replica
   * owns, so the application metrics of the replicas add up instead of repeating each other.
   */
  applications(): Application[] {
    const shard = this.shard;
    return this.informer.list().filter((app) => this.allowed(app) && (shard === undefined || shard.owns(objectKey(app))));
  }

  /** Starts the engine's own cache (a shared one is the manager's) and the workers. */
  start(): void {
    if (this.ownsCache) this.cache.start();
    this.startWorkers();
  }

  /** The engine as one loop of the manager. */
  loop(): Loop {
    return {
      name: "sync-engine",
      leaderOnly: this.shard === undefined,
      start: () => this.startWorkers(),
      stop: (graceMs) => this.stop(graceMs),
    };
  }

  /**
   * Starts the workers; with the project gate on, first makes sure Argo CD's `default` project
   * exists and the cache holds it (at most {@link DEFAULT_PROJECT_WAIT_MS}), so no Application of
   * that project is refused for a project being created.
   */
  private startWorkers(): void {
    const namespace = this.projectsNamespace;
    if (namespace === undefined || this.gateProjects === undefined) {
      this.pool.start();
      return;
    }
    const projects = this.gateProjects;
    void ensureDefaultProject(this.client, namespace)
      .then(async (created) => {
        if (created) this.log.info({ namespace }, "created the default AppProject");
        const deadline = this.clock.now() + DEFAULT_PROJECT_WAIT_MS;
        while (projects.get(namespace, "default") === undefined && this.clock.now() < deadline && !this.stopping) {
          await new Promise<void>((resolve) => this.clock.setTimeout(resolve, 50));
        }
      })
      .catch((err: unknown) => this.log.warn({ namespace, err: errorMessage(err) }, "could not create the default AppProject"))
      .finally(() => {
        if (!this.stopping) this.pool.start();
      });
  }

  /**
   * Stops taking work, aborts running reconciles (a sync step already applying finishes and is
   * recorded) and waits up to `graceMs` for them, then stops the resource watches and the engine's
   * own cache.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<StopReport> {
    this.stopping = true;
    const report = await this.pool.stop(graceMs);
    if (report.unfinished === 0) await this.pool.stopped();
    await Promise.all([this.watches?.stop(), this.ownsCache ? this.cache.stop() : undefined]);
    return report;
  }

  /** Queues a key now (a key of a namespace the engine does not serve, or another replica owns, is ignored). */
  add(key: string): void {
    const namespace = key.includes("/") ? key.slice(0, key.indexOf("/")) : "";
    if (!this.namespaceAllowed(namespace)) return;
    this.enqueue(key);
  }

  /** True when nothing is queued or running (tests and benchmarks). */
  idle(): boolean {
    return this.queue.len() === 0 && this.pool.active === 0;
  }
}
