/**
 * The process's one cluster directory: the cluster Secrets of the controller namespace, read from
 * the shared cache and decoded once per change, and destinations resolved against them with one
 * rule for every loop (Argo CD's `GetDestinationCluster`, see docs/controller.md#destinations):
 * `name` and `server` together are refused, a server must match a cluster (the in-cluster server
 * matches itself unless a Secret claims it), and a name must match exactly one cluster.
 *
 * Reads the cache only.
 */
import {
  decodeClusterSecret,
  isClusterSecret,
  Label,
  parseSecret,
  SecretType,
  type ApplicationDestination,
  type Cluster,
  type Secret,
} from "../api/index.js";
import { knownClusters, resolveDestination } from "../project/index.js";
import { resources, type Informer } from "../kube/index.js";
import { parserOf, type InformerSpec } from "./cache.js";

/** The cluster Secrets' informer, as every loop asks the shared cache for it. */
export function clusterSecretsSpec(namespace: string): InformerSpec<Secret> {
  return {
    resource: resources.Secrets,
    namespace,
    labelSelector: `${Label.SecretType}=${SecretType.Cluster}`,
    parse: parserOf(parseSecret),
  };
}

/** A destination resolved to a cluster: its decoded Secret, or the implicit in-cluster one. */
export type ResolvedCluster =
  { readonly ok: true; readonly server: string; readonly cluster: Cluster | undefined } | { readonly ok: false; readonly error: string };

/** The clusters of the controller namespace, over the shared cache's cluster-Secret informer. */
export class ClusterDirectory {
  private changes = 0;
  private built: { at: number; clusters: Cluster[] } | undefined;

  constructor(
    private readonly informer: Informer<Secret>,
    private readonly inClusterEnabled: boolean | (() => boolean) = true,
  ) {
    const changed = (): void => {
      this.changes++;
    };
    informer.on({ add: changed, update: changed, delete: changed });
  }

  /** True once the Secrets have been listed. */
  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  /** Waits for the first list, so an early lookup never mistakes an empty cache for "no clusters". */
  waitForSync(signal?: AbortSignal): Promise<void> {
    return this.informer.waitForSync(signal);
  }

  /** The cluster Secrets (those labelled as such). */
  secrets(): Secret[] {
    return this.informer.list().filter(isClusterSecret);
  }

  /** Every cluster whose Secret decodes (a Secret that does not is left out, as Argo CD does). */
  clusters(): Cluster[] {
    if (this.built?.at === this.changes) return this.built.clusters;
    const clusters: Cluster[] = [];
    for (const s of this.secrets()) {
      const c = decodeClusterSecret(s);
      if (c.ok) clusters.push(c.value);
    }
    this.built = { at: this.changes, clusters };
    return clusters;
  }

  /** Resolves a destination with the controller's rules; `cluster` is undefined for the implicit in-cluster one. */
  resolve(dest: ApplicationDestination | undefined): ResolvedCluster {
    const clusters = this.clusters();
    const enabled = typeof this.inClusterEnabled === "function" ? this.inClusterEnabled() : this.inClusterEnabled;
    const found = resolveDestination(dest, knownClusters(clusters, enabled));
    if (!found.ok) return found;
    const server = found.cluster.server;
    return { ok: true, server, cluster: clusters.find((c) => c.server.replace(/\/+$/, "") === server) };
  }
}
