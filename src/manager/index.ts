/**
 * The manager: the process's one cache of informers shared by every loop, its one cluster directory
 * and repository credentials over that cache, and the lifecycle that starts the loops once the
 * cache has synced and stops them (no new work, running reconciles aborted through their signals
 * and awaited) before the cache and the clients close.
 */
export { SharedCache, informerKey, type InformerSpec, type SharedCacheOptions } from "./cache.js";
export { ClusterDirectory, clusterSecretsSpec, type ResolvedCluster } from "./clusters.js";
export { RepoCredentialsCache, REPO_SECRET_SELECTOR, repoSecretsSpec } from "./credentials.js";
export { Manager, runnableLoops, type Leadership, type Loop, type ManagerOptions, type RunEnd } from "./manager.js";
export { ApiserverReachability, ServerReachability, answered } from "./reachability.js";
export {
  appControllerRateLimiter,
  CooldownExponentialRateLimiter,
  DEFAULT_WORKQUEUE_RATE_LIMIT,
  type WorkqueueRateLimitConfig,
} from "./app-ratelimit.js";
