/**
 * Resolving an Application destination against the known clusters (Argo CD's
 * `GetDestinationCluster`, docs/controller.md#destinations): cluster Secrets of the controller namespace plus the implicit in-cluster
 * destination when no Secret claims its server. Pure.
 */
import { InCluster, type ApplicationDestination, type Cluster } from "../api/index.js";
import { DestinationMessage } from "./messages.js";

/** A cluster as destination lookups see it. */
export interface KnownCluster {
  readonly name: string;
  readonly server: string;
}

/** The clusters destinations may name: the Secrets, plus in-cluster unless a Secret has its server. */
export function knownClusters(clusters: readonly Cluster[], inClusterEnabled: boolean): KnownCluster[] {
  const out: KnownCluster[] = clusters.map((c) => ({ name: c.name, server: trimSlash(c.server) }));
  if (inClusterEnabled && !out.some((c) => c.server === InCluster.server)) out.push({ name: InCluster.name, server: InCluster.server });
  return out;
}

function trimSlash(server: string): string {
  return server.replace(/\/+$/, "");
}

/** Resolves a destination to a cluster; returns the error text when it does not resolve. */
export function resolveDestination(
  dest: ApplicationDestination | undefined,
  known: readonly KnownCluster[],
): { ok: true; cluster: KnownCluster } | { ok: false; error: string } {
  const name = dest?.name ?? "";
  const server = dest?.server ?? "";
  if (name !== "" && server !== "") return { ok: false, error: DestinationMessage.bothNameAndServer(name, server) };
  if (server !== "") {
    const found = known.find((c) => c.server === trimSlash(server));
    return found === undefined
      ? { ok: false, error: DestinationMessage.byServer(server, DestinationMessage.clusterNotFound(trimSlash(server))) }
      : { ok: true, cluster: found };
  }
  if (name === "") return { ok: false, error: DestinationMessage.serverMissing };
  const named = known.filter((c) => c.name === name);
  if (named.length === 0) return { ok: false, error: DestinationMessage.noClusterWithName(name) };
  if (named.length > 1)
    return {
      ok: false,
      error: DestinationMessage.sameName(
        named.length,
        named.map((c) => c.server),
      ),
    };
  return { ok: true, cluster: named[0]! };
}
