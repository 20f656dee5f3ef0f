/**
 * Provider-neutral SCM API metrics, always registered: requests by provider and HTTP status,
 * refused or held-back requests, and the last rate-limit figures per provider and host. Labels are
 * kept to provider, host and status so the series stay few. The figures are read at scrape time
 * from a source (the SCM HTTP client), requests are counted as they happen.
 */
import { Counter, Gauge, type Registry } from "prom-client";

/** What the scrape-time metrics read (the SCM HTTP client satisfies it). */
export interface ScmApiFigures {
  /** Per provider: requests refused for a rate limit, and requests held back during a backoff. */
  stats(): Record<string, { readonly rateLimited: number; readonly suppressed: number }>;
  /** The last rate-limit figures per host and credential. */
  rateLimits(): ReadonlyArray<{ readonly provider: string; readonly host: string; readonly limit?: number; readonly remaining?: number }>;
}

type Figure = ReturnType<ScmApiFigures["rateLimits"]>[number];

/** Per provider and host, the figures of the credential with the fewest requests remaining. */
function tightest(figures: readonly Figure[]): Figure[] {
  const byHost = new Map<string, Figure>();
  for (const f of figures) {
    const key = `${f.provider} ${f.host}`;
    const seen = byHost.get(key);
    if (seen === undefined || (f.remaining ?? Infinity) < (seen.remaining ?? Infinity)) byHost.set(key, f);
  }
  return [...byHost.values()];
}

/** The SCM API metrics on one registry. */
export class ScmApiMetrics {
  private readonly requests: Counter<"provider" | "status">;
  private source: (() => ScmApiFigures | undefined) | undefined;

  constructor(registers: Registry[]) {
    const figures = (): ScmApiFigures | undefined => this.source?.();
    this.requests = new Counter({
      name: "appset_scm_api_requests_total",
      help: "SCM provider API requests by HTTP status",
      labelNames: ["provider", "status"],
      registers,
    });
    const gauge = (name: string, help: string, pick: (f: Figure) => number | undefined): void => {
      new Gauge({
        name,
        help,
        labelNames: ["provider", "host"],
        registers,
        collect() {
          this.reset();
          for (const f of tightest(figures()?.rateLimits() ?? [])) {
            const v = pick(f);
            if (v !== undefined) this.set({ provider: f.provider, host: f.host }, v);
          }
        },
      });
    };
    gauge(
      "appset_scm_api_rate_limit_remaining",
      "Requests remaining in the current rate-limit window of an SCM provider host",
      (f) => f.remaining,
    );
    gauge("appset_scm_api_rate_limit_limit", "Requests allowed per rate-limit window of an SCM provider host", (f) => f.limit);
    new Counter({
      name: "appset_scm_api_rate_limited_total",
      help: "SCM provider API requests refused for a rate limit or held back while backing off",
      labelNames: ["provider"],
      registers,
      collect() {
        this.reset();
        for (const [provider, c] of Object.entries(figures()?.stats() ?? {})) this.inc({ provider }, c.rateLimited + c.suppressed);
      },
    });
  }

  /** Counts one request that got an answer (`status` is the HTTP status, 304 included). */
  observeRequest(provider: string, status: number): void {
    this.requests.inc({ provider, status: String(status) });
  }

  /** Sets where the scrape-time figures come from (called again, replaces the source). */
  watch(source: () => ScmApiFigures | undefined): void {
    this.source = source;
  }
}
