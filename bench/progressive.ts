/**
 * Benchmark of progressive syncs on the local control plane: one RollingSync ApplicationSet with
 * three steps (dev, qa, prod; no maxUpdate, so each step syncs all at once) of `size` Applications
 * each, the controller (`--enable-progressive-syncs`, the CLI's default concurrencies) and the sync
 * engine in this process, manifests served from memory. Each round rolls a new revision out: round 1
 * from the Applications' creation, later rounds after a new revision is published and every
 * Application refreshed (as a Git webhook does). Measured from a watch on the Applications: the
 * controller's delay between a step's last Application becoming Synced and Healthy at the round's
 * revision and the next step's first sync operation written. Prints every delay, the median and the
 * worst (aim: under 1 s).
 *   npx tsx bench/progressive.ts [size=100] [rounds=3]
 */
import { randomBytes } from "node:crypto";
import type { Application } from "../src/api/index.js";
import { SystemClock } from "../src/clock/index.js";
import { Discovery, KubeApiClient, resources, type KubeObject, type ResourceDescriptor } from "../src/kube/index.js";
import { silentLogger } from "../src/log/logger.js";
import { SyncEngine } from "../src/syncwaves/engine.js";
import { StaticManifestSource } from "../src/syncwaves/manifests.js";
import { startControlPlane } from "../test/cluster/control-plane.js";
import { CountingClient, inProcessController } from "./controller-client.js";

const REPO = "https://example.com/guestbook.git";
const ENVS = ["dev", "qa", "prod"] as const;
const clock = new SystemClock();

const names = (size: number): Array<{ name: string; env: string }> =>
  ENVS.flatMap((env) => Array.from({ length: size }, (_, i) => ({ name: `${env}-${String(i).padStart(3, "0")}`, env })));

function appSet(ns: string, size: number): KubeObject {
  const steps = ENVS.map((env) => ({ matchExpressions: [{ key: "env", operator: "In", values: [env] }] }));
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "bench", namespace: ns },
    spec: {
      generators: [{ list: { elements: names(size) } }],
      strategy: { type: "RollingSync", rollingSync: { steps } },
      template: {
        metadata: { name: "{{name}}", labels: { env: "{{env}}" } },
        spec: {
          project: "default",
          source: { repoURL: REPO, path: "apps/{{name}}" },
          destination: { server: "https://kubernetes.default.svc", namespace: ns },
        },
      },
    },
  };
}

/** Publishes `revision` of every Application's manifests: one ConfigMap each. */
function publish(source: StaticManifestSource, size: number, revision: string): void {
  for (const { name } of names(size)) {
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { revision } };
    source.set(REPO, `apps/${name}`, [{ path: "cm.json", content: JSON.stringify(cm) }], revision);
  }
}

/** First time each Application was seen settled at a revision, and first time it got a sync pinned to one. */
class Timeline {
  readonly settled = new Map<string, number>();
  readonly synced = new Map<string, number>();
  readonly promoted = new Map<string, number>();

  /** Records the first time each `applicationStatus` entry shows Pending at its revision. */
  observeSet(
    set: { status?: { applicationStatus?: Array<{ application: string; status: string; targetRevisions?: string[] }> } },
    at: number,
  ): void {
    for (const e of set.status?.applicationStatus ?? []) {
      const key = `${e.application}@${e.targetRevisions?.[0] ?? ""}`;
      if (e.status === "Pending" && !this.promoted.has(key)) this.promoted.set(key, at);
    }
  }

  observe(app: Application, at: number): void {
    const name = app.metadata.name ?? "";
    const s = app.status;
    const rev = s?.sync?.revision ?? "";
    if (
      app.operation === undefined &&
      s?.sync?.status === "Synced" &&
      s.health?.status === "Healthy" &&
      !this.settled.has(`${name}@${rev}`)
    )
      this.settled.set(`${name}@${rev}`, at);
    const pinned = app.operation?.sync?.revision;
    if (pinned !== undefined && !this.synced.has(`${name}@${pinned}`)) this.synced.set(`${name}@${pinned}`, at);
  }

  /** Delays (ms) from each step's last settled Application to the next step's first sync, at `revision`. */
  delays(size: number, revision: string): Array<{ total: number; promoted: number }> | undefined {
    const byEnv = (env: string, m: Map<string, number>): number[] | undefined => {
      const ts = names(size)
        .filter((n) => n.env === env)
        .map((n) => m.get(`${n.name}@${revision}`));
      const known = ts.filter((t) => t !== undefined);
      return known.length === ts.length ? known : undefined;
    };
    const out: Array<{ total: number; promoted: number }> = [];
    for (let k = 0; k + 1 < ENVS.length; k++) {
      const done = byEnv(ENVS[k]!, this.settled);
      const next = byEnv(ENVS[k + 1]!, this.synced);
      const promoted = byEnv(ENVS[k + 1]!, this.promoted);
      if (done === undefined || next === undefined || promoted === undefined) return undefined;
      const last = Math.max(...done);
      out.push({ total: Math.min(...next) - last, promoted: Math.min(...promoted) - last });
    }
    return byEnv("prod", this.settled) === undefined ? undefined : out;
  }
}

