/**
 * Argo CD v3.6.2's AppProject permission rules as a pure core: which namespaces, repositories,
 * destinations and resources a project allows, the conditions the application controller sets when
 * an Application breaks them, the per-resource sync check, and the service account a sync
 * impersonates. Typed data in, typed data out; no I/O. See docs/projects.md.
 */
export { isAppNamespacePermitted } from "./app-namespace.js";
export {
  projectWithScopedResources,
  resolveDestinationCluster,
  trimSlashes,
  type ClusterLookup,
  type ClusterResolution,
  type ProjectCluster,
  type ScopedResources,
} from "./clusters.js";
export { permissionConditions, projectConditions, type ProjectCondition, type ProjectConditionsInput } from "./conditions.js";
export {
  isDestinationMatched,
  isDestinationPermitted,
  isDestinationPermittedByProject,
  type DestinationCluster,
  type ResolvedDestination,
} from "./destinations.js";
export { globSyntaxError } from "./glob-errors.js";
export { knownClusters, resolveDestination, type KnownCluster, type KnownClusters } from "./known-clusters.js";
export {
  impersonationDecision,
  serviceAccountToImpersonate,
  type ImpersonationAccount,
  type ImpersonationDecision,
} from "./impersonation.js";
export { DestinationMessage, ImpersonationMessage, ProjectMessage, SourceMessage, SyncPermissionMessage } from "./messages.js";
export { isDenyPattern, negatableMatch } from "./patterns.js";
export { filepathMatch, isGroupKindNamePermitted, type ResourceGroupKind } from "./resources.js";
export { goSourceString, hydratorShapeErrors, sourceShapeError } from "./source-shape.js";
export { isSourcePermitted } from "./source-repos.js";
export { syncPermissionError, type SyncResource } from "./sync-permission.js";
