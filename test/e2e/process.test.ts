/**
 * The controller's process machinery assembled as a replica would run it, against the real
 * apiserver: configuration from flags, an ApplicationSet informer in every replica, probe and metrics
 * servers in every replica, Lease leader election, and the work queue and worker pool only in the
 * leader. Two replicas: both become ready (readiness does not depend on leadership), only the leader
 * reconciles, every AppSet is reconciled after a change, the metrics say who leads and how many
 * reconciles ran, and when the leader stops cleanly the standby takes over at once and reconciles
 * every AppSet again (level-triggered: the queue is filled from the cache, not from missed events).
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SystemClock } from "../../src/clock/index.js";
import { parseConfig, type Config } from "../../src/config/index.js";
import { WorkerPool, type Reconciler } from "../../src/manager/worker.js";
import { WorkQueue } from "../../src/manager/workqueue.js";
import { Informer, KubeApiClient, objectKey, resources, type KubeObject } from "../../src/kube/index.js";
import { LeaderElector } from "../../src/leader/index.js";
import { silentLogger } from "../../src/log/logger.js";
import { AppSetMetrics, ControllerMetrics, createMetricsRegistry } from "../../src/metrics/index.js";
import { metricsRoutes, probeRoutes, startHttpServer, type HttpEndpoint } from "../../src/server/index.js";

const { ApplicationSets, Namespaces } = resources;
const TIMINGS = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };

let client: KubeApiClient;
let ns: string;

beforeAll(async () => {
  client = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
  ns = `process-${randomBytes(3).toString("hex")}`;
  await client.create(Namespaces, { metadata: { name: ns } });
});

afterAll(async () => {
  await client.delete(Namespaces, { name: ns });
  await client.transport.close();
});

const appSet = (name: string, env: string): KubeObject => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "ApplicationSet",
  metadata: { name, namespace: ns },
  spec: {
    generators: [{ list: { elements: [{ env }] } }],
    template: {
      metadata: { name: "{{env}}-app" },
      spec: { project: "default", destination: { server: "https://kubernetes.default.svc", namespace: "x" } },
    },
  },
});

/** One controller replica: what the composition root will wire, with a reconciler that records keys. */
class Replica {
  readonly reconciled: string[] = [];
  private readonly stop = new AbortController();
  private readonly clock = new SystemClock();
  private readonly logger = silentLogger();
  private servers: HttpEndpoint[] = [];
  private informer!: Informer<KubeObject>;
  private elector!: LeaderElector;
  private ended: Promise<unknown> = Promise.resolve();
  config!: Config;
  probes!: HttpEndpoint;
  metricsServer!: HttpEndpoint;

  constructor(readonly id: string) {}

  async start(): Promise<void> {
    const parsed = parseConfig(
      ["--enable-leader-election", "-n", ns, "--probe-addr=127.0.0.1:0", "--metrics-addr=127.0.0.1:0", "--concurrent-reconciliations=2"],
      {},
    );
    if (parsed.kind !== "config") throw new Error(`config: ${JSON.stringify(parsed)}`);
    this.config = parsed.config;
    const registry = createMetricsRegistry({ processMetrics: false });
    const metrics = new ControllerMetrics({
      registry,
      maxConcurrentReconciles: this.config.concurrentReconciliations,
      leaseName: "appset-lease",
    });
    this.informer = new Informer<KubeObject>({
      source: client,
      resource: ApplicationSets,
      clock: this.clock,
      namespace: this.config.namespace,
    });
    new AppSetMetrics({ registry, list: () => this.informer.list(), namespaceAllowed: (n) => n === this.config.namespace });
    this.informer.start();
    const synced = {
      name: "informers",
      check: (): void => {
        if (!this.informer.hasSynced()) throw new Error("caches not synced");
      },
    };
    const serve = (addr: string, routes: Parameters<typeof startHttpServer>[0]["routes"], name: string): Promise<HttpEndpoint> =>
      startHttpServer({ addr, routes, logger: this.logger, clock: this.clock, name });
    this.probes = await serve(this.config.probeAddr, probeRoutes({ ready: [synced] }), "probes");
    this.metricsServer = await serve(this.config.metricsAddr, metricsRoutes(registry), "metrics");
    this.servers = [this.probes, this.metricsServer];
    this.elector = new LeaderElector({
      client,
      namespace: this.config.namespace,
      name: "appset-lease",
      identity: this.id,
      clock: this.clock,
      logger: this.logger,
      timings: TIMINGS,
      onStartedLeading: (signal) => this.lead(signal, metrics),
    });
    this.ended = this.elector.run(this.stop.signal);
  }

