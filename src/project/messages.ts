/**
 * The messages of Argo CD v3.6.2's AppProject checks, written as Argo CD words them: the
 * Application conditions of a refresh (missing project, namespace not permitted, source and
 * destination errors), the destination lookup errors, the per-resource sync refusals and the
 * impersonation errors. One place, so the engine and the tests use named formats. Pure core:
 * facts from Argo CD v3.6.2 (controller/appcontroller.go, util/argo/argo.go, util/db/cluster.go,
 * controller/sync.go, util/settings/impersonation.go).
 */
import { goQuote } from "../template/go/format.js";

/** The conditions of an Application whose project does not let it go on (refresh time). */
export const ProjectMessage = {
  /** The project named by `spec.project` is not found (Go's `%s` of the raw `spec.project`). */
  projectNotFound: (project: string): string => `Application referencing project ${project} which does not exist`,
  /** The Application's namespace is not among the project's `sourceNamespaces`. */
  namespaceNotPermitted: (app: string, namespace: string, project: string): string =>
    `application '${app}' in namespace '${namespace}' is not permitted to use project '${project}'`,
  /** A source (or a hydrator's dry source) whose repository the project does not allow. */
  repoNotPermitted: (repoURL: string, project: string): string => `application repo ${repoURL} is not permitted in project '${project}'`,
  /** A hydrator's sync source in another repository the project does not allow. */
  syncSourceRepoNotPermitted: (repoURL: string, project: string): string =>
    `sync source repo ${repoURL} is not permitted in project '${project}'`,
  /** The resolved cluster and namespace match no allowed destination (`server` is the cluster's name for a destination by name). */
  destinationNotPermitted: (server: string, namespace: string, project: string): string =>
    `application destination server '${server}' and namespace '${namespace}' do not match any of the allowed destinations in project '${project}'`,
} as const;

/** The shape errors of a source, checked before its repository. */
export const SourceMessage = {
  /** A single source without a repository, or without a path and a chart. */
  missingPathOrChart: "spec.source.repoURL and either spec.source.path or spec.source.chart are required",
  /** One of several sources without a repository, or without a path, a chart and a ref (`source` is Go's `%s` of it). */
  missingPathChartOrRef: (source: string): string =>
    `spec.source.repoURL and either source.path, source.chart, or source.ref are required for source ${source}`,
  /** A Helm chart source without a version. */
  chartWithoutRevision: "spec.source.targetRevision is required if the manifest source is a helm chart",
  /** A hydrator without a dry repository. */
  hydratorDryRepoMissing: "spec.sourceHydrator.drySource.repoURL is required",
  /** A hydrator without a sync branch. */
  hydratorSyncBranchMissing: "spec.sourceHydrator.syncSource.targetBranch is required",
  /** A hydrator's `hydrateTo` without a branch. */
  hydratorHydrateToBranchMissing: "when spec.sourceHydrator.hydrateTo is set, spec.sourceHydrator.hydrateTo.targetBranch is required",
} as const;

/** The errors of resolving an Application destination to a known cluster (Argo CD's `GetDestinationCluster`). */
export const DestinationMessage = {
  /** Both `name` and `server` are set. */
  bothNameAndServer: (name: string, server: string): string =>
    `application destination can't have both name and server defined: ${name} ${server}`,
  /** Neither `name` nor `server` is set. */
  serverMissing: "Destination server missing from app spec",
  /** No known cluster has this name. */
  noClusterWithName: (name: string): string => `there are no clusters with this name: ${name}`,
  /** Several known clusters have this name. */
  sameName: (count: number, servers: readonly string[]): string =>
    `there are ${String(count)} clusters with the same name: [${servers.join(" ")}]`,
  /** The lookup of a destination given by server failed (`server` as written in the spec). */
  byServer: (server: string, cause: string): string => `error getting cluster by server ${goQuote(server)}: ${cause}`,
  /** Argo CD's database answers an unknown server with a gRPC NotFound status (`server` without trailing slashes). */
  clusterNotFound: (server: string): string => `rpc error: code = NotFound desc = cluster ${goQuote(server)} not found`,
  /** The in-cluster server named while `cluster.inClusterEnabled` is "false". */
  clusterDisabled: (server: string): string => `rpc error: code = NotFound desc = cluster ${goQuote(server)} is disabled`,
} as const;

/** The per-resource refusals of a sync (Argo CD's `validateSyncPermissions`). */
export const SyncPermissionMessage = {
  /** The apiserver does not serve the resource's kind. */
  apiResourceUnknown: (group: string, kind: string): string =>
    `failed to get API resource info for ${group}/${kind}: unable to verify permissions`,
  /** The project's resource lists refuse the kind (or the cluster-scoped name). */
  resourceNotPermitted: (group: string, kind: string, project: string): string =>
    `resource ${group}:${kind} is not permitted in project ${project}`,
  /** A namespaced resource's namespace is not an allowed destination (Go's `%v` prints "" as nothing). */
  namespaceNotPermitted: (namespace: string, project: string): string => `namespace ${namespace} is not permitted in project '${project}'`,
} as const;

/** The errors and outcomes of choosing the service account a sync impersonates. */
export const ImpersonationMessage = {
  /** A `destinationServiceAccounts` server pattern that does not compile. */
  invalidServerGlob: (cause: string): string => `invalid glob pattern for destination server: ${cause}`,
  /** A `destinationServiceAccounts` namespace pattern that does not compile. */
  invalidNamespaceGlob: (cause: string): string => `invalid glob pattern for destination namespace: ${cause}`,
  /** The matching entry's account is blank or holds one of `!*[]{}\/`. */
  invalidAccount: (account: string): string => `default service account contains invalid chars '${account}'`,
  /** The operation message when the account cannot be derived. */
  deriveFailed: (cause: string): string => `failed to derive service account to impersonate: ${cause}`,
  /** The `DeletionError` of an Application whose deletion cannot derive the account. */
  deletionFailed: (cause: string): string => `cannot apply impersonation: error deriving service account to impersonate: ${cause}`,
  /** The operation message when no entry matches and impersonation is enforced. */
  noMatch: (server: string, namespace: string): string =>
    `no matching service account found for destination server ${server} and namespace ${namespace}`,
} as const;
