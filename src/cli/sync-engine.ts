/**
 * The sync engine as the process runs it: inside `appset controller` with `--enable-sync-engine`, or
 * alone as `appset sync-engine` (same flags, logging, probes and leader election, on a Lease of its
 * own). It syncs the Applications of the controller's namespace and of the namespaces Argo CD's
 * `application.namespaces` allows (never others: `--applicationset-namespaces` is a separate
 * setting, as in Argo CD), reads their manifests from Git, Helm chart repositories and OCI
 * registries with the repository Secrets' credentials, and reaches destinations through cluster
 * Secrets.
 */
import type { Clock } from "../clock/index.js";
import type { Cluster } from "../api/index.js";
import { selfHealBackoff, syncDeadlineMs, SYNC_ENGINE_SETTINGS, waveDelayMs, type Config, type Env } from "../config/index.js";
import type { CredentialsLookup, GitReader } from "../git/index.js";
import type { KubeApiClient } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { ClusterDirectory, clusterSecretsSpec, ServerReachability, type SharedCache } from "../manager/index.js";
import { ControllerMetrics, RestClientMetrics, SyncEngineMetrics, type Registry } from "../metrics/index.js";
import { ClusterSecretDestinations, type ClusterLookup } from "../syncwaves/destinations.js";
import { SyncEngine } from "../syncwaves/engine.js";
import { kubeClient } from "./kube.js";
import { processUserAgent } from "./version.js";
import { patternListMatcher } from "../glob/index.js";
import { localClusterAccess, manifestSource } from "./engine-parts.js";
import { runProcess, type ControllerIO } from "./process.js";
import { processManager, processParts, runManaged, startServers } from "./process-parts.js";
import { registerShardMetrics, replicaShard } from "./shard.js";
import { DEFAULT_SHARD_GROUP, type Shard } from "../shard/index.js";

/** Argo CD's program name the sync engine's clients carry in their User-Agent. */
const SYNC_ENGINE_PROGRAM = "argocd-application-controller";

/** The Lease the stand-alone sync engine elects its leader on. */
export const SYNC_ENGINE_LEASE_NAME = "appset-sync-engine.argoproj.io";

/**
 * The shard group the stand-alone sync engine joins when `--shard-group` keeps the controller's
 * default: its replicas share the Applications among themselves, never with controller replicas
 * (which may run without the engine) of the same namespace.
 */
export const SYNC_ENGINE_SHARD_GROUP = "applicationset-sync-engine";

/** The shard group of `appset sync-engine`: `--shard-group`, or its own in place of the controller's default. */
export function syncEngineShardGroup(config: Pick<Config, "shardGroup">): string {
  return config.shardGroup === DEFAULT_SHARD_GROUP ? SYNC_ENGINE_SHARD_GROUP : config.shardGroup;
}

/** What the engine is built from: the process's shared cache, Git service and cluster directory. */
export interface SyncEngineDeps {
  readonly config: Config;
  readonly env: Env;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly client: KubeApiClient;
  /** The controller's namespace (Argo CD's namespace: cluster Secrets live there). */
  readonly namespace: string;
  readonly cache: SharedCache;
  readonly git: GitReader;
  /** Repository credentials (the repository Secrets'), for `chart` sources from Helm repositories. */
  readonly credentials: CredentialsLookup;
  readonly clusters: ClusterLookup & { clusters(): readonly Cluster[] };
  /** Where the engine's metrics are registered (none when absent). */
  readonly registry?: Registry;
  /** Subscribes to the apiserver answering again after an outage (the process's requests show it). */
  readonly apiserverBack?: (listener: () => void) => () => void;
  /** With `--enable-sharding`: the process's shard, asked by Application (docs/sharding.md#the-sync-engine). */
  readonly shard?: Shard;
}

/** The engine's loop metrics (controller and queue `sync-engine`) and Argo CD's application metrics. */
function engineMetrics(
  d: SyncEngineDeps,
  list: () => ReturnType<SyncEngine["applications"]>,
): Pick<ConstructorParameters<typeof SyncEngine>[0], "metrics" | "loopMetrics"> {
  if (d.registry === undefined) return {};
  return {
    metrics: new SyncEngineMetrics({ registry: d.registry, list }),
    loopMetrics: new ControllerMetrics({ registry: d.registry, controller: "sync-engine", maxConcurrentReconciles: ENGINE_CONCURRENCY }),
  };
}

