/**
 * Benchmark of the ApplicationSet controller on the local control plane.
 *   npx tsx bench/controller.ts [apps=1000] [concurrency=10] [resyncSeconds=300] [bigApps=10000]
 *
 * 1. Floor: `apps` Application creates issued directly with the same client and concurrency.
 * 2. Controller: ApplicationSets with List generators (100 Applications each) producing `apps`
 *    Applications; the time until all exist and every ApplicationSet reports ResourcesUpToDate=True.
 *    Prints the ratio to the floor.
 * 3. Resident memory of the controller process at `apps` and at `bigApps` managed Applications.
 * 4. Writes issued during `resyncSeconds` of resyncs after convergence (every key re-queued every 10 s).
 */
import pLimit from "p-limit";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeApiClient, resources, type KubeObject } from "../src/kube/index.js";
import { startControlPlane } from "../test/cluster/control-plane.js";
import { CountingClient, inProcessController } from "./controller-client.js";

const PER_APPSET = 100;

function appSetObject(name: string, ns: string, count: number): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name, namespace: ns },
    spec: {
      generators: [{ list: { elements: Array.from({ length: count }, (_, i) => ({ n: `${name}-${String(i).padStart(4, "0")}` })) } }],
      template: {
        metadata: { name: "{{n}}" },
        spec: {
          project: "default",
          source: { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook", targetRevision: "HEAD" },
          destination: { server: "https://kubernetes.default.svc", namespace: "{{n}}" },
        },
      },
    },
  };
}

function appObject(name: string, ns: string): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: ns, finalizers: ["resources-finalizer.argocd.argoproj.io"] },
    spec: {
      project: "default",
      source: { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook", targetRevision: "HEAD" },
      destination: { server: "https://kubernetes.default.svc", namespace: name },
    },
  };
}

async function namespace(client: KubeApiClient, name: string): Promise<string> {
  await client.create(resources.Namespaces, { metadata: { name } });
  await client.create(resources.AppProjects, {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "AppProject",
    metadata: { name: "default", namespace: name },
    spec: { sourceRepos: ["*"] },
  });
  return name;
}

async function floor(client: KubeApiClient, apps: number, concurrency: number): Promise<number> {
  const ns = await namespace(client, "bench-floor");
  const limit = pLimit(concurrency);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: apps }, (_, i) =>
      limit(() => client.create(resources.Applications, appObject(`floor-${String(i).padStart(5, "0")}`, ns))),
    ),
  );
  return performance.now() - t0;
}

type Controller = ReturnType<typeof inProcessController>;

function converged(controller: Controller, ns: string, apps: number): boolean {
  if (controller.apps.list(ns).length < apps) return false;
  return controller.appSets.list(ns).every((s) => s.status?.conditions?.some((c) => c.type === "ResourcesUpToDate" && c.status === "True"));
}

async function createAppSets(client: KubeApiClient, ns: string, from: number, to: number): Promise<void> {
  const limit = pLimit(10);
  const names = Array.from({ length: (to - from) / PER_APPSET }, (_, i) => `set-${String(from / PER_APPSET + i).padStart(3, "0")}`);
  await Promise.all(names.map((n) => limit(() => client.create(resources.ApplicationSets, appSetObject(n, ns, PER_APPSET)))));
}

async function waitConverged(controller: Controller, ns: string, apps: number): Promise<void> {
  while (!converged(controller, ns, apps)) await sleep(50);
}

function rssMiB(): string {
  globalThis.gc?.();
  return (process.memoryUsage().rss / 2 ** 20).toFixed(0);
}

async function resyncWrites(controller: Controller, counting: CountingClient, ns: string, seconds: number): Promise<number> {
  counting.reset();
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    for (const s of controller.appSets.list(ns)) controller.queue.add(`${ns}/${s.metadata.name ?? ""}`);
    await sleep(Math.min(10_000, Math.max(0, end - performance.now())));
  }
  while (!controller.idle()) await sleep(50);
  return counting.writes.length;
}

async function main(): Promise<void> {
  const [apps = 1000, concurrency = 10, resyncSeconds = 300, bigApps = 10_000] = process.argv.slice(2).map(Number);
  const cp = await startControlPlane();
  const client = KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath });
  try {
    const floorMs = await floor(client, apps, concurrency);
    console.log(`floor: ${String(apps)} direct creates at concurrency ${String(concurrency)}: ${(floorMs / 1000).toFixed(2)} s`);
    const ns = await namespace(client, "bench-ctl");
    const counting = new CountingClient(KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath }));
    const controller = inProcessController(counting, {
      namespace: ns,
      concurrentApplicationUpdates: concurrency,
      concurrentReconciliations: 10,
      settings: { maxResourcesStatusCount: 5000 },
    });
    await controller.start();
    const t0 = performance.now();
    await createAppSets(client, ns, 0, apps);
    await waitConverged(controller, ns, apps);
    const ctlMs = performance.now() - t0;
    console.log(
      `controller: ${String(apps / PER_APPSET)} ApplicationSets -> ${String(apps)} Applications, all ResourcesUpToDate: ${(ctlMs / 1000).toFixed(2)} s`,
    );
    console.log(`ratio controller/floor: ${(ctlMs / floorMs).toFixed(2)} (aim <= 1.25); writes issued: ${String(counting.writes.length)}`);
    console.log(`resident memory at ${String(apps)} Applications: ${rssMiB()} MiB`);
    const writes = await resyncWrites(controller, counting, ns, resyncSeconds);
    console.log(`writes during ${String(resyncSeconds)} s of resyncs after convergence: ${String(writes)} (aim 0)`);
    if (bigApps > apps) {
      const t1 = performance.now();
      await createAppSets(client, ns, apps, bigApps);
      await waitConverged(controller, ns, bigApps);
      console.log(
        `grew to ${String(bigApps)} Applications in ${((performance.now() - t1) / 1000).toFixed(1)} s; resident memory: ${rssMiB()} MiB`,
      );
    }
    await controller.stop(5_000);
    await counting.inner.transport.close();
  } finally {
    await client.transport.close();
    await cp.stop();
  }
}

await main();
