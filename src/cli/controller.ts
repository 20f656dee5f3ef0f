/**
 * `appset controller`: the composition root of the ApplicationSet controller process. It parses the
 * flags, environment and `argocd-cmd-params-cm` keys (docs/configuration.md), builds the logger,
 * Kubernetes client, generators, metrics and controller, serves `/healthz`, `/readyz`, `/metrics` and
 * the Git webhook (`/api/webhook`, in every replica),
 * runs leader election when asked (only the leader reconciles; losing the lease exits with 1, as
 * controller-runtime does), and shuts down cleanly on SIGTERM or SIGINT: no new work, running
 * reconciles aborted and awaited for a grace period, the lease is released, the servers close,
 * exit 0. One manager holds the process's shared cache, its Git service and its loops (the
 * ApplicationSet controller and, with `--enable-sync-engine`, the sync engine).
 */
import { hostname } from "node:os";
import type { Clock } from "../clock/index.js";
import type { Config, Env } from "../config/index.js";
import { controllerNamespace, kubeClient } from "./kube.js";
import { AppSetController, generatorFn, resolvePolicy, rolloutSafetyAvailable, type GenerateFn } from "../controller/index.js";
import { errorMessage } from "../errors.js";
import type { GitRepoReader } from "../git/index.js";
import { createGeneratorRegistry, DEFAULT_GENERATOR_SETTINGS, type ClusterSecretLister } from "../generators/index.js";
import { portsFromKubeReader } from "../generators/object-ports.js";
import type { KubeApiClient } from "../kube/index.js";
import { Manager, RepoCredentialsCache, repoSecretsSpec, SharedCache, type WorkqueueRateLimitConfig } from "../manager/index.js";
import { LeaderElector, LEASE_NAME, newIdentity } from "../leader/index.js";
import type { Logger } from "../log/logger.js";
import { AppSetMetrics, ControllerMetrics, createMetricsRegistry, RestClientMetrics } from "../metrics/index.js";
import type { HttpEndpoint } from "../server/index.js";
import { TemplateEngine } from "../template/index.js";
import type { SyncEngine } from "../syncwaves/engine.js";
import { runProcess, startProbeAndMetrics, untilAborted, type ControllerIO } from "./process.js";
import { scmServices } from "./scm.js";
import { gitService } from "./git.js";
import { argoCdConfigMapSpec } from "../syncwaves/argocd-cm.js";
import { ARGOCD_CM } from "../syncwaves/customizations/index.js";
import { inClusterEnabled } from "../syncwaves/project-settings.js";
import { startControllerWebhook } from "../webhook/index.js";
import type { OciReader } from "../oci/index.js";
import { ociService } from "./oci.js";

/** How long running reconciles, aborted at SIGTERM, may take to return. */
const STOP_GRACE_MS = 10_000;

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
interface Runtime {
  readonly config: Config;
  readonly env: Env;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Aborts on SIGTERM/SIGINT. */
  readonly signal?: AbortSignal;
}

interface Process {
  readonly manager: Manager;
  readonly controller: AppSetController;
  readonly servers: HttpEndpoint[];
  readonly client: KubeApiClient;
  readonly metrics: ControllerMetrics;
  /** The sync engine, with `--enable-sync-engine`; it runs while this process leads. */
  readonly engine: SyncEngine | undefined;
}

