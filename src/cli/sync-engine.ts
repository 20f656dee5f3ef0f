/**
 * The sync engine as the process runs it: inside `appset controller` with `--enable-sync-engine`, or
 * alone as `appset sync-engine` (same flags, logging, probes and leader election, on a Lease of its
 * own). It syncs the Applications of the controller's namespace (every namespace when
 * ApplicationSets in other namespaces are allowed), reads their manifests from Git with the
 * repository Secrets' credentials, and reaches destinations through cluster Secrets.
 */
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../clock/index.js";
import type { Config, Env } from "../config/index.js";
import { portsFromKubeReader } from "../generators/object-ports.js";
import { baseGitEnv, credentialsFromSecrets, GitRepoReader, type CredentialsLookup } from "../git/index.js";
import { Discovery, KubeApiClient, type KubeObject } from "../kube/index.js";
import { LeaderElector, newIdentity } from "../leader/index.js";
import type { Logger } from "../log/logger.js";
import { createRegistry, SyncEngineMetrics, type Registry } from "../metrics/index.js";
import { metricsRoutes, probeRoutes, startHttpServer } from "../server/index.js";
import { ClusterSecretDestinations } from "../syncwaves/destinations.js";
import { SyncEngine } from "../syncwaves/engine.js";
import { GitManifestSource } from "../syncwaves/git-source.js";
import { controllerNamespace, kubeSource } from "./controller.js";
import { runProcess, untilAborted, type ControllerIO } from "./process.js";

/** The Lease the stand-alone sync engine elects its leader on. */
export const SYNC_ENGINE_LEASE_NAME = "appset-sync-engine.argoproj.io";

/** A positive number of seconds, in ms; unset, empty, invalid or ≤ 0 → undefined. */
function positiveSecondsMs(raw: string | undefined): number | undefined {
  const seconds = raw === undefined || raw.trim() === "" ? 0 : Number(raw);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

/** `ARGOCD_SYNC_WAVE_DELAY` (seconds) in ms; unset or invalid → 0 (we gate waves on observed health). */
export function waveDelayMs(env: Env): number {
  return positiveSecondsMs(env["ARGOCD_SYNC_WAVE_DELAY"]) ?? 0;
}

/**
 * `APPSET_SYNC_DEADLINE_SECONDS`: the per-sync deadline (beyond Argo CD) in ms. A sync still
 * running this long after it started fails with "sync deadline of Ns exceeded". Unset → none.
 */
export function syncDeadlineMs(env: Env): number | undefined {
  return positiveSecondsMs(env["APPSET_SYNC_DEADLINE_SECONDS"]);
}

/** What the engine is built from. */
export interface SyncEngineDeps {
  readonly config: Config;
  readonly env: Env;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly client: KubeApiClient;
  /** The controller's namespace (Argo CD's namespace: cluster Secrets live there). */
  readonly namespace: string;
  readonly credentials: CredentialsLookup;
  /** Where the engine's Argo CD application metrics are registered (none when absent). */
  readonly registry?: Registry;
}

/** Builds (does not start) the sync engine; its metrics go to `d.registry`. */
export function buildSyncEngine(d: SyncEngineDeps): SyncEngine {
  const discovery = new Discovery(d.client.transport);
  const resolve = (o: KubeObject): ReturnType<Discovery["resourceFor"]> => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? "");
  const local = { id: "local", client: d.client, resolve };
  const git = new GitRepoReader({ cacheDir: join(tmpdir(), "appset-git-cache"), env: baseGitEnv(d.env), credentials: d.credentials });
  const allNamespaces = d.config.applicationSetNamespaces.length > 0;
  const deadlineMs = syncDeadlineMs(d.env);
  const metrics = d.registry !== undefined ? new SyncEngineMetrics({ registry: d.registry, list: () => engine.applications() }) : undefined;
  const engine: SyncEngine = new SyncEngine({
    watch: d.client,
    ...(allNamespaces ? {} : { namespace: d.namespace }),
    client: d.client,
    resolve,
    source: new GitManifestSource(git),
    clock: d.clock,
    log: d.logger.child({ component: "sync-engine" }),
    destinations: new ClusterSecretDestinations({ local, namespace: d.namespace, clock: d.clock }),
    waveDelayMs: waveDelayMs(d.env),
    ...(metrics !== undefined ? { metrics } : {}),
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
  });
  return engine;
}

/** Runs `appset sync-engine ARGS` (the controller's flags); resolves to the exit code. */
export function syncEngineCommand(args: readonly string[], io: ControllerIO): Promise<number> {
  return runProcess({ command: "appset sync-engine", title: "sync engine" }, args, io, async (rt) => {
    const { config, logger, clock } = rt;
    const client = KubeApiClient.fromConfig(kubeSource(config), { fieldManager: "argocd-controller" });
    const namespace = controllerNamespace(config, rt.env);
    const credentials = credentialsFromSecrets(await portsFromKubeReader(client, namespace).allSecrets().catch(() => []));
    const registry = createRegistry({ processMetrics: true });
    const engine = buildSyncEngine({ ...rt, client, namespace, credentials, registry });
    const servers = [
      await startHttpServer({ addr: config.probeAddr, routes: probeRoutes({ ready: [] }), logger, clock, name: "probe" }),
      await startHttpServer({ addr: config.metricsAddr, routes: metricsRoutes(registry), logger, clock, name: "metrics" }),
    ];
    logger.info({ namespace, probe: servers[0]!.url, metrics: servers[1]!.url }, "sync engine starting");
    const end = await runEngine(engine, { config, client, namespace, logger, clock }, rt.signal);
    await engine.stop();
    await Promise.all(servers.map((srv) => srv.close()));
    await client.transport.close();
    return end;
  });
}

async function runEngine(
  engine: SyncEngine,
  d: { config: Config; client: KubeApiClient; namespace: string; logger: Logger; clock: Clock },
  signal: AbortSignal,
): Promise<"stopped" | "lost"> {
  if (!d.config.enableLeaderElection) {
    engine.start();
    await untilAborted(signal);
    return "stopped";
  }
  const elector = new LeaderElector({
    client: d.client,
    namespace: d.namespace,
    name: SYNC_ENGINE_LEASE_NAME,
    identity: newIdentity(hostname()),
    clock: d.clock,
    logger: d.logger,
    onStartedLeading: () => engine.start(),
  });
  return elector.run(signal);
}