  /** Leader-only work: a queue filled from the informer, and the worker pool. */
  private lead(signal: AbortSignal, metrics: ControllerMetrics): void {
    const queue = new WorkQueue({ clock: this.clock, metrics });
    const reconciler: Reconciler = {
      reconcile: (key) => {
        this.reconciled.push(key);
        return Promise.resolve({});
      },
    };
    const pool = new WorkerPool({
      queue,
      reconciler,
      concurrency: this.config.concurrentReconciliations,
      clock: this.clock,
      logger: this.logger,
      metrics,
    });
    pool.start();
    const enqueue = (o: KubeObject): void => queue.add(objectKey(o));
    const off = this.informer.on({ add: enqueue, update: (_old, o) => enqueue(o), delete: enqueue });
    metrics.leading(true);
    signal.addEventListener(
      "abort",
      () => {
        off();
        metrics.leading(false);
        void pool.stop(5_000);
      },
      { once: true },
    );
  }

  isLeader(): boolean {
    return this.elector.isLeader();
  }

  async scrape(): Promise<string> {
    return (await fetch(`${this.metricsServer.url}/metrics`)).text();
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.ended;
    await Promise.all(this.servers.map((s) => s.close()));
    await this.informer.stop();
  }
}

async function eventually(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await ok())) {
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(50);
  }
}

const sorted = (keys: string[]): string[] => [...new Set(keys)].sort();

describe("controller replicas on a real control plane", () => {
  it("are both ready, reconcile only in the leader, and hand over on a clean stop", async () => {
    for (const n of ["a", "b", "c"]) await client.create(ApplicationSets, appSet(n, n));
    const keys = ["a", "b", "c"].map((n) => `${ns}/${n}`);
    const replicas = [new Replica("replica-1"), new Replica("replica-2")];
    for (const r of replicas) await r.start();
    try {
      for (const r of replicas) await eventually(`${r.id} ready`, async () => (await fetch(`${r.probes.url}/readyz`)).status === 200);
      await eventually("a leader", () => replicas.some((r) => r.isLeader()));
      const leader = replicas.find((r) => r.isLeader())!;
      const standby = replicas.find((r) => r !== leader)!;
      await eventually("the leader reconciled every AppSet", () => sorted(leader.reconciled).join() === keys.join());
      expect(standby.reconciled).toEqual([]);
      expect((await fetch(`${standby.probes.url}/healthz`)).status).toBe(200);

      const leaderMetrics = await leader.scrape();
      expect(leaderMetrics).toContain('leader_election_master_status{name="appset-lease"} 1');
      expect(leaderMetrics).toMatch(/controller_runtime_reconcile_total\{controller="applicationset",result="success"\} [3-9]/);
      const standbyMetrics = await standby.scrape();
      expect(standbyMetrics).toContain('leader_election_master_status{name="appset-lease"} 0');
      expect(standbyMetrics).toContain('controller_runtime_reconcile_total{controller="applicationset",result="success"} 0');
      expect(standbyMetrics).toContain(`argocd_appset_info{namespace="${ns}",name="b",resource_update_status="Unknown"} 1`);

      const before = leader.reconciled.length;
      await client.patch(
        ApplicationSets,
        { namespace: ns, name: "b" },
        { type: "merge", body: { metadata: { labels: { touched: "yes" } } } },
      );
      await eventually("the change reconciled", () => leader.reconciled.slice(before).includes(`${ns}/b`));

      const stoppedAt = performance.now();
      await leader.close();
      await eventually("the standby leads", () => standby.isLeader(), TIMINGS.leaseDurationMs);
      expect(performance.now() - stoppedAt).toBeLessThan(TIMINGS.leaseDurationMs);
      await eventually("the new leader reconciled every AppSet", () => sorted(standby.reconciled).join() === keys.join());
      expect(await standby.scrape()).toContain('leader_election_master_status{name="appset-lease"} 1');
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
  });
});
