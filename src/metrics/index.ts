/**
 * Prometheus metrics with Argo CD's metric names, registered on an injected registry.
 *
 * {@link ControllerMetrics} holds controller-runtime's and client-go's process metrics and is the
 * worker pool's and the work queue's metric port; {@link AppSetMetrics} holds Argo CD's
 * ApplicationSet metrics, computed at scrape time from the informer cache, the RollingSync metrics
 * ({@link ProgressiveSyncMetrics}) and the provider-neutral SCM API metrics ({@link ScmApiMetrics}); {@link SyncEngineMetrics}
 * holds Argo CD's application-controller metrics the sync engine reports; {@link ShardMetrics}
 * those of sharded replicas. No I/O: the HTTP
 * endpoint that serves a registry is in src/server.
 */
import { collectDefaultMetrics, Registry } from "prom-client";

export { ControllerMetrics, RECONCILE_TIME_BUCKETS, WORKQUEUE_BUCKETS, type ControllerMetricsOptions } from "./controller.js";
export {
  AppSetMetrics,
  labelMetricName,
  type AppSetMetricsOptions,
  type AppSetMetricsView,
  type GithubRateLimitLabels,
  type GithubRequestLabels,
} from "./appset.js";
export { DETECTION_TO_TRIGGER_BUCKETS, ProgressiveSyncMetrics, type AppSetRef, type AppStatusView } from "./progressive-sync.js";
export { ScmApiMetrics, type ScmApiFigures } from "./scm.js";
export { RestClientMetrics } from "./rest-client.js";
export { ShardMetrics, type ShardMetricsOptions } from "./shard.js";
export {
  APP_RECONCILE_BUCKETS,
  SyncEngineMetrics,
  type AppMetricsView,
  type K8sRequestMetricLabels,
  type OperationStateView,
  type SyncEngineMetricsOptions,
} from "./sync-engine.js";
export { Registry } from "prom-client";

/**
 * How often the event-loop delay behind `nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds`
 * is sampled. prom-client's default, 10 ms, is a timer that wakes an idle process 100 times a second
 * (about 1.4 s of CPU in 3 idle minutes, nearly all of the controller's idle cost); once a second
 * still gives a scrape every 30 s thirty samples (docs/metrics.md).
 */
export const EVENT_LOOP_SAMPLE_MS = 1_000;

/** A fresh registry, with Node's process metrics (the counterpart of Go's and the process's) unless turned off. */
export function createMetricsRegistry(options: { processMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}
