/**
 * `resource.exclusions` and `resource.inclusions` (Argo CD's `ResourcesFilter`): which kinds of which
 * clusters Argo CD leaves alone. Pure.
 *
 * An entry matches when each of its lists is empty or holds a match: `apiGroups` and `clusters` by
 * glob, `kinds` exactly or by `*`. A kind is excluded when an exclusion matches it (Argo CD's core
 * exclusions always apply); otherwise it is kept when an inclusion matches it, and excluded when
 * inclusions exist for its cluster but none matches it.
 */
import { globMatch } from "../../glob/index.js";
import type { FilteredResource, ResourceCustomizations } from "./types.js";

/**
 * What Argo CD always excludes, whatever `argocd-cm` says: high-volume objects no one manages
 * through it (events of both APIs, metrics, Leases).
 */
export const CORE_EXCLUSIONS: readonly FilteredResource[] = [
  { apiGroups: ["events.k8s.io", "metrics.k8s.io"] },
  { apiGroups: [""], kinds: ["Event"] },
  { apiGroups: ["coordination.k8s.io"], kinds: ["Lease"] },
];

const anyGlob = (patterns: readonly string[] | undefined, value: string): boolean =>
  patterns === undefined || patterns.length === 0 || patterns.some((p) => globMatch(p, value));

/** True when the entry's cluster list is empty or names `cluster`. */
export function matchesCluster(r: FilteredResource, cluster: string): boolean {
  return anyGlob(r.clusters, cluster);
}

/** True when the entry matches the group, kind and cluster. */
export function matchesResource(r: FilteredResource, group: string, kind: string, cluster: string): boolean {
  const kinds = r.kinds ?? [];
  return anyGlob(r.apiGroups, group) && (kinds.length === 0 || kinds.some((k) => k === "*" || k === kind)) && matchesCluster(r, cluster);
}

/** True when Argo CD's settings exclude `group`/`kind` on the cluster with server URL `cluster`. */
export function isExcluded(
  custom: Pick<ResourceCustomizations, "exclusions" | "inclusions">,
  group: string,
  kind: string,
  cluster: string,
): boolean {
  if ([...CORE_EXCLUSIONS, ...custom.exclusions].some((r) => matchesResource(r, group, kind, cluster))) return true;
  if (custom.inclusions.some((r) => matchesResource(r, group, kind, cluster))) return false;
  return custom.inclusions.some((r) => matchesCluster(r, cluster));
}
