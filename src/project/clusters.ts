/**
 * The clusters an Application's destination may resolve to, and what clusters scoped to a project
 * add to it. A destination names its cluster by `server` or by `name`, never both; servers compare
 * without trailing slashes; the in-cluster server (`https://kubernetes.default.svc`, named
 * `in-cluster`) resolves even without a cluster Secret unless `cluster.inClusterEnabled` is
 * "false", in which case naming it fails. A project gains a destination per cluster scoped to it
 * (every namespace, or each of the cluster's namespaces) and a source repository per repository
 * scoped to it. Pure core: facts from Argo CD v3.6.2 (`GetDestinationServer`,
 * `GetDestinationCluster` in util/argo; `GetCluster`, `GetClusterServersByName` in util/db;
 * `GetAppProjectByName`).
 */
import type { ApplicationDestination } from "../api/application.js";
import type { AppProject, ProjectDestination } from "../api/appproject.js";
import { InCluster } from "../api/constants.js";
import type { DestinationCluster } from "./destinations.js";
import { DestinationMessage } from "./messages.js";
import { trimTrailingSlashes } from "../trim.js";

/** A known cluster as the project checks read it (a decoded cluster Secret fits). */
export interface ProjectCluster {
  /** The API server URL. */
  readonly server: string;
  /** The cluster's name ("" when unnamed). */
  readonly name: string;
  /** The project the cluster is scoped to ("" or absent when none). */
  readonly project?: string;
  /** The namespaces the cluster is limited to (empty or absent: all). */
  readonly namespaces?: readonly string[];
}

/** Where the lookup reads: the known clusters, and whether the in-cluster destination is enabled. */
export interface ClusterLookup {
  /** The known clusters (cluster Secrets; the in-cluster entry may be among them). */
  readonly clusters: readonly ProjectCluster[];
  /** `cluster.inClusterEnabled` of argocd-cm is not "false". */
  readonly inClusterEnabled: boolean;
}

/** A destination resolved to its cluster, or the error Argo CD reports for it. */
export type ClusterResolution =
  { readonly ok: true; readonly cluster: DestinationCluster } | { readonly ok: false; readonly error: string };

/** The known cluster with this server (trailing slashes ignored); the built-in in-cluster one when enabled. */
function clusterByServer(server: string, lookup: ClusterLookup): ClusterResolution {
  if (server === InCluster.server && !lookup.inClusterEnabled) return { ok: false, error: DestinationMessage.clusterDisabled(server) };
  const found = lookup.clusters.find((c) => trimSlashes(c.server) === server);
  if (found !== undefined) return { ok: true, cluster: toDestinationCluster(found) };
  if (server === InCluster.server) return { ok: true, cluster: { server: InCluster.server, name: InCluster.name } };
  return { ok: false, error: DestinationMessage.clusterNotFound(server) };
}

/** The servers of the known clusters with this name, with the in-cluster rules applied. */
function serversByName(name: string, lookup: ClusterLookup): string[] {
  const servers = lookup.clusters.filter((c) => c.name !== "" && c.name === name).map((c) => trimSlashes(c.server));
  if (name !== InCluster.name && !servers.includes(InCluster.server)) return servers;
  if (servers.length === 0 && name === InCluster.name && lookup.inClusterEnabled) return [InCluster.server];
  return lookup.inClusterEnabled ? servers : servers.filter((s) => s !== InCluster.server);
}

/** The server a destination names (Argo CD's `GetDestinationServer`), or its error. */
function destinationServer(destination: ApplicationDestination, lookup: ClusterLookup): { server: string } | { error: string } {
  const name = destination.name ?? "";
  const server = destination.server ?? "";
  if (name !== "" && server !== "") return { error: DestinationMessage.bothNameAndServer(name, server) };
  if (server !== "") return { server: trimSlashes(server) };
  if (name === "") return { error: DestinationMessage.serverMissing };
  const servers = serversByName(name, lookup);
  if (servers.length === 0) return { error: DestinationMessage.noClusterWithName(name) };
  if (servers.length > 1) return { error: DestinationMessage.sameName(servers.length, servers) };
  return { server: servers[0]! };
}

/**
 * Resolves an Application destination to a known cluster, as Argo CD's `GetDestinationCluster`:
 * by server (trailing slashes ignored) or by name; the error text is Argo CD's. A name shared by
 * several clusters lists their servers in the order of `lookup.clusters`.
 */
export function resolveDestinationCluster(destination: ApplicationDestination, lookup: ClusterLookup): ClusterResolution {
  const target = destinationServer(destination, lookup);
  if ("error" in target) return { ok: false, error: target.error };
  const found = clusterByServer(target.server, lookup);
  if (found.ok) return found;
  const server = destination.server ?? "";
  return {
    ok: false,
    error: server !== "" ? DestinationMessage.byServer(server, found.error) : `error getting cluster by URL: ${found.error}`,
  };
}

/** A known cluster as a destination cluster (server without trailing slashes). */
function toDestinationCluster(c: ProjectCluster): DestinationCluster {
  return { server: trimSlashes(c.server), name: c.name, ...(c.project === undefined ? {} : { project: c.project }) };
}

/** The destinations a cluster scoped to the project adds: every namespace, or each of its namespaces. */
function scopedDestinations(c: ProjectCluster): ProjectDestination[] {
  const server = trimSlashes(c.server);
  const namespaces = c.namespaces ?? [];
  if (namespaces.length === 0) return [{ server, namespace: "*" }];
  return namespaces.map((namespace) => ({ server, namespace }));
}

/** A server URL without trailing slashes, as Argo CD stores and looks up cluster servers. */
export function trimSlashes(server: string): string {
  return trimTrailingSlashes(server);
}

/** What is scoped to a project besides its spec: clusters (all known ones; filtered here) and repository URLs. */
export interface ScopedResources {
  /** The known clusters; those whose `project` is the project's name add destinations. */
  readonly clusters: readonly ProjectCluster[];
  /** The URLs of the repositories scoped to the project (repository Secrets with its `project`). */
  readonly repositories?: readonly string[];
}

/**
 * The project as Argo CD's application controller checks it: `spec.sourceRepos` followed by the
 * project's scoped repositories, and `spec.destinations` followed by a destination per cluster
 * scoped to the project (server and `*`, or server and each of the cluster's namespaces). The
 * project given is not changed.
 */
export function projectWithScopedResources(project: AppProject, scoped: ScopedResources): AppProject {
  const own = scoped.clusters.filter((c) => c.project !== undefined && c.project !== "" && c.project === project.metadata.name);
  const repos = scoped.repositories ?? [];
  if (own.length === 0 && repos.length === 0) return project;
  const spec = { ...project.spec };
  if (repos.length > 0) spec.sourceRepos = [...(project.spec.sourceRepos ?? []), ...repos];
  if (own.length > 0) spec.destinations = [...(project.spec.destinations ?? []), ...own.flatMap(scopedDestinations)];
  return { ...project, spec };
}
