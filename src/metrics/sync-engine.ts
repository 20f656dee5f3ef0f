/**
 * Argo CD's application-controller metrics, as the sync engine reports them, with Argo CD's names,
 * labels and buckets: `argocd_app_info` (computed at scrape time from the Applications the caller
 * lists, the engine's informer cache), `argocd_app_sync_total`, `argocd_app_sync_duration_seconds`,
 * `argocd_app_reconcile` and `argocd_app_k8s_request_total`. The object implements the engine's
 * metric port (src/syncwaves/metrics.ts) structurally.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { normalizeGitURL } from "../git/url.js";

/** The fields of an Application the metrics read. */
export interface AppMetricsView {
  metadata: { namespace?: string; name?: string; deletionTimestamp?: string | null };
  spec: {
    project?: string;
    source?: { repoURL?: string };
    sources?: ReadonlyArray<{ repoURL?: string }>;
    destination: { server?: string; namespace?: string };
    syncPolicy?: { automated?: unknown };
  };
  operation?: { sync?: unknown };
  status?: { sync?: { status?: string }; health?: { status?: string } };
}

/** The operation state fields the sync metrics read. */
export interface OperationStateView {
  phase: string;
  startedAt: string;
  finishedAt?: string | null;
}

/** Labels of `argocd_app_k8s_request_total`. */
export type K8sRequestMetricLabels = Record<
  "namespace" | "name" | "project" | "server" | "response_code" | "verb" | "resource_kind" | "resource_namespace",
  string
>;

/** Options of {@link SyncEngineMetrics}. */
export interface SyncEngineMetricsOptions {
  registry: Registry;
  /** Lists the Applications to report (called at every scrape). */
  list: () => Iterable<AppMetricsView>;
}

/** Argo CD's buckets of `argocd_app_reconcile`. */
export const APP_RECONCILE_BUCKETS = [0.25, 0.5, 1, 2, 4, 8, 16];

const COMPLETED = new Set(["Succeeded", "Failed", "Error"]);

function appLabels(app: AppMetricsView): { namespace: string; name: string; project: string } {
  return { namespace: app.metadata.namespace ?? "", name: app.metadata.name ?? "", project: app.spec.project ?? "" };
}

/** Argo CD's `operation` label: "delete" while deleted, "sync" while a sync is requested, else "". */
function operationLabel(app: AppMetricsView): string {
  if (app.metadata.deletionTimestamp) return "delete";
  return app.operation?.sync !== undefined ? "sync" : "";
}

/**
 * The `repo` label: the first source's URL (`spec.sources` wins over `spec.source`, as Argo CD's
 * GetSource has it), normalised by Argo CD's rule ("" when it does not parse).
 */
function repoOf(app: AppMetricsView): string {
  return normalizeGitURL(app.spec.sources?.[0]?.repoURL ?? app.spec.source?.repoURL ?? "");
}

function infoLabels(app: AppMetricsView): Record<string, string> {
  return {
    ...appLabels(app),
    autosync_enabled: String(app.spec.syncPolicy?.automated != null),
    repo: repoOf(app),
    dest_server: app.spec.destination.server ?? "",
    dest_namespace: app.spec.destination.namespace ?? "",
    sync_status: app.status?.sync?.status || "Unknown",
    health_status: app.status?.health?.status || "Unknown",
    operation: operationLabel(app),
  };
}

/** The sync engine's metrics on one registry. */
export class SyncEngineMetrics {
  private readonly syncs: Counter<"namespace" | "name" | "project" | "dest_server" | "phase">;
  private readonly syncDuration: Counter<"namespace" | "name" | "project" | "dest_server">;
  private readonly reconcile: Histogram<"namespace" | "dest_server">;
  private readonly requests: Counter<keyof K8sRequestMetricLabels>;

  constructor(options: SyncEngineMetricsOptions) {
    const registers = [options.registry];
    const app = ["namespace", "name", "project"] as const;
    new Gauge({
      name: "argocd_app_info",
      help: "Information about application.",
      labelNames: [...app, "autosync_enabled", "repo", "dest_server", "dest_namespace", "sync_status", "health_status", "operation"],
      registers,
      collect() {
        this.reset();
        for (const a of options.list()) if (a.metadata.name) this.set(infoLabels(a), 1);
      },
    });
    this.syncs = new Counter({
      name: "argocd_app_sync_total",
      help: "Number of application syncs.",
      labelNames: [...app, "dest_server", "phase"],
      registers,
    });
    this.syncDuration = new Counter({
      name: "argocd_app_sync_duration_seconds",
      help: "Application sync performance in seconds.",
      labelNames: [...app, "dest_server"],
      registers,
    });
    this.reconcile = new Histogram({
      name: "argocd_app_reconcile",
      help: "Application reconciliation performance in seconds.",
      labelNames: ["namespace", "dest_server"],
      buckets: APP_RECONCILE_BUCKETS,
      registers,
    });
    this.requests = new Counter({
      name: "argocd_app_k8s_request_total",
      help: "Number of kubernetes requests executed during application reconciliation.",
      labelNames: [...app, "server", "response_code", "verb", "resource_kind", "resource_namespace"],
      registers,
    });
  }

  /** One reconcile of `app` took `seconds`. */
  reconciled(app: AppMetricsView, seconds: number): void {
    this.reconcile.observe({ namespace: app.metadata.namespace ?? "", dest_server: app.spec.destination.server ?? "" }, seconds);
  }

  /** An operation completed: counted by phase; a successful one adds its whole seconds to the duration. */
  syncCompleted(app: AppMetricsView, state: OperationStateView): void {
    if (!COMPLETED.has(state.phase)) return;
    const labels = { ...appLabels(app), dest_server: app.spec.destination.server ?? "" };
    this.syncs.inc({ ...labels, phase: state.phase });
    if (state.phase !== "Succeeded" || !state.finishedAt) return;
    const seconds = Math.floor(Date.parse(state.finishedAt) / 1000) - Math.floor(Date.parse(state.startedAt) / 1000);
    if (Number.isFinite(seconds) && seconds >= 0) this.syncDuration.inc(labels, seconds);
  }

  /** One request to a destination cluster. */
  k8sRequest(labels: K8sRequestMetricLabels): void {
    this.requests.inc(labels);
  }
}
