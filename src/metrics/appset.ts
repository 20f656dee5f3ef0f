/**
 * Argo CD's ApplicationSet metrics (docs/metrics.md#the-controllers-metrics), with its names and
 * labels. The per-AppSet gauges are computed at scrape time from the AppSets the caller lists (the
 * informer cache), restricted to the allowed namespaces, as Argo CD's collector does; the reconcile
 * histogram, the progressive-sync metrics ({@link ProgressiveSyncMetrics}) and the GitHub API
 * metrics are recorded as events happen.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { ProgressiveSyncMetrics } from "./progressive-sync.js";
import { ScmApiMetrics, type ScmApiFigures } from "./scm.js";

/** The fields of an ApplicationSet the collector reads. */
export interface AppSetMetricsView {
  metadata?: { namespace?: string; name?: string; labels?: Record<string, string> };
  status?: {
    conditions?: ReadonlyArray<{ type?: string; reason?: string }>;
    resources?: readonly unknown[];
  };
}

/** Options of {@link AppSetMetrics}. */
export interface AppSetMetricsOptions {
  registry: Registry;
  /** Lists the AppSets to report (called at every scrape). */
  list: () => Iterable<AppSetMetricsView>;
  /** Whether an AppSet namespace is reported (the `--applicationset-namespaces` filter). */
  namespaceAllowed: (namespace: string) => boolean;
  /** `--metrics-applicationset-labels`: AppSet label keys exported by `argocd_appset_labels`. */
  labels?: readonly string[];
}

/** Labels of the GitHub API request metrics. */
export interface GithubRequestLabels {
  method: string;
  endpoint: string;
  /** HTTP status, "0" when no response arrived. */
  status: string;
  appset_namespace: string;
  appset_name: string;
}

/** Labels of the GitHub rate-limit gauges. */
export interface GithubRateLimitLabels {
  endpoint: string;
  appset_namespace: string;
  appset_name: string;
  resource: string;
}

/** Prometheus label name of an AppSet label key: `label_` + the key with invalid characters as `_`. */
export function labelMetricName(key: string): string {
  return `label_${key.replace(/[^a-zA-Z0-9_]/g, "_")}`;
}

/** The `resource_update_status` label: the reason of the `ResourcesUpToDate` condition, else `Unknown`. */
function resourceUpdateStatus(appset: AppSetMetricsView): string {
  return appset.status?.conditions?.find((c) => c.type === "ResourcesUpToDate")?.reason || "Unknown";
}

/** Argo CD's ApplicationSet metrics on one registry. */
export class AppSetMetrics {
  private readonly reconcile: Histogram<"namespace" | "name">;
  private readonly githubRequests: Counter<keyof GithubRequestLabels>;
  private readonly githubDuration: Histogram<Exclude<keyof GithubRequestLabels, "status">>;
  private readonly rateLimit: Record<"remaining" | "limit" | "used" | "reset", Gauge<keyof GithubRateLimitLabels>>;
  private readonly scm: ScmApiMetrics;
  /** The RollingSync metrics: the controller's port for them. */
  readonly progressiveSync: ProgressiveSyncMetrics;

  constructor(private readonly options: AppSetMetricsOptions) {
    const registers = [options.registry];
    this.registerCollectors(registers);
    this.scm = new ScmApiMetrics(registers);
    this.progressiveSync = new ProgressiveSyncMetrics(registers);
    this.reconcile = new Histogram({
      name: "argocd_appset_reconcile",
      help: "Application reconciliation performance in seconds.",
      labelNames: ["namespace", "name"],
      registers,
    });
    this.githubRequests = new Counter({
      name: "argocd_github_api_requests_total",
      help: "Number of GitHub API requests",
      labelNames: ["method", "endpoint", "status", "appset_namespace", "appset_name"],
      registers,
    });
    this.githubDuration = new Histogram({
      name: "argocd_github_api_request_duration_seconds",
      help: "GitHub API request duration",
      labelNames: ["method", "endpoint", "appset_namespace", "appset_name"],
      registers,
    });
    const rl = ["endpoint", "appset_namespace", "appset_name", "resource"] as const;
    const gauge = (suffix: string, help: string): Gauge<keyof GithubRateLimitLabels> =>
      new Gauge({ name: `argocd_github_api_rate_limit_${suffix}`, help, labelNames: rl, registers });
    this.rateLimit = {
      remaining: gauge("remaining", "The number of requests remaining in the current rate limit window"),
      limit: gauge("limit", "The maximum number of requests that you can make per hour"),
      used: gauge("used", "The number of requests used in the current rate limit window"),
      reset: gauge("reset_seconds", "The time left till the current rate limit window resets, in seconds"),
    };
  }

