/**
 * The controller's plain HTTP endpoints: health and readiness probes (`--probe-addr`) and
 * Prometheus metrics (`--metrics-addr`), on a small node:http server factory with clean close.
 * I/O boundary: listening sockets; the checks and the registry are injected.
 */
export { metricsRoutes, ping, probeRoutes, type Check } from "./endpoints.js";
export { PROFILER_DISABLED, profilerGate, profileSeconds, type ProfilerOptions } from "./profiler.js";
export {
  parseListenAddress,
  sendText,
  startHttpServer,
  type Handler,
  type HttpEndpoint,
  type HttpServerOptions,
  type Routes,
} from "./http.js";
