/**
 * The settings `appset sync-engine` reads: the process's (addresses, leader election, sharding, logs,
 * profiler), kubectl's client flags, the shared cache's resync, the Git service's and the engine's
 * own. Its `--help` lists only these; the controller's other flags are accepted (a Deployment may
 * pass both processes the same arguments) and ignored. Data only.
 */
import { KUBECTL_OPTIONS } from "./kubectl-options.js";
import type { Config } from "./config.js";

/** The Config fields the sync engine process reads. */
export const SYNC_ENGINE_SETTINGS: ReadonlySet<keyof Config> = new Set<keyof Config>([
  // The process: probe and metrics servers, leader election or sharding, logs, the profiler.
  "metricsAddr",
  "probeAddr",
  "enableLeaderElection",
  "enableSharding",
  "shardGroup",
  "debug",
  "logFormat",
  "logLevel",
  "logFormatTimestamp",
  "profilerFilePath",
  "profilerHeapSnapshot",
  // The client and the shared cache.
  "k8sClientQps",
  "k8sClientBurst",
  "k8sTcpTimeoutMs",
  "k8sTcpKeepaliveMs",
  "k8sTlsHandshakeTimeoutMs",
  "k8sTcpIdleTimeoutMs",
  "cacheSyncPeriodMs",
  ...KUBECTL_OPTIONS.map((o) => o.key as keyof Config),
  // The Git service, Helm repositories and OCI registries the engine reads manifests from.
  "gitCacheDir",
  "gitSubmodules",
  "allowLocalRepositories",
  "gitRevisionCacheSeconds",
  "repoServerTimeoutSeconds",
  "gitRequestTimeoutMs",
  "gitAttempts",
  "gitRetryDurationMs",
  "gitRetryFactor",
  "gitRetryMaxDurationMs",
  "execTimeoutMs",
  "helmIndexMaxBytes",
  "helmChartMaxBytes",
  "ociArtifactMaxBytes",
  // The engine.
  "applicationNamespaces",
  "reconcileTimeoutSeconds",
]);
