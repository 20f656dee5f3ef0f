/**
 * What the sync engine and the CLI commands that compare as it does (`appset diff`) share: the
 * manifest source (Git, Helm chart repositories and OCI registries, with the repository
 * credentials) and the access to the local cluster (its client, with kinds resolved through
 * discovery and the cluster's facts cached).
 */
import type { Clock } from "../clock/index.js";
import { gitHostFiles, type Config, type Env } from "../config/index.js";
import type { CredentialsLookup, GitReader } from "../git/index.js";
import { cachedClusterFacts, Discovery, type KubeApiClient, type KubeObject } from "../kube/index.js";
import type { ClusterAccess } from "../syncwaves/destinations.js";
import { GitManifestSource } from "../syncwaves/git-source.js";
import type { HelmChartSourceOptions } from "../syncwaves/helm-repo/chart-source.js";
import { ociService } from "./oci.js";

/** What the manifest source is built from. */
export interface ManifestSourceDeps {
  readonly config: Config;
  readonly env: Env;
  readonly clock: Clock;
  readonly git: GitReader;
  /** Repository credentials (the repository Secrets'), for `chart` and OCI sources. */
  readonly credentials: CredentialsLookup;
}

/**
 * How `chart` sources reach Helm repositories: the repository Secrets' credentials, the CA bundles
 * of `argocd-tls-certs-cm` (`ARGOCD_TLS_DATA_PATH`), and the index kept as long as Git revisions.
 */
function chartOptions(d: ManifestSourceDeps): HelmChartSourceOptions {
  return {
    credentials: d.credentials,
    tlsCertsDir: gitHostFiles(d.env).tlsCertsDir,
    indexCacheMs: d.config.gitRevisionCacheSeconds * 1000,
    maxIndexBytes: d.config.helmIndexMaxBytes,
    maxChartBytes: d.config.helmChartMaxBytes,
    clock: d.clock,
  };
}

/** The manifest source of the sync engine: Git through `d.git`, the tools with the configured time limit, charts and OCI. */
export function manifestSource(d: ManifestSourceDeps): GitManifestSource {
  return new GitManifestSource(d.git, {
    tools: { env: d.env, timeoutMs: d.config.execTimeoutMs },
    charts: chartOptions(d),
    oci: ociService(d, d.credentials),
  });
}

/** The local cluster as a destination: `client`, kinds resolved through discovery, its facts cached. */
export function localClusterAccess(client: KubeApiClient): ClusterAccess & { id: "local" } {
  const discovery = new Discovery(client.transport);
  const resolve = (o: KubeObject): ReturnType<Discovery["resourceFor"]> => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? "");
  return { id: "local", client, resolve, facts: cachedClusterFacts(client.transport) };
}
