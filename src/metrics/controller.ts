/**
 * controller-runtime's and client-go's process metrics, with their names, labels and buckets, so
 * dashboards built for Argo CD's controller keep working: reconcile totals by result (every label
 * pre-initialised to 0), errors, durations, active workers, the work queue, and leader status.
 * The object implements the worker pool's and the work queue's metric ports structurally. Several
 * loops of one process (the ApplicationSet controller, the sync engine) share the metric families
 * of one registry, each under its own `controller` and queue `name` label.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

type Family = Counter<string> | Gauge<string> | Histogram<string>;

/** The registry's metric of `name` when a loop already created it, else `create()`. */
function shared<T extends Family>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/** controller-runtime's `result` labels (kept equal to the worker pool's). */
const RESULTS = ["success", "error", "requeue", "requeue_after"] as const;

/** controller-runtime's buckets of `controller_runtime_reconcile_time_seconds`. */
export const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5,
  4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** client-go's workqueue latency buckets: 10 ns to 1000 s, ×10 each. */
export const WORKQUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1)));

/** Options of {@link ControllerMetrics}. */
export interface ControllerMetricsOptions {
  registry: Registry;
  /** controller-runtime's controller name (Argo CD's: "applicationset"). */
  controller?: string;
  /** `--concurrent-reconciliations`, exported as `controller_runtime_max_concurrent_reconciles`. */
  maxConcurrentReconciles: number;
  /** Lease name, the `name` label of `leader_election_master_status`. */
  leaseName?: string;
}

/** The controller's process metrics on one registry. */
export class ControllerMetrics {
  private readonly controller: string;
  private readonly reconcileTotal: Counter<"controller" | "result">;
  private readonly reconcileErrors: Counter<"controller">;
  private readonly terminalErrors: Counter<"controller">;
  private readonly panics: Counter<"controller">;
  private readonly reconcileTime: Histogram<"controller">;
  private readonly active: Gauge<"controller">;
  private readonly depthGauge: Gauge<"name" | "controller">;
  private readonly adds: Counter<"name" | "controller">;
  private readonly retries: Counter<"name" | "controller">;
  private readonly queueDuration: Histogram<"name" | "controller">;
  private readonly workDurationHist: Histogram<"name" | "controller">;
  private readonly unfinishedWorkGauge: Gauge<"name" | "controller">;
  private readonly longestRunningGauge: Gauge<"name" | "controller">;
  private readonly leaderStatus: Gauge<"name">;
  private readonly leaseName: string;

