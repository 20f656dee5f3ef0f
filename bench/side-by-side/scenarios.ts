/**
 * The runs of the side-by-side benchmark, each in a fresh namespace with a fresh controller process:
 * the floor (the Applications created directly), a fan-out (one ApplicationSet of N, or N/100 of
 * 100), and a cluster Secret change among 1,000 Cluster ApplicationSets. Each run returns what it
 * measured; the namespace is deleted after it (the controller first).
 */
import pLimit from "p-limit";
import { setTimeout as sleep } from "node:timers/promises";
import { isNotFound, resources, type KubeApiClient, type KubeObject } from "../../src/kube/index.js";
import { startSide, type RunningSide, type Side, type SideSettings } from "./controllers.js";
import { argoRequests, procSample, requestDelta, watchApps, type RequestCounts } from "./measure.js";
import { clusterAppSet, clusterSecret, defaultProject, ENV_LABEL, floorApp, listAppSet, numbered } from "./objects.js";

/** Where the runs go. */
export interface BenchEnv {
  readonly client: KubeApiClient;
  readonly server: string;
  readonly token: string;
  readonly settings: SideSettings;
}

/** What one run measured. */
export interface Measured {
  /** Seconds to the last Application (or, for a Secret change, the last updated one). */
  readonly seconds: number;
  /** Seconds to the first Application (fan-outs). */
  readonly firstSeconds?: number;
  /** Seconds until every ApplicationSet said ResourcesUpToDate=True (fan-outs). */
  readonly statusSeconds?: number;
  /** Writes and reads of `argoproj.io` the controller sent (the benchmark's own subtracted). */
  readonly writes: number;
  readonly reads: number;
  /** Requests the Git server served (Git runs). */
  readonly gitRequests?: number;
  readonly startRssMiB?: number;
  readonly hwmMiB?: number;
  readonly settledRssMiB?: number;
  readonly cpuSeconds?: number;
  /** CPU of the Git work outside the controller: Argo CD's repo-server, or our git processes (Git runs). */
  readonly gitCpuSeconds?: number;
}

let serial = 0;

/** A fresh namespace with the `default` AppProject. */
export async function freshNamespace(env: BenchEnv, prefix: string): Promise<string> {
  const ns = `${prefix}-${String(++serial)}-${String(process.pid % 1000)}`;
  await env.client.create(resources.Namespaces, { metadata: { name: ns } });
  await env.client.create(resources.AppProjects, defaultProject(ns));
  return ns;
}

/**
 * Deletes `ns` and waits until it is gone, then until the garbage collector is done with it. Both
 * controllers give their Applications Argo CD's resources finalizer, which only an application
 * controller removes, and none runs here: the finalizers are dropped first (the controller that
 * wrote them has stopped).
 */
export async function dropNamespace(env: BenchEnv, ns: string): Promise<void> {
  const apps = await env.client.list(resources.Applications, { namespace: ns });
  const limit = pLimit(8);
  await Promise.all(
    apps.items
      .filter((a) => (a.metadata?.finalizers ?? []).length > 0)
      .map((a) =>
        limit(() =>
          env.client
            .patch(
              resources.Applications,
              { namespace: ns, name: a.metadata?.name ?? "" },
              { type: "merge", body: { metadata: { finalizers: null } } },
            )
            .catch(() => undefined),
        ),
      ),
  );
  await env.client.delete(resources.Namespaces, { name: ns }).catch(() => undefined);
  const deadline = performance.now() + 900_000;
  while (performance.now() < deadline) {
    try {
      await env.client.get(resources.Namespaces, { name: ns });
    } catch (err) {
      if (isNotFound(err)) return gcQuiet(env);
    }
    await sleep(500);
  }
  throw new Error(`namespace ${ns} was not deleted within 15 min`);
}

/** How long the garbage collector must have sent no `argoproj.io` GET for its queue to count as drained. */
const GC_QUIET_MS = 3_000;

