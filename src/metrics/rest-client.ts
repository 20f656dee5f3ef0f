/**
 * client-go's `rest_client_requests_total{code,host,method}`: every request to the apiserver, by
 * its HTTP status code (`<error>` when no response came), the apiserver's host and the method.
 */
import { Counter, type Registry } from "prom-client";

/** The Kubernetes client's request counter on one registry (shared by the loops of one process). */
export class RestClientMetrics {
  private readonly requests: Counter<"code" | "host" | "method">;

  constructor(registry: Registry) {
    const existing = registry.getSingleMetric("rest_client_requests_total") as Counter<"code" | "host" | "method"> | undefined;
    this.requests =
      existing ??
      new Counter({
        name: "rest_client_requests_total",
        help: "Number of HTTP requests, partitioned by status code, method, and host.",
        labelNames: ["code", "host", "method"],
        registers: [registry],
      });
  }

  /** Counts one request (the transport's `observe`). */
  readonly observe = (r: { code: string; host: string; method: string }): void => {
    this.requests.inc({ code: r.code, host: r.host, method: r.method });
  };
}