  /** Records one reconcile of an AppSet that existed (`argocd_appset_reconcile`). */
  observeReconcile(namespace: string, name: string, seconds: number): void {
    this.reconcile.observe({ namespace, name }, seconds);
  }

  /** Records one GitHub API request (only with `--enable-github-api-metrics`). */
  observeGithubRequest(labels: GithubRequestLabels, seconds: number): void {
    this.githubRequests.inc(labels);
    const { status: _status, ...rest } = labels;
    this.githubDuration.observe(rest, seconds);
  }

  /** Records GitHub's `X-RateLimit-*` headers; `resetSeconds` is the time left until the reset. */
  observeGithubRateLimit(
    labels: GithubRateLimitLabels,
    values: { remaining: number; limit: number; used: number; resetSeconds: number },
  ): void {
    this.rateLimit.remaining.set(labels, values.remaining);
    this.rateLimit.limit.set(labels, values.limit);
    this.rateLimit.used.set(labels, values.used);
    this.rateLimit.reset.set(labels, values.resetSeconds);
  }

  /** Records one SCM API request of any provider (`appset_scm_api_requests_total`). */
  observeScmRequest(provider: string, status: number): void {
    this.scm.observeRequest(provider, status);
  }

  /** Reads the SCM rate-limit figures from `source` at each scrape. */
  watchScm(source: () => ScmApiFigures | undefined): void {
    this.scm.watch(source);
  }

  /** The reported AppSets: named, in an allowed namespace. */
  private *reported(): Iterable<{ namespace: string; name: string; appset: AppSetMetricsView }> {
    for (const appset of this.options.list()) {
      const namespace = appset.metadata?.namespace ?? "";
      const name = appset.metadata?.name ?? "";
      if (name !== "" && this.options.namespaceAllowed(namespace)) yield { namespace, name, appset };
    }
  }

  /** The scrape-time gauges: info, owned applications and (when configured) labels. */
  private registerCollectors(registers: Registry[]): void {
    const reported = (): ReturnType<AppSetMetrics["reported"]> => this.reported();
    new Gauge({
      name: "argocd_appset_info",
      help: "Information about applicationset",
      labelNames: ["namespace", "name", "resource_update_status"],
      registers,
      collect() {
        this.reset();
        for (const { namespace, name, appset } of reported())
          this.set({ namespace, name, resource_update_status: resourceUpdateStatus(appset) }, 1);
      },
    });
    new Gauge({
      name: "argocd_appset_owned_applications",
      help: "Number of applications owned by the applicationset",
      labelNames: ["namespace", "name"],
      registers,
      collect() {
        this.reset();
        for (const { namespace, name, appset } of reported()) this.set({ namespace, name }, appset.status?.resources?.length ?? 0);
      },
    });
    const keys = this.options.labels ?? [];
    if (keys.length === 0) return;
    new Gauge({
      name: "argocd_appset_labels",
      help: "Applicationset labels translated to Prometheus labels",
      labelNames: ["namespace", "name", ...keys.map(labelMetricName)],
      registers,
      collect() {
        this.reset();
        for (const { namespace, name, appset } of reported()) {
          const values = Object.fromEntries(keys.map((k) => [labelMetricName(k), appset.metadata?.labels?.[k] ?? ""]));
          this.set({ namespace, name, ...values }, 1);
        }
      },
    });
  }
}
