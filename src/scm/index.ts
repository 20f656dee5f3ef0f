/**
 * SCM provider API clients for the SCM Provider and Pull Request generators. The only I/O is HTTP
 * through {@link ScmHttpClient} (node:http/https, optionally through an HTTP, HTTPS or SOCKS5 proxy; conditional
 * requests, rate-limit backoff, call counters, connect and total time limits; SigV4-signed AWS calls) and Secret/ConfigMap reads
 * through the injected {@link NamespacedObjects}; filters, slugs, signing and rate-limit parsing
 * are pure.
 */
export { ScmServices, DEFAULT_SCM_SETTINGS, checkScmAllowed, type ScmSettings, type ScmServicesOptions } from "./services.js";
export { ScmHttpClient, type ScmObserver, type CallCounts, type RateLimitState, type ScmCaller } from "./http.js";
export { RateLimitedError, RATE_LIMITED_REASON, type RateLimitFigures } from "./ratelimit.js";
export { githubMetricsObserver, scmMetricsObserver, type GithubMetricsSink, type ScmRequestSink } from "./metrics.js";
export type { NamespacedObjects } from "./credentials.js";
export { nodeTransport, type Transport, type TlsOptions } from "./transport.js";
export { DEFAULT_SCM_TIMEOUTS, ScmTimeoutError, type HttpTimeouts, type TimeoutDetail } from "./timeouts.js";
export { proxyTransport, ScmProxyRefusedError } from "./proxy.js";
export { proxyFor, parseProxyUrl, SCM_PROXY_SCHEMES, UnsupportedProxySchemeError, type ProxySettings } from "./proxy-rules.js";
export type { AwsSettings } from "./aws/client.js";
export { RepositoryNotFoundError, ScmApiError, type PullRequest, type Repository } from "./types.js";
export { branchSlug } from "./slug.js";
