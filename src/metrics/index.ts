/**
 * Prometheus metrics with Argo CD's metric names, registered on an injected registry.
 */
export {};
