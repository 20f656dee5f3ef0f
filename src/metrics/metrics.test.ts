import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { WorkerPool, type WorkerMetrics } from "../manager/worker.js";
import { WorkQueue, type QueueMetrics } from "../manager/workqueue.js";
import { TerminalError } from "../errors.js";
import { silentLogger } from "../log/logger.js";
import {
  AppSetMetrics,
  ControllerMetrics,
  createMetricsRegistry,
  labelMetricName,
  Registry,
  RestClientMetrics,
  WORKQUEUE_BUCKETS,
  type AppSetMetricsView,
} from "./index.js";

/** The exposition lines of one metric family, without HELP/TYPE. */
async function lines(registry: Registry, name: string): Promise<string[]> {
  const text = await registry.getSingleMetricAsString(name);
  return text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
}

describe("ControllerMetrics", () => {
  it("exports every reconcile result, the error counters and the queue at 0 before any reconcile", async () => {
    const registry = new Registry();
    new ControllerMetrics({ registry, maxConcurrentReconciles: 10, leaseName: "58ac56fa.applicationsets.argoproj.io" });
    expect(await lines(registry, "controller_runtime_reconcile_total")).toEqual([
      'controller_runtime_reconcile_total{controller="applicationset",result="success"} 0',
      'controller_runtime_reconcile_total{controller="applicationset",result="error"} 0',
      'controller_runtime_reconcile_total{controller="applicationset",result="requeue"} 0',
      'controller_runtime_reconcile_total{controller="applicationset",result="requeue_after"} 0',
    ]);
    expect(await lines(registry, "controller_runtime_reconcile_errors_total")).toEqual([
      'controller_runtime_reconcile_errors_total{controller="applicationset"} 0',
    ]);
    expect(await lines(registry, "controller_runtime_max_concurrent_reconciles")).toEqual([
      'controller_runtime_max_concurrent_reconciles{controller="applicationset"} 10',
    ]);
    expect(await lines(registry, "workqueue_depth")).toEqual(['workqueue_depth{name="applicationset",controller="applicationset"} 0']);
    expect(await lines(registry, "leader_election_master_status")).toEqual([
      'leader_election_master_status{name="58ac56fa.applicationsets.argoproj.io"} 0',
    ]);
  });

  it("serves two loops of one process on one registry, each under its own controller and queue name", async () => {
    const registry = new Registry();
    const appsets = new ControllerMetrics({ registry, controller: "applicationset", maxConcurrentReconciles: 10, leaseName: "lease" });
    const engine = new ControllerMetrics({ registry, controller: "sync-engine", maxConcurrentReconciles: 4 });
    appsets.reconciled({ result: "success", terminal: false, seconds: 0.1 });
    engine.reconciled({ result: "requeue", terminal: false, seconds: 0.2 });
    engine.depth(3);
    const totals = await lines(registry, "controller_runtime_reconcile_total");
    expect(totals).toContain('controller_runtime_reconcile_total{controller="applicationset",result="success"} 1');
    expect(totals).toContain('controller_runtime_reconcile_total{controller="sync-engine",result="requeue"} 1');
    expect(totals).toContain('controller_runtime_reconcile_total{controller="sync-engine",result="success"} 0');
    expect(await lines(registry, "controller_runtime_max_concurrent_reconciles")).toEqual([
      'controller_runtime_max_concurrent_reconciles{controller="applicationset"} 10',
      'controller_runtime_max_concurrent_reconciles{controller="sync-engine"} 4',
    ]);
    expect(await lines(registry, "workqueue_depth")).toEqual([
      'workqueue_depth{name="applicationset",controller="applicationset"} 0',
      'workqueue_depth{name="sync-engine",controller="sync-engine"} 3',
    ]);
    expect(await lines(registry, "leader_election_master_status")).toEqual(['leader_election_master_status{name="lease"} 0']);
  });

  it("exports the panics counter at 0 before any reconcile", async () => {
    const registry = new Registry();
    new ControllerMetrics({ registry, maxConcurrentReconciles: 1 });
    expect(await lines(registry, "controller_runtime_reconcile_panics_total")).toEqual([
      'controller_runtime_reconcile_panics_total{controller="applicationset"} 0',
    ]);
  });

  it("counts Kubernetes requests by code, host and method as client-go does", async () => {
    const registry = new Registry();
    const rest = new RestClientMetrics(registry);
    rest.observe({ code: "200", host: "10.0.0.1:6443", method: "GET" });
    rest.observe({ code: "200", host: "10.0.0.1:6443", method: "GET" });
    new RestClientMetrics(registry).observe({ code: "<error>", host: "10.0.0.1:6443", method: "PATCH" });
    expect(await lines(registry, "rest_client_requests_total")).toEqual([
      'rest_client_requests_total{code="200",host="10.0.0.1:6443",method="GET"} 2',
      'rest_client_requests_total{code="<error>",host="10.0.0.1:6443",method="PATCH"} 1',
    ]);
  });

  it("uses client-go's workqueue buckets from 10 ns to 1000 s", () => {
    expect(WORKQUEUE_BUCKETS).toEqual([1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000]);
  });

  it("counts what the worker pool and the queue report through their ports", async () => {
    const registry = new Registry();
    const metrics = new ControllerMetrics({ registry, maxConcurrentReconciles: 2 });
    const ports: WorkerMetrics & QueueMetrics = metrics;
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock, metrics: ports });
    const outcomes: Record<string, () => Promise<{ requeueAfterMs?: number }>> = {
      "ns/ok": () => Promise.resolve({}),
      "ns/later": () => Promise.resolve({ requeueAfterMs: 60_000 }),
      "ns/fail": () => Promise.reject(new Error("boom")),
      "ns/bad": () => Promise.reject(new TerminalError(new Error("invalid"))),
      "ns/panic": () => {
        const missing = undefined as unknown as { spec: { generators: unknown[] } };
        return Promise.resolve(missing.spec.generators.length).then(() => ({}));
      },
    };
    const pool = new WorkerPool({
      queue,
      reconciler: { reconcile: (key) => outcomes[key]!() },
      concurrency: 2,
      clock,
      logger: silentLogger(),
      metrics: ports,
    });
    pool.start();
    for (const key of Object.keys(outcomes)) queue.add(key);
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(await lines(registry, "controller_runtime_reconcile_total")).toEqual([
      'controller_runtime_reconcile_total{controller="applicationset",result="success"} 1',
      'controller_runtime_reconcile_total{controller="applicationset",result="error"} 3',
      'controller_runtime_reconcile_total{controller="applicationset",result="requeue"} 0',
      'controller_runtime_reconcile_total{controller="applicationset",result="requeue_after"} 1',
    ]);
    expect(await lines(registry, "controller_runtime_reconcile_errors_total")).toEqual([
      'controller_runtime_reconcile_errors_total{controller="applicationset"} 3',
    ]);
    // Only the TypeError counts as a panic (recovered: the pool goes on and retries the key).
    expect(await lines(registry, "controller_runtime_reconcile_panics_total")).toEqual([
      'controller_runtime_reconcile_panics_total{controller="applicationset"} 1',
    ]);
    expect(await lines(registry, "controller_runtime_terminal_reconcile_errors_total")).toEqual([
      'controller_runtime_terminal_reconcile_errors_total{controller="applicationset"} 1',
    ]);
    expect(await lines(registry, "workqueue_adds_total")).toEqual([
      'workqueue_adds_total{name="applicationset",controller="applicationset"} 5',
    ]);
    expect(await lines(registry, "workqueue_retries_total")).toEqual([
      'workqueue_retries_total{name="applicationset",controller="applicationset"} 2',
    ]);
    expect(await lines(registry, "controller_runtime_active_workers")).toEqual([
      'controller_runtime_active_workers{controller="applicationset"} 0',
    ]);
    await pool.stop(0);
  });

  it.each([
    // name; ms advanced after the first hand-out, after the second, and after that; the two gauges
    { name: "stay at 0 before any key is handed out", steps: [], unfinished: 0, longest: 0 },
    { name: "follow the keys in progress, updated every 500 ms", steps: [3_000, 1_500], unfinished: 6, longest: 4.5 },
    { name: "lag by less than the 500 ms period between updates", steps: [3_000, 1_400], unfinished: 5, longest: 4 },
    { name: "go back to 0 once every key is done", steps: [3_000, 1_500], done: true, unfinished: 0, longest: 0 },
  ])("the work queue's unfinished work and longest running processor $name", async ({ steps, done, unfinished, longest }) => {
    const registry = new Registry();
    const metrics = new ControllerMetrics({ registry, maxConcurrentReconciles: 2 });
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock, metrics });
    queue.add("a");
    queue.add("b");
    for (const ms of steps) {
      queue.tryGet();
      clock.advance(ms);
    }
    if (done === true) for (const key of ["a", "b"]) queue.done(key);
    expect(await lines(registry, "workqueue_unfinished_work_seconds")).toEqual([
      `workqueue_unfinished_work_seconds{name="applicationset",controller="applicationset"} ${String(unfinished)}`,
    ]);
    expect(await lines(registry, "workqueue_longest_running_processor_seconds")).toEqual([
      `workqueue_longest_running_processor_seconds{name="applicationset",controller="applicationset"} ${String(longest)}`,
    ]);
    expect(clock.pendingTimers).toBe(steps.length === 0 || done === true ? 0 : 1);
  });

  it("reports leadership as 1 and its loss as 0", async () => {
    const registry = new Registry();
    const metrics = new ControllerMetrics({ registry, maxConcurrentReconciles: 1, leaseName: "l" });
    metrics.leading(true);
    expect(await lines(registry, "leader_election_master_status")).toEqual(['leader_election_master_status{name="l"} 1']);
    metrics.leading(false);
    expect(await lines(registry, "leader_election_master_status")).toEqual(['leader_election_master_status{name="l"} 0']);
  });
});

