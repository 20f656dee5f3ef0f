/**
 * Rate-limit and request figures as metrics: an {@link ScmObserver} that records GitHub requests and
 * `X-RateLimit-*` figures under Argo CD's `argocd_github_api_*` names (spec §6.4) through any sink
 * with the metrics module's two methods. Other providers' figures stay readable through
 * `ScmHttpClient.rateLimits()` and `stats()`.
 */
import type { ScmObserver } from "./http.js";

/** The sink (AppSetMetrics satisfies it). */
export interface GithubMetricsSink {
  observeGithubRequest(labels: { method: string; endpoint: string; status: string; appset_namespace: string; appset_name: string }, seconds: number): void;
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
        { method: o.method, endpoint: o.endpoint, status: String(o.status), appset_namespace: o.caller?.namespace ?? "", appset_name: o.caller?.name ?? "" },
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