  constructor(options: ControllerMetricsOptions) {
    const registers = [options.registry];
    this.controller = options.controller ?? "applicationset";
    this.leaseName = options.leaseName ?? "";
    const c = ["controller"] as const;
    const q = ["name", "controller"] as const;
    this.reconcileTotal = shared(
      options.registry,
      "controller_runtime_reconcile_total",
      () =>
        new Counter({
          name: "controller_runtime_reconcile_total",
          help: "Total number of reconciliations per controller",
          labelNames: ["controller", "result"],
          registers,
        }),
    );
    this.reconcileErrors = shared(
      options.registry,
      "controller_runtime_reconcile_errors_total",
      () =>
        new Counter({
          name: "controller_runtime_reconcile_errors_total",
          help: "Total number of reconciliation errors per controller",
          labelNames: c,
          registers,
        }),
    );
    this.terminalErrors = shared(
      options.registry,
      "controller_runtime_terminal_reconcile_errors_total",
      () =>
        new Counter({
          name: "controller_runtime_terminal_reconcile_errors_total",
          help: "Total number of terminal reconciliation errors per controller",
          labelNames: c,
          registers,
        }),
    );
    this.reconcileTime = shared(
      options.registry,
      "controller_runtime_reconcile_time_seconds",
      () =>
        new Histogram({
          name: "controller_runtime_reconcile_time_seconds",
          help: "Length of time per reconciliation per controller",
          labelNames: c,
          buckets: RECONCILE_TIME_BUCKETS,
          registers,
        }),
    );
    const maxConcurrent = shared(
      options.registry,
      "controller_runtime_max_concurrent_reconciles",
      () =>
        new Gauge({
          name: "controller_runtime_max_concurrent_reconciles",
          help: "Maximum number of concurrent reconciles per controller",
          labelNames: c,
          registers,
        }),
    );
    this.active = shared(
      options.registry,
      "controller_runtime_active_workers",
      () =>
        new Gauge({
          name: "controller_runtime_active_workers",
          help: "Number of currently used workers per controller",
          labelNames: c,
          registers,
        }),
    );
    this.depthGauge = shared(
      options.registry,
      "workqueue_depth",
      () => new Gauge({ name: "workqueue_depth", help: "Current depth of workqueue", labelNames: q, registers }),
    );
    this.adds = shared(
      options.registry,
      "workqueue_adds_total",
      () => new Counter({ name: "workqueue_adds_total", help: "Total number of adds handled by workqueue", labelNames: q, registers }),
    );
    this.retries = shared(
      options.registry,
      "workqueue_retries_total",
      () =>
        new Counter({ name: "workqueue_retries_total", help: "Total number of retries handled by workqueue", labelNames: q, registers }),
    );
    const buckets = WORKQUEUE_BUCKETS;
    this.queueDuration = shared(
      options.registry,
      "workqueue_queue_duration_seconds",
      () =>
        new Histogram({
          name: "workqueue_queue_duration_seconds",
          help: "How long in seconds an item stays in workqueue before being requested",
          labelNames: q,
          buckets,
          registers,
        }),
    );
    this.workDurationHist = shared(
      options.registry,
      "workqueue_work_duration_seconds",
      () =>
        new Histogram({
          name: "workqueue_work_duration_seconds",
          help: "How long in seconds processing an item from workqueue takes.",
          labelNames: q,
          buckets,
          registers,
        }),
    );
    this.unfinishedWorkGauge = shared(
      options.registry,
      "workqueue_unfinished_work_seconds",
      () =>
        new Gauge({
          name: "workqueue_unfinished_work_seconds",
          help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
          labelNames: q,
          registers,
        }),
    );
    this.longestRunningGauge = shared(
      options.registry,
      "workqueue_longest_running_processor_seconds",
      () =>
        new Gauge({
          name: "workqueue_longest_running_processor_seconds",
          help: "How many seconds has the longest running processor for workqueue been running.",
          labelNames: q,
          registers,
        }),
    );
    this.leaderStatus = shared(
      options.registry,
      "leader_election_master_status",
      () =>
        new Gauge({
          name: "leader_election_master_status",
          help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
          labelNames: ["name"],
          registers,
        }),
    );
    this.panics = shared(
      options.registry,
      "controller_runtime_reconcile_panics_total",
      () =>
        new Counter({
          name: "controller_runtime_reconcile_panics_total",
          help: "Total number of reconciliation panics per controller",
          labelNames: ["controller"],
          registers,
        }),
    );
    this.panics.inc({ controller: this.controller }, 0);
    for (const result of RESULTS) this.reconcileTotal.inc({ controller: this.controller, result }, 0);
    this.reconcileErrors.inc({ controller: this.controller }, 0);
    this.terminalErrors.inc({ controller: this.controller }, 0);
    maxConcurrent.set({ controller: this.controller }, options.maxConcurrentReconciles);
    this.active.set({ controller: this.controller }, 0);
    const ql = this.queueLabels();
    this.depthGauge.set(ql, 0);
    this.adds.inc(ql, 0);
    this.retries.inc(ql, 0);
    this.updateUnfinishedWork(0, 0);
    if (this.leaseName !== "") this.leaderStatus.set({ name: this.leaseName }, 0);
  }

  private queueLabels(): { name: string; controller: string } {
    return { name: this.controller, controller: this.controller };
  }

  /** Worker pool port: one reconcile finished. */
  reconciled(event: { result: (typeof RESULTS)[number]; terminal: boolean; seconds: number; panicked?: boolean }): void {
    const labels = { controller: this.controller };
    if (event.panicked === true) this.panics.inc(labels);
    this.reconcileTotal.inc({ ...labels, result: event.result });
    if (event.result === "error") this.reconcileErrors.inc(labels);
    if (event.terminal) this.terminalErrors.inc(labels);
    this.reconcileTime.observe(labels, event.seconds);
  }

  /** Worker pool port: workers running a reconcile now. */
  activeWorkers(n: number): void {
    this.active.set({ controller: this.controller }, n);
  }

  /** Work queue port. */
  add(): void {
    this.adds.inc(this.queueLabels());
  }

  /** Work queue port. */
  depth(n: number): void {
    this.depthGauge.set(this.queueLabels(), n);
  }

  /** Work queue port. */
  retry(): void {
    this.retries.inc(this.queueLabels());
  }

  /** Work queue port. */
  queueLatency(seconds: number): void {
    this.queueDuration.observe(this.queueLabels(), seconds);
  }

  /** Work queue port. */
  workDuration(seconds: number): void {
    this.workDurationHist.observe(this.queueLabels(), seconds);
  }

  /** Work queue port: the work in progress, updated periodically by the queue. */
  updateUnfinishedWork(seconds: number, longestSeconds: number): void {
    const labels = this.queueLabels();
    this.unfinishedWorkGauge.set(labels, seconds);
    this.longestRunningGauge.set(labels, longestSeconds);
  }

  /** Leader election: whether this process holds the lease. */
  leading(isLeader: boolean): void {
    if (this.leaseName !== "") this.leaderStatus.set({ name: this.leaseName }, isLeader ? 1 : 0);
  }
}
