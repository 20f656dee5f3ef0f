/**
 * The ApplicationSet controller: informers for ApplicationSets, Applications (indexed by controller
 * owner), cluster Secrets and AppProjects feed the de-duplicating {@link WorkQueue}; the
 * {@link WorkerPool} runs the {@link AppSetReconciler} on each key. The caches are namespace-scoped to
 * the controller namespace unless other ApplicationSet namespaces are allowed (spec §4.12).
 * `start` resolves once every cache has synced and the workers run; `stop` drains gracefully.
 */
import {
  Label,
  SecretType,
  decodeClusterSecret,
  isClusterSecret,
  parseAppProject,
  parseApplication,
  parseApplicationSet,
  parseSecret,
  type Application,
  type ApplicationSet,
  type AppProject,
  type Cluster,
  type ParseResult,
  type Secret,
} from "../api/index.js";
import type { Clock } from "../clock/index.js";
import type { ClusterSecretLister } from "../generators/index.js";
import type { CredentialsLookup } from "../git/index.js";
import { Informer, resources, type KubeClient, type KubeObject, type ListWatchSource } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { PlanExecutor } from "./apply.js";
import { informerWriteThrough } from "./apply-cache.js";
import { RepoCredentialsCache, REPO_SECRET_SELECTOR } from "./credentials.js";
import { KubeEventSink, type EventSink } from "./events.js";
import { watchAppSets, watchApps, watchClusterSecrets, watchProjects, type HandlerOptions } from "./handlers.js";
import { namespaceMatcher, ownerKey } from "./predicates.js";
import { AppSetReconciler, type ControllerCaches, type GenerateFn } from "./reconciler.js";
import type { PlanSettings } from "./snapshot.js";
import { WorkerPool, type WorkerMetrics } from "./worker.js";
import { WorkQueue, type QueueMetrics } from "./workqueue.js";

const OWNER_INDEX = "owner";

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
}

function parser<T>(parse: (raw: unknown) => ParseResult<T>): (raw: KubeObject) => T {
  return (raw) => {
    const res = parse(raw);
    if (!res.ok) throw res.error;
    return res.value;
  };
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
  private readonly pool: WorkerPool;
  private readonly allowed: (namespace: string) => boolean;
  /** Progressive syncs, for the planner and the watch predicates alike. */
  private readonly progressiveSyncs: boolean;

  constructor(private readonly opts: ControllerOptions) {
    this.progressiveSyncs = opts.progressiveSyncs || opts.settings.progressiveSyncs === true;
    const patterns = [...opts.appSetNamespaces, opts.namespace];
    this.allowed = namespaceMatcher(patterns);
    const scope = opts.appSetNamespaces.length === 0 ? opts.namespace : undefined;
    const log = opts.logger.child({ component: "informer" });
    const common = { source: opts.client, clock: opts.clock, log, resyncPeriodMs: opts.cacheSyncPeriodMs ?? 0 };
    this.appSets = new Informer({ ...common, resource: resources.ApplicationSets, namespace: scope, parse: parser(parseApplicationSet) });
    this.apps = new Informer({ ...common, resource: resources.Applications, namespace: scope, parse: parser(parseApplication) });
    this.secrets = new Informer({ ...common, resource: resources.Secrets, namespace: opts.namespace, labelSelector: `${Label.SecretType}=${SecretType.Cluster}`, parse: parser(parseSecret) });
    this.projects = new Informer({ ...common, resource: resources.AppProjects, namespace: opts.namespace, parse: parser(parseAppProject) });
    this.repoSecrets = new Informer({ ...common, resource: resources.Secrets, namespace: opts.namespace, labelSelector: REPO_SECRET_SELECTOR, parse: parser(parseSecret) });
    this.credentials = new RepoCredentialsCache(this.repoSecrets).lookup;
    this.apps.addIndex(OWNER_INDEX, (a) => {
      const k = ownerKey(a);
      return k === undefined ? [] : [k];
    });
    this.queue = new WorkQueue({ clock: opts.clock, ...(opts.metrics ? { metrics: opts.metrics } : {}) });
    const executor = new PlanExecutor({
      client: opts.client,
      events: opts.events ?? new KubeEventSink({ writer: opts.client, clock: opts.clock, logger: opts.logger }),
      clock: opts.clock,
      logger: opts.logger,
      concurrency: opts.concurrentApplicationUpdates,
      dryRun: opts.dryRun,
      cache: informerWriteThrough(this.apps),
    });
    const reconciler = new AppSetReconciler({
      caches: this.caches(),
      generate: opts.generate({ listClusterSecrets: () => Promise.resolve(this.secrets.list().filter(isClusterSecret)) }, this.credentials),
      executor,
      settings: { ...opts.settings, progressiveSyncs: this.progressiveSyncs },
      clock: opts.clock,
      ...(opts.observeReconcile ? { observe: opts.observeReconcile } : {}),
    });
    this.pool = new WorkerPool({
      queue: this.queue,
      reconciler,
      concurrency: opts.concurrentReconciliations,
      clock: opts.clock,
      logger: opts.logger,
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
    });
    this.registerHandlers();
  }

  /** The read side of the caches, as the reconciler sees it. */
  caches(): ControllerCaches {
    return {
      appSet: (ns, name) => this.appSets.get(ns, name),
      ownedApps: (ns, name) => this.apps.byIndex(OWNER_INDEX, `${ns}/${name}`),
      app: (ns, name) => this.apps.get(ns, name),
      projectNames: () => new Set(this.projects.list().map((p) => p.metadata.name ?? "")),
      clusters: () => this.clusterList(),
    };
  }

  private clusterList(): Cluster[] {
    const out: Cluster[] = [];
    for (const s of this.secrets.list()) {
      if (!isClusterSecret(s)) continue;
      const c = decodeClusterSecret(s);
      if (c.ok) out.push(c.value);
    }
    return out;
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
    const h: HandlerOptions = {
      enqueue: (key) => this.queue.add(key),
      allowed: this.allowed,
      progressiveSyncs: this.progressiveSyncs,
      appSets: () => this.appSets.list(),
    };
    watchAppSets(this.appSets, h);
    watchApps(this.apps, h);
    watchClusterSecrets(this.secrets, h);
    watchProjects(this.projects, h);
  }

  /** Starts the informers, waits until all have synced (or `signal` aborts), then starts the workers. */
  async start(signal?: AbortSignal): Promise<void> {
    const informers = [this.secrets, this.projects, this.repoSecrets, this.apps, this.appSets];
    for (const i of informers) i.start();
    await Promise.all(informers.map((i) => i.waitForSync(signal)));
    this.opts.logger.info({ appSets: this.appSets.list().length, applications: this.apps.list().length }, "caches synced, starting workers");
    this.pool.start();
  }

  /** Stops taking work, lets running reconciles finish for up to `graceMs`, then stops the informers. */
  async stop(graceMs: number): Promise<void> {
    await this.pool.stop(graceMs);
    await this.pool.stopped();
    await Promise.all([this.appSets, this.apps, this.secrets, this.projects, this.repoSecrets].map((i) => i.stop()));
  }

  /** Resolves when the queue holds nothing and no reconcile runs (tests and benchmarks). */
  idle(): boolean {
    return this.queue.len() === 0 && this.pool.active === 0;
  }
}
