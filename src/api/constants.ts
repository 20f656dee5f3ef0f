/**
 * Every externally visible string of the project in one place: API coordinates, condition types,
 * reasons and messages, annotation / label / finalizer keys, and the status code sets of
 * Applications and ApplicationSets. The values are Argo CD's, verbatim; the reconcile path uses
 * these names and never inline literals.
 */

// ---------------------------------------------------------------------------------------------
// API coordinates
// ---------------------------------------------------------------------------------------------

/** The API group of every Argo CD resource. */
export const API_GROUP = "argoproj.io";
/** The only served and stored version. */
export const API_VERSION = "v1alpha1";
/** `apiVersion` of every Argo CD resource. */
export const GROUP_VERSION = "argoproj.io/v1alpha1";

/** Resource kinds. */
export const Kind = {
  ApplicationSet: "ApplicationSet",
  Application: "Application",
  AppProject: "AppProject",
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

/** Plural resource names (the REST path segment). */
export const Plural = {
  ApplicationSet: "applicationsets",
  Application: "applications",
  AppProject: "appprojects",
} as const;

/** Singular resource names. */
export const Singular = {
  ApplicationSet: "applicationset",
  Application: "application",
  AppProject: "appproject",
} as const;

/** Short names, as Argo CD's CRDs declare them. */
export const ShortNames = {
  ApplicationSet: ["appset", "appsets"],
  Application: ["app", "apps"],
  AppProject: ["appproj", "appprojs"],
} as const;

// ---------------------------------------------------------------------------------------------
// ApplicationSet conditions (docs/controller.md#conditions-and-health)
// ---------------------------------------------------------------------------------------------

/** ApplicationSet condition types. */
export const ConditionType = {
  ErrorOccurred: "ErrorOccurred",
  ParametersGenerated: "ParametersGenerated",
  ResourcesUpToDate: "ResourcesUpToDate",
  RolloutProgressing: "RolloutProgressing",
  InvalidRolloutConfig: "InvalidRolloutConfig",
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

/** Condition status values. */
export const ConditionStatus = { True: "True", False: "False", Unknown: "Unknown" } as const;
export type ConditionStatus = (typeof ConditionStatus)[keyof typeof ConditionStatus];

/** The 15 ApplicationSet condition reasons (Argo CD's `ApplicationSetReason*`). */
export const Reason = {
  ErrorOccurred: "ErrorOccurred",
  ApplicationSetUpToDate: "ApplicationSetUpToDate",
  ParametersGenerated: "ParametersGenerated",
  UpdateApplicationError: "UpdateApplicationError",
  ApplicationGenerationFromParamsError: "ApplicationGenerationFromParamsError",
  RenderTemplateParamsError: "RenderTemplateParamsError",
  CreateApplicationError: "CreateApplicationError",
  DeleteApplicationError: "DeleteApplicationError",
  RefreshApplicationError: "RefreshApplicationError",
  ApplicationValidationError: "ApplicationValidationError",
  ApplicationSetModified: "ApplicationSetModified",
  ApplicationSetRolloutComplete: "ApplicationSetRolloutComplete",
  ApplicationSetRolloutError: "ApplicationSetRolloutError",
  ApplicationSetInvalidRolloutConfig: "ApplicationSetInvalidRolloutConfig",
  ApplicationSetValidRolloutConfig: "ApplicationSetValidRolloutConfig",
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/**
 * Reason of the error returned when a resource read at the edge does not match its schema
 * (not an Argo CD condition reason: such objects never reach the reconciler).
 */
export const INVALID_OBJECT_REASON = "InvalidObject";

/** Fixed condition and health messages, verbatim. */
export const ConditionMessage = {
  /** `ResourcesUpToDate=True` (and the derived `ErrorOccurred=False`). */
  AllApplicationsGenerated: "All applications have been generated successfully",
  /** `ParametersGenerated=True`. */
  ParametersGenerated: "All parameters have been generated successfully",
  /** `ParametersGenerated=False` synthesized with no ErrorOccurred message to copy. */
  ProgressiveSyncFallback: "progressive sync",
  /** `ErrorOccurred=True` for RollingSync without steps. */
  NoStepsDefined: "No steps defined for rollout",
  /** `RolloutProgressing=False`. */
  RolloutComplete: "ApplicationSet Rollout has completed",
  /** `InvalidRolloutConfig=False`. */
  RollingSyncConfigured: "Rolling Sync Configured correctly",
  /** `status.health` with no conditions. */
  NoStatusConditions: "No status conditions found for ApplicationSet",
  /** `status.health` when no rule decides. */
  WaitingForHealth: "Waiting for health status to be determined",
} as const;

/** `RolloutProgressing=True` message: "ApplicationSet is performing rollout of step N". */
export function rolloutStepMessage(step: number | string): string {
  return `ApplicationSet is performing rollout of step ${String(step)}`;
}

/** Suffix appended to the last validation error when more Applications failed: " (and N more)". */
export function andMoreSuffix(more: number): string {
  return ` (and ${String(more)} more)`;
}

/** ApplicationSet `status.health.status` values. */
export const AppSetHealth = {
  Healthy: "Healthy",
  Progressing: "Progressing",
  Degraded: "Degraded",
  Unknown: "Unknown",
} as const;

// ---------------------------------------------------------------------------------------------
// Progressive Syncs (docs/progressive-syncs.md)
// ---------------------------------------------------------------------------------------------

/** `strategy.type` values. Anything other than RollingSync behaves as AllAtOnce. */
export const StrategyType = { AllAtOnce: "AllAtOnce", RollingSync: "RollingSync" } as const;

/** `strategy.deletionOrder` values (Reverse is compared case-insensitively). */
export const DeletionOrder = { AllAtOnce: "AllAtOnce", Reverse: "Reverse" } as const;

/** Per-Application RollingSync status (`status.applicationStatus[].status`). */
export const RollingSyncStatus = {
  Waiting: "Waiting",
  Pending: "Pending",
  Progressing: "Progressing",
  Healthy: "Healthy",
} as const;
export type RollingSyncStatus = (typeof RollingSyncStatus)[keyof typeof RollingSyncStatus];

/** `applicationStatus[].step` of an Application matched by no step. */
export const UNASSIGNED_STEP = "-1";

/** Per-Application status messages of the RollingSync state machine, Argo CD's words (docs/progressive-syncs.md#per-application-status). */
export const AppStatusMessage = {
  Defaulted: "No Application status found, defaulting status to Waiting",
  PendingChangesBoth: "Application has pending changes (revision and spec differ), setting status to Waiting",
  PendingChangesRevision: "Application has pending changes, setting status to Waiting",
  PendingChangesSpec: "Application has pending changes (spec differs), setting status to Waiting",
  WaitingToHealthy: "Application resource has synced, updating status to Healthy",
  WaitingToProgressing: "Application resource has synced, updating status to Progressing",
  PendingSyncSucceeded: "Application resource completed a sync successfully, updating status from Pending to Progressing",
  PendingSyncCompleted: "Application resource completed a sync, updating status from Pending to Progressing",
  PendingBecameProgressing: "Application resource became Progressing, updating status from Pending to Progressing",
  PendingHasError: "Application resource has error and cannot sync, updating status to Progressing",
  ProgressingToHealthy: "Application resource became Healthy, updating status from Progressing to Healthy",
  MovedToPending: "Application moved to Pending status, watching for the Application resource to start Progressing",
} as const;

/** The sync Operation a RollingSync step attaches to an Application (docs/progressive-syncs.md#the-sync-operation). */
export const RollingSyncOperation = {
  username: "applicationset-controller",
  infoName: "Reason",
  infoValue: "ApplicationSet RollingSync triggered a sync of this Application resource",
  /** Retry used when the template has no `syncPolicy.retry`. */
  defaultRetryLimit: 5,
} as const;

/** `syncPolicy.applicationsSync` values (enforced by the CRD). */
export const ApplicationsSyncPolicy = {
  CreateOnly: "create-only",
  CreateUpdate: "create-update",
  CreateDelete: "create-delete",
  Sync: "sync",
} as const;
export type ApplicationsSyncPolicy = (typeof ApplicationsSyncPolicy)[keyof typeof ApplicationsSyncPolicy];
/** The four policies in CRD enum order. */
export const APPLICATIONS_SYNC_POLICIES = ["create-only", "create-update", "create-delete", "sync"] as const;

// ---------------------------------------------------------------------------------------------
// Annotations, labels, finalizers
// ---------------------------------------------------------------------------------------------

/** Annotation keys. */
export const Annotation = {
  /** On an ApplicationSet: force a refresh (bypasses the Git revision cache); removed afterwards. */
  ApplicationSetRefresh: "argocd.argoproj.io/application-set-refresh",
  /** On an Application: request a refresh (`normal` or `hard`). */
  Refresh: "argocd.argoproj.io/refresh",
  /** On an Application: request hydration; preserved from the live App. */
  Hydrate: "argocd.argoproj.io/hydrate",
  /** Notifications bookkeeping; preserved from the live App. */
  NotifiedNotifications: "notified.notifications.argoproj.io",
  /** Resource sync wave (signed integer). */
  SyncWave: "argocd.argoproj.io/sync-wave",
  /** Hook types (CSV). */
  Hook: "argocd.argoproj.io/hook",
  /** Hook delete policies (CSV). */
  HookDeletePolicy: "argocd.argoproj.io/hook-delete-policy",
  /** Per-resource sync options (CSV). */
  SyncOptions: "argocd.argoproj.io/sync-options",
  /** Per-resource compare options (CSV). */
  CompareOptions: "argocd.argoproj.io/compare-options",
  /** Annotation-based resource tracking id (`<app>:<group>/<kind>:<ns>/<name>`). */
  TrackingId: "argocd.argoproj.io/tracking-id",
  /** On a Namespace: the Argo CD namespace that manages it. */
  ManagedBy: "argocd.argoproj.io/managed-by",
  /** Resource is left out of the Application's health. */
  IgnoreHealthcheck: "argocd.argoproj.io/ignore-healthcheck",
  /** Pod health ignores the restart policy. */
  IgnoreRestartPolicy: "argocd.argoproj.io/ignore-restart-policy",
  /** Approval of a `Delete=confirm` / `Prune=confirm` resource. */
  DeletionApproved: "argocd.argoproj.io/deletion-approved",
  /** Field manager used for the client-side to server-side apply migration. */
  ClientSideApplyMigrationManager: "argocd.argoproj.io/client-side-apply-migration-manager",
  /** Skips reconciliation of an Application. */
  SkipReconcile: "argocd.argoproj.io/skip-reconcile",
  /** Paths whose changes trigger manifest generation (webhook optimisation). */
  ManifestGeneratePaths: "argocd.argoproj.io/manifest-generate-paths",
  /** kubectl's record of the last applied object (used to name unrecognized generators). */
  LastAppliedConfiguration: "kubectl.kubernetes.io/last-applied-configuration",
  /** Helm hook types (CSV), fallback when no Argo hook annotation. */
  HelmHook: "helm.sh/hook",
  /** Helm hook delete policies (CSV). */
  HelmHookDeletePolicy: "helm.sh/hook-delete-policy",
  /** Helm hook weight: the wave fallback. */
  HelmHookWeight: "helm.sh/hook-weight",
  /** `keep` excludes the resource from cascade deletion. */
  HelmResourcePolicy: "helm.sh/resource-policy",
} as const;

/** Values of the Application refresh annotation. */
export const RefreshType = { Normal: "normal", Hard: "hard" } as const;

/** Annotations always preserved from the live Application (docs/controller.md#creating-and-updating-applications). */
export const DEFAULT_PRESERVED_ANNOTATIONS = [Annotation.NotifiedNotifications, Annotation.Refresh, Annotation.Hydrate] as const;

/** Label keys. */
export const Label = {
  /** Kind of an Argo CD Secret (`cluster`, `repository`, `repo-creds`, `scm-creds`). */
  SecretType: "argocd.argoproj.io/secret-type",
  /** On a cluster Secret: ask Argo CD to label it with cluster info. */
  AutoLabelClusterInfo: "argocd.argoproj.io/auto-label-cluster-info",
  /** Set by Argo CD on labelled cluster Secrets. */
  KubernetesVersion: "argocd.argoproj.io/kubernetes-version",
  /** Label-based resource tracking (Argo CD's default application instance label). */
  AppInstance: "app.kubernetes.io/instance",
  /** `argocd` on every Argo CD owned object. */
  PartOf: "app.kubernetes.io/part-of",
} as const;

/** Values of the `argocd.argoproj.io/secret-type` label. */
export const SecretType = {
  Cluster: "cluster",
  Repository: "repository",
  RepoCreds: "repo-creds",
  ScmCreds: "scm-creds",
} as const;

/** Finalizer names. */
export const Finalizer = {
  /** Cascade-deletes an Application's resources; also guards ApplicationSet reverse deletion. */
  Resources: "resources-finalizer.argocd.argoproj.io",
  ResourcesForeground: "resources-finalizer.argocd.argoproj.io/foreground",
  ResourcesBackground: "resources-finalizer.argocd.argoproj.io/background",
  /** Prefix matched when preserving PreDelete finalizers from the live Application. */
  PreDelete: "pre-delete-finalizer.argocd.argoproj.io",
  PreDeleteCleanup: "pre-delete-finalizer.argocd.argoproj.io/cleanup",
  /** Prefix matched when preserving PostDelete finalizers from the live Application. */
  PostDelete: "post-delete-finalizer.argocd.argoproj.io",
  PostDeleteCleanup: "post-delete-finalizer.argocd.argoproj.io/cleanup",
  /** Put on every hook object before it is applied. */
  Hook: "argocd.argoproj.io/hook-finalizer",
} as const;

// ---------------------------------------------------------------------------------------------
// Application status codes (docs/sync-engine.md#task-states, docs/sync-engine.md#health)
// ---------------------------------------------------------------------------------------------

/** Health status codes, ordered from best to worst for aggregation. */
export const HealthStatus = {
  Healthy: "Healthy",
  Suspended: "Suspended",
  Progressing: "Progressing",
  Missing: "Missing",
  Degraded: "Degraded",
  Unknown: "Unknown",
} as const;
export type HealthStatus = (typeof HealthStatus)[keyof typeof HealthStatus];

/** Sync status codes. */
export const SyncStatus = { Synced: "Synced", OutOfSync: "OutOfSync", Unknown: "Unknown" } as const;
export type SyncStatus = (typeof SyncStatus)[keyof typeof SyncStatus];

/** Operation phases (`status.operationState.phase`, also per-result `hookPhase`). */
export const OperationPhase = {
  Running: "Running",
  Terminating: "Terminating",
  Failed: "Failed",
  Error: "Error",
  Succeeded: "Succeeded",
} as const;
export type OperationPhase = (typeof OperationPhase)[keyof typeof OperationPhase];

/** Per-resource result codes (`syncResult.resources[].status`). */
export const ResultCode = {
  Synced: "Synced",
  SyncFailed: "SyncFailed",
  Pruned: "Pruned",
  PruneSkipped: "PruneSkipped",
} as const;
export type ResultCode = (typeof ResultCode)[keyof typeof ResultCode];

/** Hook types (values of the hook annotation). PreDelete/PostDelete run on Application deletion. */
export const HookType = {
  PreSync: "PreSync",
  Sync: "Sync",
  PostSync: "PostSync",
  SyncFail: "SyncFail",
  Skip: "Skip",
  PreDelete: "PreDelete",
  PostDelete: "PostDelete",
} as const;
export type HookType = (typeof HookType)[keyof typeof HookType];

/** Sync phases, in execution order. */
export const SyncPhase = { PreSync: "PreSync", Sync: "Sync", PostSync: "PostSync", SyncFail: "SyncFail" } as const;
export type SyncPhase = (typeof SyncPhase)[keyof typeof SyncPhase];

/** Hook delete policies and their annotation spellings. */
export const HookDeletePolicy = {
  BeforeHookCreation: "BeforeHookCreation",
  HookSucceeded: "HookSucceeded",
  HookFailed: "HookFailed",
} as const;
export type HookDeletePolicy = (typeof HookDeletePolicy)[keyof typeof HookDeletePolicy];

/** Helm delete-policy annotation values mapped to Argo CD's policies. */
export const HELM_DELETE_POLICIES: Readonly<Record<string, HookDeletePolicy>> = {
  "before-hook-creation": "BeforeHookCreation",
  "hook-succeeded": "HookSucceeded",
  "hook-failed": "HookFailed",
};

/** Helm hook annotation values mapped to Argo CD hook types (unmapped values yield no type). */
export const HELM_HOOK_TYPES: Readonly<Record<string, HookType>> = {
  "pre-install": "PreSync",
  "pre-upgrade": "PreSync",
  "post-install": "PostSync",
  "post-upgrade": "PostSync",
  "pre-delete": "PreDelete",
  "post-delete": "PostDelete",
};

/** Sync options (Application `syncPolicy.syncOptions` or the per-resource annotation), verbatim. */
export const SyncOption = {
  CreateNamespace: "CreateNamespace=true",
  ServerSideApply: "ServerSideApply=true",
  ServerSideApplyOff: "ServerSideApply=false",
  Replace: "Replace=true",
  Force: "Force=true",
  ValidateOff: "Validate=false",
  SkipDryRunOnMissingResource: "SkipDryRunOnMissingResource=true",
  PruneLast: "PruneLast=true",
  PruneOff: "Prune=false",
  PruneConfirm: "Prune=confirm",
  DeleteOff: "Delete=false",
  DeleteConfirm: "Delete=confirm",
  ApplyOutOfSyncOnly: "ApplyOutOfSyncOnly=true",
  RespectIgnoreDifferences: "RespectIgnoreDifferences=true",
  FailOnSharedResource: "FailOnSharedResource=true",
  ClientSideApplyMigrationOff: "ClientSideApplyMigration=false",
  PrunePropagationForeground: "PrunePropagationPolicy=foreground",
  PrunePropagationBackground: "PrunePropagationPolicy=background",
  PrunePropagationOrphan: "PrunePropagationPolicy=orphan",
} as const;

/** Compare options (per-resource annotation or Application level), verbatim. */
export const CompareOption = {
  IgnoreExtraneous: "IgnoreExtraneous",
  ServerSideDiff: "ServerSideDiff=true",
  ServerSideDiffOff: "ServerSideDiff=false",
  IncludeMutationWebhook: "IncludeMutationWebhook=true",
} as const;

/** Reasons of the Normal events the ApplicationSet controller records on an ApplicationSet (docs/controller.md#kubernetes-events). */
export const EventReason = {
  Created: "created",
  Updated: "updated",
  Deleted: "Deleted",
  FinalizerUpdated: "Updated",
} as const;

/** Event messages, Argo CD's words. */
export const EventMessage = {
  created: (app: string): string => `created Application ${JSON.stringify(app)}`,
  updated: (app: string): string => `updated Application ${JSON.stringify(app)}`,
  deleted: (app: string): string => `Deleted Application ${JSON.stringify(app)}`,
  finalizerUpdated: (app: string): string =>
    `Updated Application ${JSON.stringify(app)} finalizer before deletion, because application has an invalid destination`,
} as const;

/** Application condition types read or written by the controllers. */
export const AppConditionType = {
  InvalidSpecError: "InvalidSpecError",
  UnknownError: "UnknownError",
  ComparisonError: "ComparisonError",
  SyncError: "SyncError",
  DeletionError: "DeletionError",
  SharedResourceWarning: "SharedResourceWarning",
  OrphanedResourceWarning: "OrphanedResourceWarning",
} as const;

/** Defaults of Application fields. */
export const ApplicationDefaults = {
  /** `spec.revisionHistoryLimit` when unset. */
  revisionHistoryLimit: 10,
  /** Project used when `spec.project` is empty. */
  project: "default",
  /** `operation.retry.backoff` when unset. */
  backoffDuration: "5s",
  backoffFactor: 2,
  backoffMaxDuration: "3m",
} as const;

// ---------------------------------------------------------------------------------------------
// Clusters
// ---------------------------------------------------------------------------------------------

/** The synthetic local cluster every Argo CD knows without a Secret. */
export const InCluster = { name: "in-cluster", server: "https://kubernetes.default.svc" } as const;

/** The component name the controller reports events and operations under. */
export const CONTROLLER_COMPONENT = "applicationset-controller";

/**
 * The `status` Argo CD's controller writes into every Application it creates: Go encodes the zero
 * `ApplicationStatus`, whose struct-typed fields are never left out (docs/spec-equivalence.md).
 * The application controller fills it in on its first refresh.
 */
export function emptyApplicationStatus(): { [k: string]: unknown } {
  return { health: {}, sourceHydrator: {}, summary: {}, sync: { comparedTo: { destination: {}, source: { repoURL: "" } }, status: "" } };
}