const appset = (namespace: string, name: string, extra: Partial<AppSetMetricsView> = {}): AppSetMetricsView => ({
  metadata: { namespace, name },
  ...extra,
});

describe("AppSetMetrics", () => {
  it.each([
    // conditions: the AppSet's status conditions; status: the resource_update_status label
    {
      name: "the reason of ResourcesUpToDate",
      conditions: [
        { type: "ErrorOccurred", reason: "X" },
        { type: "ResourcesUpToDate", reason: "ApplicationSetUpToDate" },
      ],
      status: "ApplicationSetUpToDate",
    },
    { name: "Unknown without that condition", conditions: [{ type: "ErrorOccurred", reason: "X" }], status: "Unknown" },
    { name: "Unknown without a status", conditions: undefined, status: "Unknown" },
  ])("labels argocd_appset_info with $name", async ({ conditions, status }) => {
    const registry = new Registry();
    const view = appset("argocd", "a", conditions === undefined ? {} : { status: { conditions } });
    new AppSetMetrics({ registry, list: () => [view], namespaceAllowed: () => true });
    expect(await lines(registry, "argocd_appset_info")).toEqual([
      `argocd_appset_info{namespace="argocd",name="a",resource_update_status="${status}"} 1`,
    ]);
  });

  it("reports only AppSets in allowed namespaces, with the length of their (truncated) resources list, recomputed at each scrape", async () => {
    const registry = new Registry();
    let appsets = [
      appset("argocd", "a", { status: { resources: [{}, {}, {}] } }),
      appset("other", "b", { status: { resources: [{}] } }),
      appset("team-1", "c"),
    ];
    new AppSetMetrics({ registry, list: () => appsets, namespaceAllowed: (ns) => ns !== "other" });
    expect(await lines(registry, "argocd_appset_owned_applications")).toEqual([
      'argocd_appset_owned_applications{namespace="argocd",name="a"} 3',
      'argocd_appset_owned_applications{namespace="team-1",name="c"} 0',
    ]);
    appsets = appsets.slice(2);
    expect(await lines(registry, "argocd_appset_owned_applications")).toEqual([
      'argocd_appset_owned_applications{namespace="team-1",name="c"} 0',
    ]);
  });

  it("exports the configured AppSet labels under normalised names, and nothing when none are configured", async () => {
    const registry = new Registry();
    const view = appset("argocd", "a", { metadata: { namespace: "argocd", name: "a", labels: { "app.kubernetes.io/team": "blue" } } });
    new AppSetMetrics({ registry, list: () => [view], namespaceAllowed: () => true, labels: ["app.kubernetes.io/team", "env"] });
    expect(await lines(registry, "argocd_appset_labels")).toEqual([
      'argocd_appset_labels{namespace="argocd",name="a",label_app_kubernetes_io_team="blue",label_env=""} 1',
    ]);
    const bare = new Registry();
    new AppSetMetrics({ registry: bare, list: () => [view], namespaceAllowed: () => true });
    expect(bare.getSingleMetric("argocd_appset_labels")).toBeUndefined();
  });

  it("registers exactly the argocd_* families of Argo CD 3.6's ApplicationSet controller", async () => {
    const registry = new Registry();
    new AppSetMetrics({ registry, list: () => [], namespaceAllowed: () => true, labels: ["team"] });
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name).filter((n) => n.startsWith("argocd_"));
    expect(names.sort()).toEqual([
      "argocd_appset_app_refresh_total",
      "argocd_appset_info",
      "argocd_appset_labels",
      "argocd_appset_owned_applications",
      "argocd_appset_progressive_sync_app_status",
      "argocd_appset_progressive_sync_detection_to_trigger_seconds",
      "argocd_appset_progressive_sync_syncs_triggered_total",
      "argocd_appset_reconcile",
      "argocd_github_api_rate_limit_limit",
      "argocd_github_api_rate_limit_remaining",
      "argocd_github_api_rate_limit_reset_seconds",
      "argocd_github_api_rate_limit_used",
      "argocd_github_api_request_duration_seconds",
      "argocd_github_api_requests_total",
    ]);
  });

  it("normalises label keys as Argo CD does", () => {
    expect(labelMetricName("example.com/some-key_1")).toBe("label_example_com_some_key_1");
  });

  it("records reconcile durations and GitHub requests with Argo CD's labels", async () => {
    const registry = new Registry();
    const m = new AppSetMetrics({ registry, list: () => [], namespaceAllowed: () => true });
    m.observeReconcile("argocd", "a", 0.2);
    m.observeGithubRequest({ method: "GET", endpoint: "/repos", status: "200", appset_namespace: "argocd", appset_name: "a" }, 0.1);
    m.observeGithubRateLimit(
      { endpoint: "/repos", appset_namespace: "argocd", appset_name: "a", resource: "core" },
      { remaining: 10, limit: 5000, used: 4990, resetSeconds: 30 },
    );
    expect(await lines(registry, "argocd_appset_reconcile")).toContain('argocd_appset_reconcile_count{namespace="argocd",name="a"} 1');
    expect(await lines(registry, "argocd_github_api_requests_total")).toEqual([
      'argocd_github_api_requests_total{method="GET",endpoint="/repos",status="200",appset_namespace="argocd",appset_name="a"} 1',
    ]);
    expect(await lines(registry, "argocd_github_api_request_duration_seconds")).toContain(
      'argocd_github_api_request_duration_seconds_count{method="GET",endpoint="/repos",appset_namespace="argocd",appset_name="a"} 1',
    );
    expect(await lines(registry, "argocd_github_api_rate_limit_reset_seconds")).toEqual([
      'argocd_github_api_rate_limit_reset_seconds{endpoint="/repos",appset_namespace="argocd",appset_name="a",resource="core"} 30',
    ]);
  });
});

describe("createMetricsRegistry", () => {
  it("includes the process metrics unless turned off", async () => {
    expect(await createMetricsRegistry().getSingleMetricAsString("process_cpu_user_seconds_total")).toContain(
      "process_cpu_user_seconds_total",
    );
    expect(createMetricsRegistry({ processMetrics: false }).getSingleMetric("process_cpu_user_seconds_total")).toBeUndefined();
  });
});
