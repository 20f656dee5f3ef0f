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
 * With sync impersonation a destination is also reached as a service account: a client of the
 * same cluster that sends `Impersonate-User`, cached per cluster and account; discovery stays the
 * engine's. The local cluster's impersonating client comes from a factory the process provides
 * (the engine's own kubeconfig and options).
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

/** How an Application's destination is reached. */
export interface AccessOptions {
  /** The user every request impersonates (a `system:serviceaccount:…`); absent: the engine's own identity. */
  readonly impersonate?: string;
}

/** Finds the cluster of an Application's destination. */
export interface DestinationResolver {
  /**
   * The cluster; fails with an AppSetError (reason `InvalidDestination`) when it is unknown, or
   * when it cannot be reached as the user to impersonate.
   */
  access(app: Application, options?: AccessOptions): Promise<ClusterAccess>;
}

/** Builds a client of the local cluster that impersonates `user` (the engine's kubeconfig and options). */
export type ImpersonatingClientFactory = (user: string) => ClusterAccess["client"];

/** The error when a destination cannot be reached as another user. */
function cannotImpersonate(id: string): AppSetError {
  return new AppSetError(INVALID_DESTINATION, `cluster ${id}: impersonation is not available`);
}

/** The local cluster as `user`, cached per user (none without a factory). */
class LocalImpersonation {
  private readonly accesses = new Map<string, ClusterAccess>();

  constructor(
    private readonly local: ClusterAccess,
    private readonly factory: ImpersonatingClientFactory | undefined,
  ) {}

  access(user: string | undefined): ClusterAccess {
    if (user === undefined) return this.local;
    if (this.factory === undefined) throw cannotImpersonate(this.local.id);
    let access = this.accesses.get(user);
    if (access === undefined) {
      access = { ...this.local, client: this.factory(user) };
      this.accesses.set(user, access);
    }
    return access;
  }
}

/** The reason of an unknown destination. */
export const INVALID_DESTINATION = "InvalidDestination";

/** Every destination is the local cluster. */
export class LocalDestinations implements DestinationResolver {
  private readonly local: LocalImpersonation;

  constructor(local: ClusterAccess, impersonating?: ImpersonatingClientFactory) {
    this.local = new LocalImpersonation(local, impersonating);
  }

  access(_app: Application, options: AccessOptions = {}): Promise<ClusterAccess> {
    return Promise.resolve().then(() => this.local.access(options.impersonate));
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
  /** Builds the local cluster's impersonating clients; absent: the local cluster cannot be impersonated. */
  readonly localImpersonating?: ImpersonatingClientFactory;
}

/** Destinations from cluster Secrets, with the local cluster for the in-cluster server. */
export class ClusterSecretDestinations implements DestinationResolver {
  /** Fingerprint of the cluster (and the user impersonated) → its access. */
  private readonly accesses = new Map<string, Promise<ClusterAccess>>();
  private readonly local: LocalImpersonation;

  constructor(private readonly opts: ClusterSecretOptions) {
    this.local = new LocalImpersonation(opts.local, opts.localImpersonating);
  }

  async access(app: Application, options: AccessOptions = {}): Promise<ClusterAccess> {
    await this.opts.clusters.waitForSync();
    const found = this.opts.clusters.resolve(app.spec.destination);
    if (!found.ok) throw new AppSetError(INVALID_DESTINATION, found.error);
    const cluster = found.cluster;
    if (cluster === undefined || found.server === InCluster.server) return this.local.access(options.impersonate);
    const base = await this.cached([cluster.server, cluster.config], () => this.remote(cluster));
    const user = options.impersonate;
    if (user === undefined) return base;
    return this.cached([cluster.server, cluster.config, user], () => Promise.resolve({ ...base, client: this.client(cluster, user) }));
  }

  /** The access cached under `key`'s fingerprint, built once (again after a failure). */
  private cached(key: unknown[], build: () => Promise<ClusterAccess>): Promise<ClusterAccess> {
    const fingerprint = createHash("sha256").update(JSON.stringify(key)).digest("hex");
    let access = this.accesses.get(fingerprint);
    if (access === undefined) {
      access = Promise.resolve().then(build);
      access.catch(() => this.accesses.delete(fingerprint));
      this.accesses.set(fingerprint, access);
    }
    return access;
  }

  /** A client of a remote cluster, as the engine or impersonating `user`. */
  private client(cluster: Cluster, user: string | undefined): KubeApiClient {
    const { observe, userAgent } = this.opts;
    return KubeApiClient.fromOptions(clusterConfigFor(cluster), {
      ...(observe === undefined ? {} : { observe }),
      ...(userAgent === undefined ? {} : { userAgent }),
      ...(user === undefined ? {} : { impersonate: { user, groups: [], uid: "" } }),
    });
  }

  /** A remote cluster's access: its client, discovery and facts. */
  private remote(cluster: Cluster): Promise<ClusterAccess> {
    const client = this.client(cluster, undefined);
    const discovery = new Discovery(client.transport);
    return Promise.resolve({
      id: cluster.server,
      client,
      resolve: (o: KubeObject) => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? ""),
      facts: cachedClusterFacts(client.transport),
    });
  }
}