/** Runs `fn`, retrying while a fresh apiserver answers 429 ("storage is (re)initializing"). */
async function startupRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if ((err as { status?: number }).status !== 429 || attempt >= 60) throw err;
      await clock.sleep(500);
    }
  }
}

/** Hands every added or modified object of `resource` in `ns` to `on`, until `signal` aborts. */
async function watchAll(
  client: KubeApiClient,
  resource: ResourceDescriptor,
  ns: string,
  on: (o: KubeObject) => void,
  signal: AbortSignal,
): Promise<void> {
  let rv = (await startupRetry(() => client.list(resource, { namespace: ns }))).resourceVersion;
  while (!signal.aborted) {
    await client
      .watch(resource, { namespace: ns, resourceVersion: rv, timeoutSeconds: 300, signal }, (e) => {
        rv = e.object.metadata?.resourceVersion ?? rv;
        if (e.type === "ADDED" || e.type === "MODIFIED") on(e.object);
      })
      .catch((err: unknown) => {
        if (!signal.aborted) throw err;
      });
  }
}

async function rolledOut(
  timeline: Timeline,
  size: number,
  revision: string,
  timeoutMs: number,
): Promise<Array<{ total: number; promoted: number }>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const d = timeline.delays(size, revision);
    if (d !== undefined) return d;
    if (performance.now() > deadline) throw new Error(`revision ${revision} not rolled out in ${String(timeoutMs / 1000)} s`);
    await clock.sleep(100);
  }
}

async function refreshAll(client: KubeApiClient, ns: string, size: number): Promise<void> {
  const body = { metadata: { annotations: { "argocd.argoproj.io/refresh": "normal" } } };
  for (const { name } of names(size)) await client.patch(resources.Applications, { namespace: ns, name }, { type: "merge", body });
}

const fmt = (ms: number): string => `${(ms / 1000).toFixed(3)} s`;

async function main(): Promise<void> {
  const [size = 100, rounds = 3] = process.argv.slice(2).map(Number);
  const cp = await startControlPlane();
  const client = KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath });
  const stop = new AbortController();
  try {
    const ns = `bench-ps-${randomBytes(3).toString("hex")}`;
    await client.create(resources.Namespaces, { metadata: { name: ns } });
    await client.create(resources.AppProjects, {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "AppProject",
      metadata: { name: "default", namespace: ns },
      spec: { sourceRepos: ["*"], destinations: [{ server: "*", namespace: "*" }], clusterResourceWhitelist: [{ group: "*", kind: "*" }] },
    });
    const source = new StaticManifestSource();
    const discovery = new Discovery(client.transport);
    const engine = new SyncEngine({
      watch: client,
      namespace: ns,
      client,
      resolve: (o) => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? ""),
      source,
      clock,
      log: silentLogger(),
      waveDelayMs: 0,
    });
    const counting = new CountingClient(KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath }));
    const controller = inProcessController(counting, {
      namespace: ns,
      settings: { progressiveSyncs: true },
      concurrentReconciliations: 10,
      concurrentApplicationUpdates: 1,
    });
    const timeline = new Timeline();
    const watching = Promise.all([
      watchAll(client, resources.Applications, ns, (o) => timeline.observe(o as unknown as Application, performance.now()), stop.signal),
      watchAll(client, resources.ApplicationSets, ns, (o) => timeline.observeSet(o as never, performance.now()), stop.signal),
    ]);
    engine.start();
    await controller.start();
    const all: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const revision = `r${String(round)}-${randomBytes(8).toString("hex")}`;
      publish(source, size, revision);
      const t0 = performance.now();
      if (round === 1) await client.create(resources.ApplicationSets, appSet(ns, size));
      else await refreshAll(client, ns, size);
      const delays = await rolledOut(timeline, size, revision, 600_000);
      all.push(...delays.map((d) => d.total));
      const show = (d: { total: number; promoted: number }): string => `${fmt(d.total)} (promoted after ${fmt(d.promoted)})`;
      console.log(
        `round ${String(round)}: 3 × ${String(size)} Applications rolled out in ${fmt(performance.now() - t0)}; dev→qa ${show(delays[0]!)}, qa→prod ${show(delays[1]!)}`,
      );
    }
    const sorted = [...all].sort((a, b) => a - b);
    const median =
      sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
    console.log(
      `delay from a step's last Healthy Application to the next step's first sync: median ${fmt(median)}, worst ${fmt(sorted.at(-1)!)} over ${String(all.length)} step boundaries (aim < 1 s)`,
    );
    stop.abort();
    await watching;
    await controller.stop(5_000);
    await engine.stop();
    await counting.inner.transport.close();
  } finally {
    stop.abort();
    await client.transport.close();
    await cp.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
