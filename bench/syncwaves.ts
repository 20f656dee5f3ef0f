/**
 * Benchmark of the sync engine on the local control plane, against the floor of applying the same
 * objects directly (server-side apply, same client, waves in order, each wave in parallel):
 *   1. one Application of 200 resources (ConfigMaps, Secrets, Services) in 5 waves;
 *   2. 100 Applications of 10 resources in 2 waves, all syncing at once.
 * Prints wall times, the engine/floor ratio, and the resident memory of this process (which runs
 * the engine) sampled while the engine works, and the engine's requests by verb
 * (`argocd_app_k8s_request_total`).
 *   npx tsx bench/syncwaves.ts [--small] [--argocd]
 * `--small` runs 1 × 40 resources and 10 × 10 resources instead, to show the benchmark works.
 * `--argocd` (with `APPSET_ARGOCD_HOME`) then syncs the 200 resources in 5 waves with Argo CD's
 * application controller and ours side by side (bench/syncwaves-argocd.ts), on a control plane
 * with Argo CD's CRDs.
 */
import { randomBytes } from "node:crypto";
import type { Application } from "../src/api/index.js";
import { SystemClock } from "../src/clock/index.js";
import { Discovery, KubeApiClient, resources, type KubeObject, type ResourceDescriptor } from "../src/kube/index.js";
import { silentLogger } from "../src/log/logger.js";
import { Registry, SyncEngineMetrics } from "../src/metrics/index.js";
import { SyncEngine } from "../src/syncwaves/engine.js";
import { StaticManifestSource } from "../src/syncwaves/manifests.js";
import { argocdCrdDir } from "../test/argocd/support/argocd.js";
import { startControlPlane } from "../test/cluster/control-plane.js";
import { againstArgoCd } from "./syncwaves-argocd.js";

const clock = new SystemClock();
const REPO = "https://example.com/bench.git";

/** `count` objects spread evenly over `waves` waves, kinds rotating. */
function objects(count: number, waves: number): KubeObject[] {
  return Array.from({ length: count }, (_, i) => {
    const wave = Math.floor((i * waves) / count);
    const metadata = { name: `o${String(i)}`, annotations: { "argocd.argoproj.io/sync-wave": String(wave) } };
    switch (i % 3) {
      case 0:
        return { apiVersion: "v1", kind: "ConfigMap", metadata, data: { i: String(i) } };
      case 1:
        return { apiVersion: "v1", kind: "Secret", metadata, stringData: { i: String(i) } };
      default:
        return { apiVersion: "v1", kind: "Service", metadata, spec: { selector: { app: `o${String(i)}` }, ports: [{ port: 80 }] } };
    }
  });
}

function byWave(objs: readonly KubeObject[]): KubeObject[][] {
  const waves = new Map<string, KubeObject[]>();
  for (const o of objs) {
    const w = o.metadata?.annotations?.["argocd.argoproj.io/sync-wave"] ?? "0";
    waves.set(w, [...(waves.get(w) ?? []), o]);
  }
  return [...waves.entries()].sort((a, b) => Number(a[0]) - Number(b[0])).map(([, v]) => v);
}

/** The floor: every object server-side applied, waves in order, each wave in parallel. */
async function applyDirectly(
  client: KubeApiClient,
  resolve: (o: KubeObject) => Promise<ResourceDescriptor>,
  ns: string,
  objs: readonly KubeObject[],
): Promise<void> {
  for (const wave of byWave(objs)) {
    await Promise.all(
      wave.map(async (o) => {
        const body = { ...o, metadata: { ...o.metadata, namespace: ns } };
        await client.patch(
          await resolve(o),
          { namespace: ns, name: o.metadata?.name ?? "" },
          { type: "apply", body, fieldManager: "bench", force: true },
        );
      }),
    );
  }
}

