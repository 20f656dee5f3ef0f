/**
 * Which clusters and namespaces an AppProject lets its Applications deploy to
 * (`spec.destinations`, `spec.permitOnlyProjectScopedClusters`). An entry's `server`, `name` and
 * `namespace` are globs (`*` crosses `/`), `!` denies; a cluster matches an entry by its server
 * or by its name. A denial of the namespace refuses it on a matching server; a denial of the
 * server or the name refuses the cluster in a matching namespace, even when the entry's other
 * identifier matches. With `permitOnlyProjectScopedClusters`, a matched destination must also be a
 * cluster scoped to this project (same name or same server). Pure core: facts from Argo CD v3.6.2
 * (`AppProject.IsDestinationPermitted`, `isDestinationMatched`).
 */
import type { AppProject, ProjectDestination } from "../api/appproject.js";
import { globMatch } from "../glob/index.js";
import { projectWithScopedResources, trimSlashes, type ProjectCluster } from "./clusters.js";
import { isDenyPattern, negatableMatch } from "./patterns.js";

/** The cluster a destination resolved to: its server URL, its name, and the project it is scoped to. */
export interface DestinationCluster {
  /** The API server URL, without trailing slashes. */
  readonly server: string;
  /** The cluster's name ("" when unnamed). */
  readonly name: string;
  /** The project the cluster is scoped to, if any. */
  readonly project?: string;
}

/** A resolved destination: its cluster and the namespace deployed to ("" for cluster-scoped resources). */
export interface ResolvedDestination {
  /** The cluster, or undefined when the destination did not resolve. */
  readonly cluster: DestinationCluster | undefined;
  /** The namespace deployed to. */
  readonly namespace: string;
}

interface EntryMatch {
  readonly name: boolean;
  readonly server: boolean;
  readonly namespace: boolean;
}

/** How one destination entry matches a cluster and namespace. */
function matchEntry(item: ProjectDestination, cluster: DestinationCluster, namespace: string): EntryMatch {
  return {
    name: cluster.name !== "" && negatableMatch(item.name ?? "", cluster.name),
    server: cluster.server !== "" && negatableMatch(item.server ?? "", cluster.server),
    namespace: negatableMatch(item.namespace ?? "", namespace),
  };
}

/** True when a denial (`!p`) is set and `p` positively matches a non-empty value. */
function denialHits(pattern: string, value: string): boolean {
  return isDenyPattern(pattern) && value !== "" && globMatch(pattern.slice(1), value);
}

/** True when a denial of the entry's name or server positively matches the cluster. */
function identityDenied(item: ProjectDestination, cluster: DestinationCluster): boolean {
  return denialHits(item.name ?? "", cluster.name) || denialHits(item.server ?? "", cluster.server);
}

/** True when an entry that did not match refuses the destination: a denial on the side that failed. */
function unmatchedEntryDenies(item: ProjectDestination, m: EntryMatch): boolean {
  if (m.namespace) return (!m.name && isDenyPattern(item.name ?? "")) || (!m.server && isDenyPattern(item.server ?? ""));
  return isDenyPattern(item.namespace ?? "") && m.server;
}

/** What one entry says of the destination: it denies it, it matches it, or neither. */
function entryVerdict(item: ProjectDestination, cluster: DestinationCluster, namespace: string): "deny" | "match" | "none" {
  const m = matchEntry(item, cluster, namespace);
  if (m.namespace && identityDenied(item, cluster)) return "deny";
  if ((m.server || m.name) && m.namespace) return "match";
  return unmatchedEntryDenies(item, m) ? "deny" : "none";
}

/**
 * True when some entry of `spec.destinations` matches the cluster (by server or by name) and the
 * namespace, and no entry denies them. The entries are read in order; a denial ends the search.
 */
export function isDestinationMatched(project: Pick<AppProject, "spec">, cluster: DestinationCluster, namespace: string): boolean {
  let anyMatched = false;
  for (const item of project.spec.destinations ?? []) {
    const verdict = entryVerdict(item, cluster, namespace);
    if (verdict === "deny") return false;
    if (verdict === "match") anyMatched = true;
  }
  return anyMatched;
}

/**
 * Argo CD's `IsDestinationPermitted` on the project exactly as given: an undefined cluster (one
 * that did not resolve) is never permitted; otherwise {@link isDestinationMatched}, and with
 * `spec.permitOnlyProjectScopedClusters` also one of the clusters scoped to this project (those of
 * `clusters` whose `project` is the project's name) has the destination's name or server.
 */
export function isDestinationPermittedByProject(
  project: Pick<AppProject, "spec" | "metadata">,
  destination: ResolvedDestination,
  clusters: readonly ProjectCluster[],
): boolean {
  const cluster = destination.cluster;
  if (cluster === undefined) return false;
  const matched = isDestinationMatched(project, cluster, destination.namespace);
  if (!matched || project.spec.permitOnlyProjectScopedClusters !== true) return matched;
  const own = clusters.filter((c) => (c.project ?? "") === (project.metadata.name ?? ""));
  return own.some((c) => c.name === cluster.name || trimSlashes(c.server) === cluster.server);
}

/**
 * True when the project, as Argo CD's application controller sees it, lets an Application deploy to
 * `destination`: {@link isDestinationPermittedByProject} on the project with a destination added
 * per cluster of `clusters` scoped to it (see `projectWithScopedResources`). So a cluster scoped to
 * the project is permitted (in its namespaces, when it lists some) without a destination entry.
 */
export function isDestinationPermitted(
  project: AppProject,
  destination: ResolvedDestination,
  clusters: readonly ProjectCluster[],
): boolean {
  return isDestinationPermittedByProject(projectWithScopedResources(project, { clusters }), destination, clusters);
}
