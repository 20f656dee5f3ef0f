/**
 * Which kinds (and, cluster-scoped, which names) an AppProject lets its Applications manage.
 * Namespaced kinds: an absent `namespaceResourceWhitelist` allows all, a present one (even empty)
 * allows only what it lists; `namespaceResourceBlacklist` refuses what it lists. Cluster-scoped
 * kinds: `clusterResourceWhitelist` must list the kind (an absent or empty list allows none), an
 * entry's optional `name` limits it to matching names, and `clusterResourceBlacklist` refuses what
 * it lists (a blacklist entry without a name refuses every name). Group, kind and name patterns use
 * Go's `filepath.Match` dialect (`*` and `?` do not cross `/`, `[^…]` negates, no `{a,b}`); a
 * malformed pattern matches nothing. Pure core: facts from Argo CD v3.6.2
 * (`AppProject.IsGroupKindNamePermitted`, `isResourceInList`, `isNamedResourceInList`).
 */
import type { AppProject, ClusterResourceRestriction, GroupKind } from "../api/appproject.js";
import { compilePathMatch } from "../git/glob.js";

/** A kind as the apiserver serves it: its API group ("" for the core group) and its kind. */
export interface ResourceGroupKind {
  /** The API group ("" for the core group). */
  readonly group: string;
  /** The kind. */
  readonly kind: string;
}

/** Go's `filepath.Match`, false for a malformed pattern. */
export function filepathMatch(pattern: string, text: string): boolean {
  try {
    return compilePathMatch(pattern)(text);
  } catch {
    return false;
  }
}

/** True when an entry's kind and group patterns match the kind. */
function kindMatches(item: GroupKind, gk: ResourceGroupKind): boolean {
  return filepathMatch(item.kind, gk.kind) && filepathMatch(item.group, gk.group);
}

/** True when some entry of `list` matches the kind (Argo CD's `isResourceInList`). */
function isResourceInList(gk: ResourceGroupKind, list: readonly GroupKind[]): boolean {
  return list.some((item) => kindMatches(item, gk));
}

/** True when some entry matches the kind and, when it has a name, the name (Argo CD's `isNamedResourceInList`). */
function isNamedResourceInList(gk: ResourceGroupKind, name: string, list: readonly ClusterResourceRestriction[]): boolean {
  return list.some((item) => kindMatches(item, gk) && ((item.name ?? "") === "" || filepathMatch(item.name ?? "", name)));
}

/** The namespaced rule: the whitelist (absent: all) minus the blacklist. */
function namespacedPermitted(spec: AppProject["spec"], gk: ResourceGroupKind): boolean {
  const whitelist = spec.namespaceResourceWhitelist;
  const whitelisted = whitelist === undefined || (whitelist.length !== 0 && isResourceInList(gk, whitelist));
  return whitelisted && !isResourceInList(gk, spec.namespaceResourceBlacklist ?? []);
}

/**
 * True when the project lets an Application manage a resource of kind `gk` named `name`:
 * `namespaced` picks the namespace lists (which ignore the name) or the cluster lists (whose
 * entries may name resources).
 */
export function isGroupKindNamePermitted(
  project: Pick<AppProject, "spec">,
  gk: ResourceGroupKind,
  name: string,
  namespaced: boolean,
): boolean {
  const spec = project.spec;
  if (namespaced) return namespacedPermitted(spec, gk);
  const whitelisted = isNamedResourceInList(gk, name, spec.clusterResourceWhitelist ?? []);
  return whitelisted && !isNamedResourceInList(gk, name, spec.clusterResourceBlacklist ?? []);
}
