/**
 * What the ApplicationSet controller writes into an ApplicationSet's status and events: condition
 * types, reasons and messages, health, and the RollingSync strings, Argo CD's values verbatim.
 */

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

/**
 * This controller's own condition type (Argo CD never sets it): what the spec asks for that is
 * accepted as Argo CD accepts it but is likely not meant (docs/controller.md#spec-warnings).
 */
export const SPEC_WARNING_CONDITION = "SpecWarning";

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
// Events (docs/controller.md#kubernetes-events)
// ---------------------------------------------------------------------------------------------

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
