/**
 * The Application's status codes, hook types and policies, sync and compare options, condition
 * types and field defaults, Argo CD's values verbatim (docs/sync-engine.md).
 */

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

/** Application condition types read or written by the controllers. */
export const AppConditionType = {
  InvalidSpecError: "InvalidSpecError",
  UnknownError: "UnknownError",
  ComparisonError: "ComparisonError",
  SyncError: "SyncError",
  DeletionError: "DeletionError",
  SharedResourceWarning: "SharedResourceWarning",
  OrphanedResourceWarning: "OrphanedResourceWarning",
  RepeatedResourceWarning: "RepeatedResourceWarning",
  ExcludedResourceWarning: "ExcludedResourceWarning",
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

/**
 * The `status` Argo CD's controller writes into every Application it creates: Go encodes the zero
 * `ApplicationStatus`, whose struct-typed fields are never left out (docs/spec-equivalence.md).
 * The application controller fills it in on its first refresh.
 */
export function emptyApplicationStatus(): { [k: string]: unknown } {
  return { health: {}, sourceHydrator: {}, summary: {}, sync: { comparedTo: { destination: {}, source: { repoURL: "" } }, status: "" } };
}
