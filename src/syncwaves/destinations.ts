/**
 * Destinations: which cluster an Application's resources live in. `https://kubernetes.default.svc`
 * (and the name `in-cluster`, unless a cluster Secret takes that name) is the engine's own cluster;
 * any other server or name is looked up among the cluster Secrets (`argocd.argoproj.io/secret-type:
 * cluster`) of the control namespace, and reached with the Secret's `config`: `bearerToken` or
 * `username`/`password`, and `tlsClientConfig` (`insecure`, `serverName`, `caData`, `certData`,
 * `keyData`). exec and AWS auth are not supported.
 *
 * A cluster's client is built in memory from the Secret's fields (no kubeconfig file is written).
 *
 * I/O boundary: Secret lists through the local client, and the clients built for remote clusters.
 */
import { createHash } from "node:crypto";
import { decodeClusterSecret, InCluster, Label, parseSecret, SecretType, type Application, type Cluster } from "../api/index.js";
import type { Clock } from "../clock/index.js";
import { AppSetError } from "../errors.js";
import { Discovery, KubeApiClient, resources, type KubeClient, type KubeObject, type ListWatchSource, type ResourceDescriptor } from "../kube/index.js";

/** How to reach one cluster. */
export interface ClusterAccess {
  /** Stable identity of the cluster (its server URL, or "local"). */
  readonly id: string;
  readonly client: KubeClient & ListWatchSource;
  readonly resolve: (obj: KubeObject) => Promise<ResourceDescriptor>;
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

/** Options of {@link ClusterSecretDestinations}. */
export interface ClusterSecretOptions {
  readonly local: ClusterAccess;
  /** Where cluster Secrets are read (Argo CD's namespace). */
  readonly namespace: string;
  readonly clock: Clock;
  /** How long a list of cluster Secrets is reused (default 10 s). */
  readonly cacheMs?: number;
}

/** Destinations from cluster Secrets, with the local cluster for the in-cluster server. */
export class ClusterSecretDestinations implements DestinationResolver {
  private clusters: { at: number; list: Promise<Cluster[]> } | undefined;
  private readonly accesses = new Map<string, Promise<ClusterAccess>>();

  constructor(private readonly opts: ClusterSecretOptions) {}

  async access(app: Application): Promise<ClusterAccess> {
    const { server, name } = app.spec.destination;
    if (server === InCluster.server) return this.opts.local;
    const clusters = await this.list();
    const cluster = server ? clusters.find((c) => c.server.replace(/\/+$/, "") === server.replace(/\/+$/, "")) : clusters.find((c) => c.name === name);
    if (cluster === undefined) {
      if (!server && name === InCluster.name) return this.opts.local;
      throw new AppSetError(INVALID_DESTINATION, `there are no clusters with this ${server ? `URL: ${server}` : `name: ${name ?? ""}`}`);
    }
    if (cluster.server === InCluster.server) return this.opts.local;
    const fingerprint = createHash("sha256").update(JSON.stringify([cluster.server, cluster.config])).digest("hex");
    let access = this.accesses.get(fingerprint);
    if (access === undefined) {
      access = Promise.resolve(cluster).then((c) => {
        const client = KubeApiClient.fromOptions(clusterConfigFor(c));
        const discovery = new Discovery(client.transport);
        return { id: c.server, client, resolve: (o: KubeObject) => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? "") };
      });
      access.catch(() => this.accesses.delete(fingerprint));
      this.accesses.set(fingerprint, access);
    }
    return access;
  }

  private list(): Promise<Cluster[]> {
    const now = this.opts.clock.now();
    if (this.clusters !== undefined && now - this.clusters.at < (this.opts.cacheMs ?? 10_000)) return this.clusters.list;
    const list = this.opts.local.client
      .list(resources.Secrets, { namespace: this.opts.namespace, labelSelector: `${Label.SecretType}=${SecretType.Cluster}` })
      .then((l) =>
        l.items.flatMap((raw) => {
          const secret = parseSecret(raw);
          const cluster = secret.ok ? decodeClusterSecret(secret.value) : undefined;
          return cluster?.ok ? [cluster.value] : [];
        }),
      );
    list.catch(() => (this.clusters = undefined));
    this.clusters = { at: now, list };
    return list;
  }
}