/**
 * Waits until the apiserver has served no `argoproj.io` GET for {@link GC_QUIET_MS}. The namespace
 * is gone before the garbage collector has worked through the owner references of the Applications
 * deleted with it: it reads each one (thousands of GETs after a large run), and a run measured
 * meanwhile would share the apiserver with that backlog. Nothing else sends such GETs between runs.
 */
async function gcQuiet(env: BenchEnv): Promise<void> {
  const gets = async (): Promise<number> => (await argoRequests(env.server, env.token))["GET"] ?? 0;
  const deadline = performance.now() + 900_000;
  let last = await gets();
  let quietSince = performance.now();
  while (performance.now() < deadline) {
    await sleep(500);
    const now = await gets();
    if (now !== last) [last, quietSince] = [now, performance.now()];
    else if (performance.now() - quietSince >= GC_QUIET_MS) return;
  }
  throw new Error("the garbage collector still read argoproj.io objects 15 min after the namespace was deleted");
}

const budgetMs = (apps: number): number => 120_000 + apps * 60;

/**
 * `size` Applications created directly, `concurrency` at a time (1: one after the other): the objects
 * the fan-out's controller creates, owned by the fan-out's ApplicationSet (created first; no
 * controller runs). Timed as a fan-out is: until the benchmark's watch has seen the last one added,
 * with that watch open (the apiserver serves it, this process reads it) as it is in a fan-out. Its
 * CPU is this process's own over that time: the client's side of the creates and the watch's reading.
 */