async function build(rt: Runtime): Promise<Process> {
  const { config, logger, clock } = rt;
  const registry = createMetricsRegistry({ processMetrics: true });
  const program = "argocd-applicationset-controller";
  const observe = new RestClientMetrics(registry).observe;
  const client = kubeClient(config, rt.env, { fieldManager: program, clock, program, observe });
  const namespace = controllerNamespace(config, rt.env);
  const metrics = new ControllerMetrics({
    registry,
    controller: "applicationset",
    maxConcurrentReconciles: config.concurrentReconciliations,
    leaseName: LEASE_NAME,
  });
  const cache = new SharedCache({
    source: client,
    clock,
    log: logger.child({ component: "informer" }),
    resyncPeriodMs: config.cacheSyncPeriodMs,
  });
  const credentials = new RepoCredentialsCache(cache.informer(repoSecretsSpec(namespace))).lookup;
  const git = gitService(rt, credentials);
  // Argo CD's argocd-cm: whether the implicit in-cluster destination exists, read live.
  const argoCdConfigMap = cache.informer(argoCdConfigMapSpec(namespace));
  const ready = {
    name: "informers",
    check: () => {
      if (!cache.hasSynced()) throw new Error("caches not synced");
    },
  };
  // The servers first: they keep the process alive while the rollout safety probe waits.
  const servers = [...(await startProbeAndMetrics({ config, logger, clock }, { registry, ready }))];
  const scope = config.applicationSetNamespaces.length === 0 ? namespace : undefined;
  const rolloutSafety = await rolloutSafetyAvailable({
    client,
    namespace: scope,
    log: logger,
    clock,
    ...(rt.signal ? { signal: rt.signal } : {}),
  });
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
    generate: generation(rt, { client, namespace, metrics: appSetMetrics, git, oci: ociService(rt, credentials) }),
    cache,
    credentials,
    reconcileTimeoutMs: config.reconcileTimeoutSeconds * 1000,
    workqueueRateLimit: workqueueRateLimitOf(config),
    concurrentReconciliations: config.concurrentReconciliations,
    concurrentApplicationUpdates: config.concurrentApplicationUpdates,
    dryRun: config.dryRun,
    cacheSyncPeriodMs: config.cacheSyncPeriodMs,
    progressiveSyncs: config.enableProgressiveSyncs,
    metrics,
    observeReconcile: (a, s) => appSetMetrics.observeReconcile(a.metadata.namespace ?? "", a.metadata.name ?? "", s),
    rolloutMetrics: appSetMetrics.progressiveSync,
    rolloutSafety,
  });
  const synced = controller;
  const webhookOpts = {
    addr: config.webhookAddr,
    parallelism: config.webhookParallelismLimit,
    dryRun: config.dryRun,
    scope,
    informer: synced.appSets,
  };
  const webhook = await startControllerWebhook({
    ...webhookOpts,
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
  // The sync engine's modules load only when it runs (docs/controller.md#memory-at-start).
  const engine = config.enableSyncEngine
    ? (await import("./sync-engine.js")).buildSyncEngine({
        ...rt,
        client,
        namespace,
        cache,
        git,
        credentials,
        clusters: controller.clusters,
        registry,
      })
    : undefined;
  const manager = new Manager({
    cache,
    logger,
    closers: [() => Promise.all(servers.map((s) => s.close())).then(() => undefined), () => client.transport.close()],
  });
  manager.add(controller.loop());
  if (engine !== undefined) manager.add(engine.loop());
  return { manager, controller, servers, client, metrics, engine };
}

/** Runs the controller until `signal` aborts (→ "stopped") or leadership is lost (→ "lost"). */
async function runLeading(p: Process, rt: Runtime, signal: AbortSignal): Promise<"stopped" | "lost"> {
  const { config, logger, clock } = rt;
  if (!config.enableLeaderElection) {
    if (signal.aborted) return "stopped";
    await p.manager.startLoops(signal).catch((err: unknown) => {
      if (!signal.aborted) throw err;
    });
    await untilAborted(signal);
    return "stopped";
  }
  // Every replica keeps the cache (the webhook and the probes read it); only the leader runs loops.
  p.manager.startCache(signal).catch((err: unknown) => {
    if (!signal.aborted) logger.error({ error: errorMessage(err) }, "caches failed to sync");
  });
  const elector = new LeaderElector({
    client: p.client,
    namespace: p.controller.namespace,
    identity: newIdentity(hostname()),
    clock,
    logger,
    onStartedLeading: (leading) => {
      p.metrics.leading(true);
      p.manager.startLoops(leading).catch((err: unknown) => logger.error({ error: errorMessage(err) }, "controller failed to start"));
    },
    onStoppedLeading: () => p.metrics.leading(false),
  });
  return elector.run(signal);
}

/** Runs `appset controller ARGS`; resolves to the exit code. */
export function controllerCommand(args: readonly string[], io: ControllerIO): Promise<number> {
  return runProcess({ command: "appset controller", title: "applicationset controller" }, args, io, async (rt) => {
    const p = await build(rt);
    const end = await runLeading(p, rt, rt.signal);
    await p.manager.stop(STOP_GRACE_MS);
    return end;
  });
}
