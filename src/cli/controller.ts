/**
 * `appset controller`: the composition root of the ApplicationSet controller process. It parses the
 * flags, environment and `argocd-cmd-params-cm` keys (docs/configuration.md), builds the logger,
 * Kubernetes client, generators, metrics and controller, serves `/healthz`, `/readyz`, `/metrics` and
 * the Git webhook (`/api/webhook`, in every replica),
 * runs leader election when asked (only the leader reconciles; losing the lease exits with 1, as
 * controller-runtime does), and shuts down cleanly on SIGTERM or SIGINT: no new work, running
 * reconciles aborted and awaited for a grace period, the lease is released, the servers close,
 * exit 0. The parts it shares with `appset sync-engine` (client, cache, credentials, Git service,
 * servers, leader election) are built by ./process-parts.ts; its manager owns the process and runs
 * its loops (the ApplicationSet controller and, with `--enable-sync-engine`, the sync engine), both
 * only while the process leads, or with `--enable-sharding` in every replica, each on its share.
 */
import type { Config } from "../config/index.js";
import { AppSetController, generatorFn, resolvePolicy, rolloutSafetyAvailable, type GenerateFn } from "../controller/index.js";
import type { GitRepoReader } from "../git/index.js";
import { createGeneratorRegistry, DEFAULT_GENERATOR_SETTINGS, type ClusterSecretLister } from "../generators/index.js";
import { portsFromKubeReader } from "../generators/object-ports.js";
import type { KubeApiClient } from "../kube/index.js";
import type { Manager, WorkqueueRateLimitConfig } from "../manager/index.js";
import { LEASE_NAME } from "../leader/index.js";
import { AppSetMetrics, ControllerMetrics } from "../metrics/index.js";
import { TemplateEngine } from "../template/index.js";
import { runProcess, type ControllerIO, type ProcessRuntime } from "./process.js";
import { processManager, processParts, runManaged, startServers, type ProcessParts } from "./process-parts.js";
import { scmServices } from "./scm.js";
import { registerShardMetrics, replicaShard, type ReplicaShard } from "./shard.js";
import { argoCdConfigMapSpec } from "../syncwaves/argocd-cm.js";
import { ARGOCD_CM } from "../syncwaves/customizations/index.js";
import { inClusterEnabled } from "../syncwaves/project-settings.js";
import { startControllerWebhook } from "../webhook/index.js";
import type { CredentialsLookup } from "../git/index.js";
import type { OciReader } from "../oci/index.js";

/** The `--wq-*` settings as the controller's queue takes them. */
export function workqueueRateLimitOf(config: Config): WorkqueueRateLimitConfig {
  return {
    bucketSize: config.wqBucketSize,
    bucketQps: config.wqBucketQps,
    cooldownMs: config.wqCooldownMs,
    baseDelayMs: config.wqBaseDelayMs,
    maxDelayMs: config.wqMaxDelayMs,
    backoffFactor: config.wqBackoffFactor,
  };
}

/**
 * The OCI generator's reader. The registry client's modules (with zlib and Helm's version rules) load
 * on its first read, not at start: most installs have no OCI generator (docs/controller.md#memory-at-start).
 */
function lazyOciReader(rt: Runtime, credentials: CredentialsLookup): OciReader {
  let reader: Promise<OciReader> | undefined;
  const get = (): Promise<OciReader> => (reader ??= import("./oci.js").then(({ ociService }) => ociService(rt, credentials)));
  return {
    directories: async (repoURL, revision, opts) => (await get()).directories(repoURL, revision, opts),
    files: async (repoURL, revision, pattern, opts) => (await get()).files(repoURL, revision, pattern, opts),
  };
}

/**
 * The generation function over the real ports: cluster Secrets from the shared cache, the
 * process's Git service, the rest from the API.
 */
function generation(
  rt: Runtime,
  d: { client: KubeApiClient; namespace: string; metrics: AppSetMetrics; git: GitRepoReader; oci: OciReader },
): (clusters: ClusterSecretLister) => GenerateFn {
  const { config, env, clock } = rt;
  const { client, namespace, metrics, git, oci } = d;
  const objects = portsFromKubeReader(client, namespace);
  const engine = new TemplateEngine({
    now: () => clock.now(),
    clock: () => clock.now(),
    budget: { maxMillis: config.templateTimeoutMs, maxListLength: config.templateMaxListLength },
  });
  const registry = createGeneratorRegistry({}, scmServices(config, env, client, { metrics, clock }));
  const settings = {
    ...DEFAULT_GENERATOR_SETTINGS,
    defaultRequeueAfterMs: config.requeueAfterMs,
    newGitFileGlobbing: config.enableNewGitFileGlobbing,
    maxParameterSets: config.maxParameterSets,
    pluginMaxResponseBytes: config.pluginMaxResponseBytes,
    gitFileMaxBytes: config.gitFileMaxBytes,
    gitFilesMaxBytes: config.gitFilesMaxBytes,
  };
  return (clusters) =>
    generatorFn({
      registry,
      engine,
      ctx: {
        ports: { clusters, git, oci, configMaps: objects.configMaps, secrets: objects.secrets, resources: objects.resources, fetch },
        settings,
        clock,
      },
    });
}

/** What every step of the process shares. */
type Runtime = ProcessRuntime;

