/**
 * Rate-limit and request figures as metrics: an {@link ScmObserver} that records GitHub requests and
 * `X-RateLimit-*` figures under Argo CD's `argocd_github_api_*` names (docs/metrics.md) through any sink
 * with the metrics module's two methods, and an observer counting every provider's requests by
 * status for the provider-neutral `appset_scm_api_*` metrics (whose rate-limit figures are read from
 * `ScmHttpClient.rateLimits()` and `stats()` at scrape time).
 */
import type { ScmObserver } from "./http.js";

/** The sink (AppSetMetrics satisfies it). */
export interface GithubMetricsSink {
  observeGithubRequest(
    labels: { method: string; endpoint: string; status: string; appset_namespace: string; appset_name: string },
    seconds: number,
  ): void;
  observeGithubRateLimit(
    labels: { endpoint: string; appset_namespace: string; appset_name: string; resource: string },
    values: { remaining: number; limit: number; used: number; resetSeconds: number },
  ): void;
}

/** An observer feeding GitHub figures to `sink` (`--enable-github-api-metrics`). */
export function githubMetricsObserver(sink: GithubMetricsSink): ScmObserver {
  return {
    request(o) {
      if (o.provider !== "github") return;
      sink.observeGithubRequest(
        {
          method: o.method,
          endpoint: o.endpoint,
          status: String(o.status),
          appset_namespace: o.caller?.namespace ?? "",
          appset_name: o.caller?.name ?? "",
        },
        o.seconds,
      );
    },
    rateLimit(o) {
      if (o.provider !== "github") return;
      const f = o.figures;
      sink.observeGithubRateLimit(
        { endpoint: o.endpoint, appset_namespace: o.caller?.namespace ?? "", appset_name: o.caller?.name ?? "", resource: o.resource },
        { remaining: f.remaining ?? 0, limit: f.limit ?? 0, used: f.used ?? 0, resetSeconds: o.resetSeconds },
      );
    },
  };
}

/** The sink of the provider-neutral request counter (AppSetMetrics satisfies it). */
export interface ScmRequestSink {
  observeScmRequest(provider: string, status: number): void;
}

/** An observer counting every provider's requests in `sink`, and also feeding `github` when given. */
export function scmMetricsObserver(sink: ScmRequestSink, github?: GithubMetricsSink): ScmObserver {
  const gh = github === undefined ? undefined : githubMetricsObserver(github);
  return {
    request(o) {
      sink.observeScmRequest(o.provider, o.status);
      gh?.request(o);
    },
    rateLimit(o) {
      gh?.rateLimit(o);
    },
  };
}
