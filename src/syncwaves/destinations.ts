/**
 * Destinations: which cluster an Application's resources live in, by the one rule of the process's
 * cluster directory (the ApplicationSet controller's and Argo CD's: `name` and `server` together
 * are refused, a name must match exactly one cluster). The in-cluster server (and the name
 * `in-cluster`, unless a cluster Secret takes that name) is the engine's own cluster; any other
 * cluster is reached with its Secret's `config`: `bearerToken` or `username`/`password`, and
 * `tlsClientConfig` (`insecure`, `serverName`, `caData`, `certData`, `keyData`). exec and AWS auth
 * are not supported. The directory follows the cluster Secrets live through the shared cache.
 *
 * A cluster's client is built in memory from the Secret's fields (no kubeconfig file is written).
 *
 * I/O boundary: the clients built for remote clusters.
 */
import { createHash } from "node:crypto";
import { InCluster, type Application, type ApplicationDestination, type Cluster } from "../api/index.js";
import { AppSetError } from "../errors.js";
import {
  cachedClusterFacts,
  Discovery,
  KubeApiClient,
  type ClusterFacts,
  type KubeApiClientOptions,
  type KubeClient,
  type KubeObject,
  type ListWatchSource,
  type ResourceDescriptor,
} from "../kube/index.js";
import type { ResolvedCluster } from "../manager/clusters.js";

/** How to reach one cluster. */
export interface ClusterAccess {
  /** Stable identity of the cluster (its server URL, or "local"). */
  readonly id: string;
  readonly client: KubeClient & ListWatchSource;
  readonly resolve: (obj: KubeObject) => Promise<ResourceDescriptor>;
  /** The cluster's version and API versions, for sources a tool renders (Helm, Kustomize). */
  readonly facts?: () => Promise<ClusterFacts>;
}

/** Finds the cluster of an Application's destination. */
export interface DestinationResolver {
  /** The cluster; fails with an AppSetError (reason `InvalidDestination`) when it is unknown. */
  access(app: Application): Promise<ClusterAccess>;
}

/** The reason of an unknown destination. */
export const INVALID_DESTINATION = "InvalidDestination";

/** Every destination is the local cluster. */
export class LocalDestinations implements DestinationResolver {
  constructor(private readonly local: ClusterAccess) {}
  access(): Promise<ClusterAccess> {
    return Promise.resolve(this.local);
  }
}

/** How {@link KubeApiClient.fromOptions} reaches one cluster. */
export type ClusterConfig = Parameters<typeof KubeApiClient.fromOptions>[0];

/** The in-memory client configuration of a cluster decoded from its Secret. */
export function clusterConfigFor(cluster: Cluster): ClusterConfig {
  const c = cluster.config;
  if (c.execProviderConfig !== undefined || c.awsAuthConfig !== undefined) {
    throw new AppSetError(INVALID_DESTINATION, `cluster ${cluster.server}: exec and AWS authentication are not supported`);
  }
  const tls = c.tlsClientConfig ?? {};
  const fields: ClusterConfig = {
    server: cluster.server,
    skipTLSVerify: tls.insecure === true,
    caData: tls.caData,
    tlsServerName: tls.serverName,
    token: c.bearerToken,
    username: c.username,
    password: c.password,
    certData: tls.certData,
    keyData: tls.keyData,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== "")) as ClusterConfig;
}

/** The clusters destinations resolve against (the process's cluster directory). */
export interface ClusterLookup {
  /** Resolves with the directory's rule; `cluster` undefined is the implicit in-cluster one. */
  resolve(dest: ApplicationDestination | undefined): ResolvedCluster;
  /** Resolves once the cluster Secrets have been listed. */
  waitForSync(signal?: AbortSignal): Promise<void>;
}

/** Options of {@link ClusterSecretDestinations}. */
export interface ClusterSecretOptions {
  readonly local: ClusterAccess;
  readonly clusters: ClusterLookup;
  /** Told of every request of a remote cluster's client (`rest_client_requests_total`). */
  readonly observe?: KubeApiClientOptions["observe"];
  /** The User-Agent of remote clusters' clients. */
  readonly userAgent?: string;
}

/** Destinations from cluster Secrets, with the local cluster for the in-cluster server. */
export class ClusterSecretDestinations implements DestinationResolver {
  private readonly accesses = new Map<string, Promise<ClusterAccess>>();

  constructor(private readonly opts: ClusterSecretOptions) {}

  async access(app: Application): Promise<ClusterAccess> {
    await this.opts.clusters.waitForSync();
    const found = this.opts.clusters.resolve(app.spec.destination);
    if (!found.ok) throw new AppSetError(INVALID_DESTINATION, found.error);
    const cluster = found.cluster;
    if (cluster === undefined || found.server === InCluster.server) return this.opts.local;
    const fingerprint = createHash("sha256")
      .update(JSON.stringify([cluster.server, cluster.config]))
      .digest("hex");
    let access = this.accesses.get(fingerprint);
    if (access === undefined) {
      access = Promise.resolve(cluster).then((c) => {
        const { observe, userAgent } = this.opts;
        const client = KubeApiClient.fromOptions(clusterConfigFor(c), {
          ...(observe === undefined ? {} : { observe }),
          ...(userAgent === undefined ? {} : { userAgent }),
        });
        const discovery = new Discovery(client.transport);
        return {
          id: c.server,
          client,
          resolve: (o: KubeObject) => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? ""),
          facts: cachedClusterFacts(client.transport),
        };
      });
      access.catch(() => this.accesses.delete(fingerprint));
      this.accesses.set(fingerprint, access);
    }
    return access;
  }
}