interface Process {
  readonly manager: Manager;
  readonly parts: ProcessParts;
  readonly metrics: ControllerMetrics;
  /** With `--enable-sharding`: this replica's membership of its shard group. */
  readonly shard?: ReplicaShard;
}

async function build(rt: Runtime): Promise<Process> {
  const { config, logger, clock } = rt;
  const program = "argocd-applicationset-controller";
  const parts = processParts(rt, { fieldManager: program, program });
  const { registry, client, namespace, cache, credentials, git } = parts;
  const shard = config.enableSharding ? replicaShard({ client, namespace, group: config.shardGroup, clock, logger }) : undefined;
  const metrics = new ControllerMetrics({
    registry,
    controller: "applicationset",
    maxConcurrentReconciles: config.concurrentReconciliations,
    leaseName: LEASE_NAME,
  });
  // Argo CD's argocd-cm: whether the implicit in-cluster destination exists, read live.
  const argoCdConfigMap = cache.informer(argoCdConfigMapSpec(namespace));
  // The servers first: they keep the process alive while the rollout safety probe waits.
  const servers = await startServers(rt, parts);
  const scope = config.applicationSetNamespaces.length === 0 ? namespace : undefined;
  const rolloutSafety = await rolloutSafetyAvailable({ client, namespace: scope, log: logger, clock, signal: rt.signal });
  let controller: AppSetController | undefined = undefined;
  const appSetMetrics = new AppSetMetrics({
    registry,
    list: () => controller?.appSets.list() ?? [],
    namespaceAllowed: (ns) => controller?.namespaceAllowed(ns) ?? false,
    labels: config.metricsApplicationSetLabels,
  });
  controller = new AppSetController({
    client,
    clock,
    logger,
    namespace,
    appSetNamespaces: config.applicationSetNamespaces,
    settings: {
      policy: resolvePolicy(config.policy),
      enablePolicyOverride: config.enablePolicyOverride,
      preservedAnnotations: config.preservedAnnotations,
      preservedLabels: config.preservedLabels,
      maxResourcesStatusCount: config.maxResourcesStatusCount,
      maxApplicationBytes: config.maxApplicationBytes,
      refreshGracePeriodMs: config.refreshGracePeriodSeconds * 1000,
      inClusterEnabled: true,
    },
    inClusterEnabled: () => inClusterEnabled(argoCdConfigMap.get(namespace, ARGOCD_CM)),
    generate: generation(rt, { client, namespace, metrics: appSetMetrics, git, oci: lazyOciReader(rt, credentials) }),
    cache,
    credentials,
    reconcileTimeoutMs: config.reconcileTimeoutSeconds * 1000,
    workqueueRateLimit: workqueueRateLimitOf(config),
    apiserverBack: parts.apiserverBack,
    concurrentReconciliations: config.concurrentReconciliations,
    concurrentApplicationUpdates: config.concurrentApplicationUpdates,
    dryRun: config.dryRun,
    cacheSyncPeriodMs: config.cacheSyncPeriodMs,
    progressiveSyncs: config.enableProgressiveSyncs,
    metrics,
    observeReconcile: (a, s) => appSetMetrics.observeReconcile(a.metadata.namespace ?? "", a.metadata.name ?? "", s),
    rolloutMetrics: appSetMetrics.progressiveSync,
    rolloutSafety,
    ...(shard === undefined ? {} : { shard: shard.shard }),
  });
  const synced = controller;
  const webhook = await startControllerWebhook({
    addr: config.webhookAddr,
    parallelism: config.webhookParallelismLimit,
    dryRun: config.dryRun,
    scope,
    informer: synced.appSets,
    client,
    namespace,
    allowed: (ns) => synced.namespaceAllowed(ns),
    logger,
    clock,
  });
  if (webhook !== undefined) servers.push(webhook);
  logger.info(
    { namespace, policy: config.policy || "sync", dryRun: config.dryRun, probe: servers[0]!.url, metrics: servers[1]!.url },
    "applicationset controller starting",
  );
  const manager = processManager(rt, parts, servers);
  manager.add(controller.loop());
  // The sync engine's modules load only when it runs (docs/controller.md#memory-at-start).
  let ownedApplications: (() => number) | undefined;
  if (config.enableSyncEngine) {
    const { buildSyncEngine } = await import("./sync-engine.js");
    // One membership per process: the engine shares the controller's, keyed by Application.
    const engine = buildSyncEngine({
      ...rt,
      ...parts,
      clusters: controller.clusters,
      ...(shard === undefined ? {} : { shard: shard.shard }),
    });
    manager.add(engine.loop());
    ownedApplications = () => engine.applications().length;
  }
  if (shard !== undefined)
    registerShardMetrics(registry, shard, {
      applicationSets: () => synced.ownedAppSets(),
      ...(ownedApplications === undefined ? {} : { applications: ownedApplications }),
    });
  return { manager, parts, metrics, ...(shard === undefined ? {} : { shard }) };
}

/** Runs `appset controller ARGS`; resolves to the exit code. */
export function controllerCommand(args: readonly string[], io: ControllerIO): Promise<number> {
  return runProcess({ command: "appset controller", title: "applicationset controller" }, args, io, async (rt) => {
    const p = await build(rt);
    return runManaged(rt, p.parts, {
      manager: p.manager,
      lease: { name: LEASE_NAME, leading: (leader) => p.metrics.leading(leader) },
      ...(p.shard === undefined ? {} : { shard: p.shard }),
    });
  });
}
