/**
 * What `appset controller` and `appset sync-engine` share, built in one place: the metrics
 * registry, the Kubernetes client, the namespace, the shared cache, the repository credentials over
 * it and the Git service ({@link processParts}); the probe and metrics servers
 * ({@link startServers}); the manager that owns the cache, the loops and the servers
 * ({@link processManager}); and the run under leader election on the command's Lease
 * ({@link runManaged}). Each command only builds its loops and hands them to the manager.
 */
import { hostname } from "node:os";
import type { ReplicaShard } from "./shard.js";
import type { Clock } from "../clock/index.js";
import type { CredentialsLookup, GitRepoReader } from "../git/index.js";
import type { KubeApiClient } from "../kube/index.js";
import { LeaderElector, newIdentity, type LeaderElectorOptions } from "../leader/index.js";
import type { Logger } from "../log/logger.js";
import { ApiserverReachability, Manager, RepoCredentialsCache, repoSecretsSpec, SharedCache, type Leadership } from "../manager/index.js";
import { createMetricsRegistry, RestClientMetrics, type Registry } from "../metrics/index.js";
import type { HttpEndpoint } from "../server/index.js";
import { gitService } from "./git.js";
import { controllerNamespace, kubeClient } from "./kube.js";
import { startProbeAndMetrics, type ProcessEnd, type ProcessRuntime } from "./process.js";

/** How long running reconciles, aborted at SIGTERM, may take to return. */
export const STOP_GRACE_MS = 10_000;

/** The surroundings the parts are built from. */
type Surroundings = Pick<ProcessRuntime, "config" | "env" | "logger" | "clock">;

/** The parts both commands share. */
export interface ProcessParts {
  readonly registry: Registry;
  readonly client: KubeApiClient;
  /** The controller's namespace (Argo CD's: the Lease, the repository and cluster Secrets live there). */
  readonly namespace: string;
  readonly cache: SharedCache;
  readonly credentials: CredentialsLookup;
  readonly git: GitRepoReader;
  /** Subscribes to the apiserver answering again after requests failed to reach it. */
  readonly apiserverBack: ApiserverReachability["onBack"];
}

/** Who the process's client says it is: its field manager, and the program in its User-Agent. */
export interface ClientIdentity {
  readonly fieldManager: string;
  readonly program: string;
}

/** Builds (does not start) the registry, the client, the shared cache, the credentials and the Git service. */
export function processParts(rt: Surroundings, who: ClientIdentity): ProcessParts {
  const { config, env, logger, clock } = rt;
  const registry = createMetricsRegistry({ processMetrics: true });
  // client-go's rest_client_requests_total, as controller-runtime's registry serves it; and whether
  // the apiserver answers, which the work queues follow after an outage.
  const metrics = new RestClientMetrics(registry).observe;
  const reachability = new ApiserverReachability();
  const observe: typeof metrics = (request) => {
    metrics(request);
    reachability.observe(request);
  };
  const client = kubeClient(config, env, { fieldManager: who.fieldManager, clock, program: who.program, observe });
  const namespace = controllerNamespace(config, env);
  const cache = new SharedCache({
    source: client,
    clock,
    log: logger.child({ component: "informer" }),
    resyncPeriodMs: config.cacheSyncPeriodMs,
  });
  // Informers waiting to list or watch again go at once when a request is answered after an outage.
  reachability.onBack(() => cache.retryNow());
  // Repository credentials follow their Secrets live.
  const credentials = new RepoCredentialsCache(cache.informer(repoSecretsSpec(namespace))).lookup;
  const git = gitService(rt, credentials);
  return { registry, client, namespace, cache, credentials, git, apiserverBack: reachability.onBack };
}

/** Starts the probe server (ready once the shared cache has synced) and the metrics server. */
export async function startServers(rt: Surroundings, parts: ProcessParts): Promise<HttpEndpoint[]> {
  const ready = {
    name: "informers",
    check: () => {
      if (!parts.cache.hasSynced()) throw new Error("caches not synced");
    },
  };
  return [...(await startProbeAndMetrics(rt, { registry: parts.registry, ready }))];
}

/** The manager of the shared cache; at stop it closes `servers` (as they are then) and the client. */
export function processManager(rt: Pick<Surroundings, "logger">, parts: ProcessParts, servers: readonly HttpEndpoint[]): Manager {
  return new Manager({
    cache: parts.cache,
    logger: rt.logger,
    closers: [() => Promise.all(servers.map((s) => s.close())).then(() => undefined), () => parts.client.transport.close()],
  });
}

/** The command's Lease, and what is told when this process starts and stops leading. */
export interface LeaseOf {
  readonly name: string;
  readonly leading?: (leader: boolean) => void;
}

/** Leader election on `lease` in the process's namespace, as the manager runs it. */
export function leaseLeadership(
  d: { client: LeaderElectorOptions["client"]; namespace: string; clock: Clock; logger: Logger },
  lease: LeaseOf,
  identity = newIdentity(hostname()),
): Leadership {
  return {
    run: (signal, started) =>
      new LeaderElector({
        client: d.client,
        namespace: d.namespace,
        name: lease.name,
        identity,
        clock: d.clock,
        logger: d.logger,
        onStartedLeading: (leading) => {
          lease.leading?.(true);
          started(leading);
        },
        onStoppedLeading: () => lease.leading?.(false),
      }).run(signal),
  };
}

/**
 * Runs the manager until SIGTERM/SIGINT ("stopped") or, with `--enable-leader-election`, until the
 * Lease is lost ("lost"), then stops it within {@link STOP_GRACE_MS}. With `--enable-sharding`, the
 * replica's membership runs beside it and leaves the group (its Lease deleted, so peers take its
 * keys at once) before the manager stops, while the client is still open; from then on the fence
 * refuses the loops' writes.
 */
export async function runManaged(
  rt: ProcessRuntime,
  parts: ProcessParts,
  m: { manager: Manager; lease: LeaseOf; shard?: Pick<ReplicaShard, "run"> },
): Promise<ProcessEnd> {
  const leadership = rt.config.enableLeaderElection ? leaseLeadership({ ...rt, ...parts }, m.lease) : undefined;
  const leave = new AbortController();
  const membership = m.shard?.run(AbortSignal.any([rt.signal, leave.signal]));
  try {
    return await m.manager.run(rt.signal, leadership);
  } finally {
    leave.abort();
    await membership;
    await m.manager.stop(STOP_GRACE_MS);
  }
}