export async function floor(env: BenchEnv, size: number, concurrency: number): Promise<Measured> {
  const ns = await freshNamespace(env, "floor");
  const owner = await env.client.create(resources.ApplicationSets, listAppSet(numbered("s", 0), ns, "a", 0, size));
  const watch = await watchApps(env.client, ns);
  const before = await argoRequests(env.server, env.token);
  const limit = pLimit(concurrency);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: size }, (_, i) => limit(() => env.client.create(resources.Applications, floorApp(numbered("a", i), ns, owner)))),
  );
  const tApps = await watch.added(size, budgetMs(size));
  const cpu = process.cpuUsage(cpu0);
  watch.stop();
  const d = requestDelta(before, await argoRequests(env.server, env.token));
  await dropNamespace(env, ns);
  return { seconds: (tApps - t0) / 1000, writes: d.writes - size, reads: d.reads, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

/**
 * Resolves once `count` ApplicationSets of `ns` say ResourcesUpToDate=True: when (ms), and how many
 * LISTs it sent (the benchmark's own reads, subtracted from the controller's).
 */
export async function allUpToDate(env: BenchEnv, ns: string, count: number, timeoutMs: number): Promise<{ at: number; lists: number }> {
  const deadline = performance.now() + timeoutMs;
  const upToDate = (s: KubeObject): boolean =>
    ((s["status"] as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).some(
      (c) => c.type === "ResourcesUpToDate" && c.status === "True",
    );
  let lists = 0;
  while (performance.now() < deadline) {
    const sets = await env.client.list(resources.ApplicationSets, { namespace: ns });
    lists++;
    if (sets.items.length >= count && sets.items.every(upToDate)) return { at: performance.now(), lists };
    await sleep(250);
  }
  throw new Error(`ApplicationSets of ${ns} not ResourcesUpToDate within ${String(timeoutMs)} ms`);
}

async function createAll(env: BenchEnv, objects: readonly KubeObject[], r: typeof resources.ApplicationSets): Promise<void> {
  const limit = pLimit(4);
  await Promise.all(objects.map((o) => limit(() => env.client.create(r, o))));
}

/** A controller kept running after its run (for the idle measure), with its namespace. */
export interface Kept {
  readonly running: RunningSide;
  readonly namespace: string;
}

/** One fan-out to `size` Applications: one ApplicationSet (`perSet` = size) or size/perSet of them. */
export async function fanOut(env: BenchEnv, side: Side, size: number, perSet: number, keep?: (k: Kept) => void): Promise<Measured> {
  const ns = await freshNamespace(env, `fan-${side}`);
  const running = await startSide(side, ns, env.settings);
  await sleep(2_000);
  const start = procSample(running.pid);
  const sets = Array.from({ length: Math.ceil(size / perSet) }, (_, j) =>
    listAppSet(numbered("s", j), ns, "a", j * perSet, Math.min(size, (j + 1) * perSet)),
  );
  const watch = await watchApps(env.client, ns);
  const before: RequestCounts = await argoRequests(env.server, env.token);
  const t0 = performance.now();
  await createAll(env, sets, resources.ApplicationSets);
  const tFirst = await watch.added(1, budgetMs(size));
  const tApps = await watch.added(size, budgetMs(size));
  const { at: tStatus, lists } = await allUpToDate(env, ns, sets.length, budgetMs(size));
  const at = procSample(running.pid);
  const d = requestDelta(before, await argoRequests(env.server, env.token));
  watch.stop();
  await sleep(10_000);
  const settled = procSample(running.pid);
  if (keep !== undefined) keep({ running, namespace: ns });
  else {
    await running.stop();
    await dropNamespace(env, ns);
  }
  return {
    seconds: (tApps - t0) / 1000,
    firstSeconds: (tFirst - t0) / 1000,
    statusSeconds: (tStatus - t0) / 1000,
    // The benchmark's own: the ApplicationSet creates and its status LISTs.
    writes: d.writes - sets.length,
    reads: d.reads - lists,
    startRssMiB: start.rssMiB,
    hwmMiB: at.hwmMiB,
    settledRssMiB: settled.rssMiB,
    cpuSeconds: at.cpuSeconds - start.cpuSeconds,
  };
}

/** Cluster Secrets, groups of them, and Cluster ApplicationSets of the Secret-change run. */
const CLUSTERS = 200;
const CLUSTER_SETS = 1_000;
/** How long after the last updated Application the writes and CPU are still counted. */
const TAIL_MS = 15_000;

/**
 * 1,000 Cluster ApplicationSets over 200 cluster Secrets (five per Secret); one Secret's label
 * changes: the time until its five Applications carry it, and the writes and CPU of the change.
 */
export async function clusterChange(env: BenchEnv, side: Side): Promise<Measured> {
  const ns = await freshNamespace(env, `clu-${side}`);
  await createAll(
    env,
    Array.from({ length: CLUSTERS }, (_, i) => clusterSecret(ns, i, "before")),
    resources.Secrets,
  );
  const running = await startSide(side, ns, env.settings);
  const watch = await watchApps(env.client, ns);
  await createAll(
    env,
    Array.from({ length: CLUSTER_SETS }, (_, j) => clusterAppSet(ns, j, CLUSTERS)),
    resources.ApplicationSets,
  );
  await watch.added(CLUSTER_SETS, budgetMs(CLUSTER_SETS));
  await allUpToDate(env, ns, CLUSTER_SETS, budgetMs(CLUSTER_SETS));
  await sleep(5_000);
  const start = procSample(running.pid);
  const before = await argoRequests(env.server, env.token);
  const t0 = performance.now();
  const changed = clusterSecret(ns, 7, "after");
  await env.client.patch(
    resources.Secrets,
    { namespace: ns, name: changed.metadata!.name! },
    {
      type: "merge",
      body: { metadata: { labels: { [ENV_LABEL]: "after" } } },
    },
  );
  const t1 = await watch.labelled(ENV_LABEL, "after", CLUSTER_SETS / CLUSTERS, 120_000);
  await sleep(TAIL_MS);
  const end = procSample(running.pid);
  const d = requestDelta(before, await argoRequests(env.server, env.token));
  watch.stop();
  await running.stop();
  await dropNamespace(env, ns);
  return { seconds: (t1 - t0) / 1000, writes: d.writes, reads: d.reads, cpuSeconds: end.cpuSeconds - start.cpuSeconds };
}