/** Reconciles the engine runs at once. */
const ENGINE_CONCURRENCY = 10;

/** Builds (does not start) the sync engine; its metrics go to `d.registry`. */
export function buildSyncEngine(d: SyncEngineDeps): SyncEngine {
  const local = localClusterAccess(d.client);
  // Remote clusters' requests are counted too, as client-go's global metrics count every client;
  // and they tell which destination cluster answers again after failing, so its Applications go at once.
  const metrics = d.registry === undefined ? undefined : new RestClientMetrics(d.registry).observe;
  const clusters = new ServerReachability();
  const observe: NonNullable<typeof metrics> = (request) => {
    metrics?.(request);
    clusters.observe(request);
  };
  const others = d.config.applicationNamespaces;
  const deadlineMs = syncDeadlineMs(d.env);
  const engine: SyncEngine = new SyncEngine({
    watch: d.client,
    cache: d.cache,
    // Argo CD's application controller: its own namespace, plus those application.namespaces allows.
    ...(others.length > 0 ? { namespaceAllowed: patternListMatcher([d.namespace, ...others]) } : { namespace: d.namespace }),
    // Argo CD's settings live in its namespace, the controller's: argocd-cm's customizations apply.
    argoCdNamespace: d.namespace,
    // AppProjects are enforced as Argo CD's application controller enforces them (docs/projects.md).
    projectClusters: () => d.clusters.clusters(),
    client: d.client,
    resolve: local.resolve,
    source: manifestSource(d),
    clock: d.clock,
    log: d.logger.child({ component: "sync-engine" }),
    ...(d.apiserverBack === undefined ? {} : { apiserverBack: d.apiserverBack }),
    apiserverHost: d.client.transport.host,
    clusterBack: clusters.onBack,
    destinations: new ClusterSecretDestinations({
      local,
      // Sync impersonation on the local cluster: the engine's kubeconfig and options, as the account.
      localImpersonating: (user) =>
        kubeClient(d.config, d.env, {
          fieldManager: "argocd-controller",
          clock: d.clock,
          program: SYNC_ENGINE_PROGRAM,
          observe,
          impersonate: user,
        }),
      clusters: d.clusters,
      userAgent: processUserAgent(SYNC_ENGINE_PROGRAM),
      observe,
    }),
    waveDelayMs: waveDelayMs(d.env),
    selfHealBackoff: selfHealBackoff(d.env),
    concurrency: ENGINE_CONCURRENCY,
    reconcileTimeoutMs: d.config.reconcileTimeoutSeconds * 1000,
    ...engineMetrics(d, () => engine.applications()),
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
    ...(d.shard === undefined ? {} : { shard: d.shard }),
  });
  return engine;
}

/**
 * Runs `appset sync-engine ARGS`; resolves to the exit code. It accepts the controller's flags, and
 * its `--help` lists those it reads.
 */
export function syncEngineCommand(args: readonly string[], io: ControllerIO): Promise<number> {
  const names = { command: "appset sync-engine", title: "sync engine", settings: SYNC_ENGINE_SETTINGS };
  return runProcess(names, args, io, async (rt) => {
    const parts = processParts(rt, { fieldManager: "argocd-controller", program: SYNC_ENGINE_PROGRAM });
    // Clusters follow their Secrets live, as in the controller process.
    const clusters = new ClusterDirectory(parts.cache.informer(clusterSecretsSpec(parts.namespace)));
    const { client, namespace } = parts;
    const shard = rt.config.enableSharding
      ? replicaShard({ client, namespace, group: syncEngineShardGroup(rt.config), clock: rt.clock, logger: rt.logger })
      : undefined;
    const engine = buildSyncEngine({ ...rt, ...parts, clusters, ...(shard === undefined ? {} : { shard: shard.shard }) });
    if (shard !== undefined) registerShardMetrics(parts.registry, shard, { applications: () => engine.applications().length });
    const servers = await startServers(rt, parts);
    const manager = processManager(rt, parts, servers);
    manager.add(engine.loop());
    rt.logger.info({ namespace, probe: servers[0]!.url, metrics: servers[1]!.url }, "sync engine starting");
    // With leader election every replica keeps its cache warm (the probes read it); only the leader
    // syncs. With sharding every replica syncs the Applications it owns; it leaves its group (its
    // Lease deleted) when the process stops.
    return runManaged(rt, parts, { manager, lease: { name: SYNC_ENGINE_LEASE_NAME }, ...(shard === undefined ? {} : { shard }) });
  });
}
