/**
 * Resolving an Application destination against the known clusters (Argo CD's
 * `GetDestinationCluster`, docs/controller.md#destinations): the cluster Secrets of the controller
 * namespace plus the implicit in-cluster destination, unless `cluster.inClusterEnabled` is "false"
 * in argocd-cm. One rule for the ApplicationSet controller and the sync engine: the resolver of
 * src/project, with Argo CD's error texts. Pure.
 */
import type { ApplicationDestination, Cluster } from "../api/index.js";
import { resolveDestinationCluster, trimSlashes, type ClusterLookup } from "./clusters.js";

/** A cluster as destination lookups see it. */
export interface KnownCluster {
  readonly name: string;
  readonly server: string;
}

/** The clusters destinations may name, and whether the implicit in-cluster one is among them. */
export type KnownClusters = ClusterLookup;

/** The clusters of the cluster Secrets, with the in-cluster rule. */
export function knownClusters(clusters: readonly Cluster[], inClusterEnabled: boolean): KnownClusters {
  return { clusters: clusters.map((c) => ({ name: c.name, server: c.server })), inClusterEnabled };
}

/** Resolves a destination to a cluster; returns the error text when it does not resolve. */
export function resolveDestination(
  dest: ApplicationDestination | undefined,
  known: KnownClusters,
): { ok: true; cluster: KnownCluster } | { ok: false; error: string } {
  const found = resolveDestinationCluster(dest ?? {}, known);
  return found.ok ? { ok: true, cluster: { name: found.cluster.name, server: trimSlashes(found.cluster.server) } } : found;
}