async function namespace(client: KubeApiClient, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString("hex")}`;
  await client.create(resources.Namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

function app(name: string, appNs: string, destNs: string, path: string): Application {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: appNs },
    spec: {
      project: "default",
      destination: { server: "https://kubernetes.default.svc", namespace: destNs },
      source: { repoURL: REPO, path },
    },
    operation: { sync: {}, initiatedBy: { username: "bench" } },
  };
}

async function allSucceeded(client: KubeApiClient, appNs: string, count: number): Promise<void> {
  for (;;) {
    const list = await client.list<Application>(resources.Applications, { namespace: appNs });
    const done = list.items.filter((a) => a.operation === undefined && a.status?.operationState?.phase === "Succeeded").length;
    const failed = list.items.find((a) => a.status?.operationState?.phase === "Failed" || a.status?.operationState?.phase === "Error");
    if (failed) throw new Error(`${failed.metadata.name ?? ""}: ${failed.status?.operationState?.message ?? ""}`);
    if (done === count) return;
    await clock.sleep(50);
  }
}

/** Runs `fn` while sampling this process's RSS; returns the wall time and the peak RSS. */
async function measured(fn: () => Promise<void>): Promise<{ ms: number; peakMiB: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  const t0 = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  return { ms: performance.now() - t0, peakMiB: Math.max(peak, process.memoryUsage.rss()) / 2 ** 20 };
}

interface Scenario {
  readonly name: string;
  readonly apps: number;
  readonly perApp: number;
  readonly waves: number;
}

async function run(client: KubeApiClient, resolve: (o: KubeObject) => Promise<ResourceDescriptor>, s: Scenario): Promise<void> {
  const objs = objects(s.perApp, s.waves);
  const floorNs = await Promise.all(Array.from({ length: s.apps }, () => namespace(client, "floor")));
  const floor = await measured(() => Promise.all(floorNs.map((ns) => applyDirectly(client, resolve, ns, objs))).then(() => undefined));

  const source = new StaticManifestSource();
  source.set(
    REPO,
    s.name,
    objs.map((o, i) => ({ path: `${String(i).padStart(4, "0")}.json`, content: JSON.stringify(o) })),
  );
  const appNs = await namespace(client, "apps");
  const destNs = await Promise.all(Array.from({ length: s.apps }, () => namespace(client, "dest")));
  const registry = new Registry();
  let engine: SyncEngine | undefined = undefined;
  const metrics = new SyncEngineMetrics({ registry, list: () => engine?.applications() ?? [] });
  engine = new SyncEngine({
    watch: client,
    namespace: appNs,
    client,
    resolve,
    source,
    clock,
    log: silentLogger(),
    waveDelayMs: 0,
    metrics,
  });
  engine.start();
  const engineRun = await measured(async () => {
    await Promise.all(destNs.map((ns, i) => client.create(resources.Applications, app(`app-${String(i)}`, appNs, ns, s.name))));
    await allSucceeded(client, appNs, s.apps);
  });
  await engine.stop();
  const total = s.apps * s.perApp;
  console.log(
    `${s.name}: ${String(s.apps)} Application(s) × ${String(s.perApp)} resources in ${String(s.waves)} waves (${String(total)} objects)`,
  );
  console.log(`  floor (direct server-side apply) ${(floor.ms / 1000).toFixed(2)} s`);
  console.log(`  engine                           ${(engineRun.ms / 1000).toFixed(2)} s   ratio ${(engineRun.ms / floor.ms).toFixed(1)}×`);
  console.log(
    `  resident memory while syncing    peak ${engineRun.peakMiB.toFixed(0)} MiB (process total; ${floor.peakMiB.toFixed(0)} MiB during the floor)`,
  );
  console.log(`  engine requests to the cluster   ${await requestSummary(registry)} (the floor: ${String(total)} Patch)`);
}

/** `argocd_app_k8s_request_total` summed by verb, and the number of reconciles. */
async function requestSummary(registry: Registry): Promise<string> {
  const byVerb = new Map<string, number>();
  for (const v of (await registry.getSingleMetric("argocd_app_k8s_request_total")?.get())?.values ?? []) {
    const verb = String(v.labels["verb"]);
    byVerb.set(verb, (byVerb.get(verb) ?? 0) + v.value);
  }
  const reconciles =
    (await registry.getSingleMetric("argocd_app_reconcile")?.get())?.values.find(
      (v) => (v as { metricName?: string }).metricName === "argocd_app_reconcile_count",
    )?.value ?? 0;
  return `${[...byVerb].map(([verb, n]) => `${verb} ${String(n)}`).join(", ")}; ${String(reconciles)} reconciles`;
}

async function main(): Promise<void> {
  const withArgo = process.argv.includes("--argocd");
  const cp = await startControlPlane(withArgo ? { crdDir: argocdCrdDir() } : {});
  try {
    const client = KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath });
    const discovery = new Discovery(client.transport);
    const resolve = (o: KubeObject): Promise<ResourceDescriptor> => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? "");
    const small = process.argv.includes("--small");
    await run(client, resolve, { name: "one-app", apps: 1, perApp: small ? 40 : 200, waves: 5 });
    if (!process.argv.includes("--one")) await run(client, resolve, { name: "many-apps", apps: small ? 10 : 100, perApp: 10, waves: 2 });
    if (withArgo) await againstArgoCd(cp.kubeconfigPath, objects(small ? 40 : 200, 5), small ? 1 : 3);
  } finally {
    await cp.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
