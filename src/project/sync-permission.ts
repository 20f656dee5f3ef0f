/**
 * The check a sync makes of each resource before applying (or pruning) it: the apiserver must
 * serve its kind, the project's resource lists must allow the kind (and, cluster-scoped, the
 * name), and a namespaced resource's namespace must be an allowed destination on the
 * Application's cluster. Pure core: facts from Argo CD v3.6.2 (`validateSyncPermissions` in
 * controller/sync.go).
 */
import type { AppProject } from "../api/appproject.js";
import type { ProjectCluster } from "./clusters.js";
import { isDestinationPermitted, type DestinationCluster } from "./destinations.js";
import { SyncPermissionMessage } from "./messages.js";
import { isGroupKindNamePermitted } from "./resources.js";

/** A resource a sync is about to apply or prune. */
export interface SyncResource {
  /** Its API group ("" for the core group). */
  readonly group: string;
  /** Its kind. */
  readonly kind: string;
  /** Its name (cluster-scoped names are checked against named list entries). */
  readonly name: string;
  /** Its namespace ("" for a cluster-scoped resource). */
  readonly namespace: string;
  /** Whether the apiserver serves the kind as namespaced; undefined when it does not serve the kind. */
  readonly namespaced: boolean | undefined;
}

/**
 * Why the project refuses to sync `resource` to `destinationCluster`, or undefined when it may:
 * an unknown kind, a kind (or cluster-scoped name) the resource lists refuse, or (namespaced) a
 * namespace that is no allowed destination on the cluster. `clusters` are the known clusters;
 * those scoped to the project add destinations and count for `permitOnlyProjectScopedClusters`.
 */
export function syncPermissionError(
  project: AppProject,
  resource: SyncResource,
  destinationCluster: DestinationCluster | undefined,
  clusters: readonly ProjectCluster[],
): string | undefined {
  const { group, kind } = resource;
  if (resource.namespaced === undefined) return SyncPermissionMessage.apiResourceUnknown(group, kind);
  const name = project.metadata.name ?? "";
  if (!isGroupKindNamePermitted(project, { group, kind }, resource.name, resource.namespaced)) {
    return SyncPermissionMessage.resourceNotPermitted(group, kind, name);
  }
  if (!resource.namespaced) return undefined;
  if (isDestinationPermitted(project, { cluster: destinationCluster, namespace: resource.namespace }, clusters)) return undefined;
  return SyncPermissionMessage.namespaceNotPermitted(resource.namespace, name);
}
