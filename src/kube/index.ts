/**
 * The kube edge: the only code that talks to Kubernetes and the only importer of
 * `@kubernetes/client-node`. Everything else sees the narrow ports ({@link KubeReader},
 * {@link KubeWriter}, {@link StatusWriter}), plain JSON objects, informers with parsed objects,
 * and {@link KubeApiError} with a stable reason.
 *
 * I/O boundary: HTTP to the apiserver (requests and watch streams) through {@link KubeApiClient};
 * informers additionally schedule timers on the injected Clock. The in-memory recording stand-in
 * for tests of callers lives with the test support (test/support/fake-kube-client.ts), not here.
 */
export {
  KubeApiError,
  KubeReason,
  fromStatus,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isTransient,
  isApiserverUnreachable,
  unreachableServer,
  atServer,
  toKubeApiError,
  type KubeStatus,
} from "./errors.js";
export {
  apiVersionOf,
  objectKey,
  type DeleteOptions,
  type JsonPatchOp,
  type KubeClient,
  type KubeObject,
  type KubeObjectMeta,
  type KubeReader,
  type KubeWriter,
  type ListOptions,
  type ListWatchSource,
  type ObjectKey,
  type ObjectList,
  type Patch,
  type ResourceDescriptor,
  type StatusWriter,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from "./ports.js";
export * as resources from "./resources.js";
export { resourcePath } from "./resources.js";
export { KubeApiClient, type KubeApiClientOptions } from "./client.js";
export { KubeTransport, loadKubeConfig, type AgentSettings, type KubeConfigSource, type TransportOptions } from "./transport.js";
export { LimiterPerResource, TokenBucket, type RequestLimiter, type TokenBucketOptions } from "./rate-limiter.js";
export { applyKubeOverrides, impersonationHeaders, type Impersonation, type KubeOverrides } from "./overrides.js";
export { Discovery } from "./discovery.js";
export { cachedClusterFacts, readClusterFacts, type ClusterFacts } from "./cluster-facts.js";
export { Informer, type InformerHandlers, type InformerLog, type InformerOptions, type InformerStats } from "./informer.js";
export { defaultBackoff, backoffDelay, type BackoffPolicy } from "./backoff.js";
export { matchesLabelSelector } from "./selector.js";
