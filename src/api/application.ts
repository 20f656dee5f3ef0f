/**
 * Argo CD `Application` (argoproj.io/v1alpha1): spec, the `operation` a sync request carries, and
 * the status the sync engine writes (sources and the hydrator are in `application-source.ts`).
 * Field names are Argo CD's JSON names. Status codes are plain strings here (a newer Argo CD may add
 * values); compare them with the sets in `application-status.ts`.
 */
import { z } from "zod";
import { GROUP_VERSION } from "./constants.js";
import { CRD_REQUIRED, infoSchema, objectMetaSchema, stringMapSchema, timeSchema, typeMetaShape } from "./meta.js";
import { describeObject, parseWith, type ParseResult } from "./parse.js";
import { applicationSourceSchema, sourceHydratorSchema, sourceHydratorStatusSchema } from "./application-source.js";

export * from "./application-source.js";

// ---------------------------------------------------------------------------------------------
// Spec
// ---------------------------------------------------------------------------------------------

/** The target cluster and namespace. `server` and `name` are mutually exclusive at runtime. */
export const applicationDestinationSchema = z.looseObject({
  server: z.string().optional().describe("API server URL of the target cluster."),
  name: z.string().optional().describe("Name of the target cluster as registered in Argo CD (instead of server)."),
  namespace: z.string().optional().describe("Namespace given to namespaced resources that have none."),
});
export type ApplicationDestination = z.infer<typeof applicationDestinationSchema>;

/** Retry backoff. `duration`/`maxDuration` are a bare number of seconds or a Go duration. */
export const backoffSchema = z.looseObject({
  duration: z.string().optional(),
  factor: z.number().int().optional(),
  maxDuration: z.string().optional(),
});
export type Backoff = z.infer<typeof backoffSchema>;

/** Retry strategy of a failed sync (`limit`: 0 = none, negative = unlimited). */
export const retryStrategySchema = z.looseObject({
  limit: z.number().int().optional(),
  backoff: backoffSchema.optional(),
  refresh: z.boolean().optional(),
});
export type RetryStrategy = z.infer<typeof retryStrategySchema>;

/** Automated sync. `enabled: false` keeps the block but turns autosync off (RollingSync uses it). */
export const syncPolicyAutomatedSchema = z.looseObject({
  prune: z.boolean().optional().describe("Delete resources that are no longer in the desired state."),
  selfHeal: z.boolean().optional().describe("Sync again when the live state drifts from the desired state."),
  allowEmpty: z.boolean().optional().describe("Allow a sync that leaves the Application without resources."),
  enabled: z.boolean().optional().describe("Set to false to turn automated sync off while keeping its settings."),
});
export type SyncPolicyAutomated = z.infer<typeof syncPolicyAutomatedSchema>;

/** Labels and annotations put on a namespace created by `CreateNamespace=true`. */
export const managedNamespaceMetadataSchema = z.looseObject({
  labels: stringMapSchema.optional(),
  annotations: stringMapSchema.optional(),
});
export type ManagedNamespaceMetadata = z.infer<typeof managedNamespaceMetadataSchema>;

/** An Application's sync policy. */
export const syncPolicySchema = z.looseObject({
  automated: syncPolicyAutomatedSchema.optional().describe("Sync automatically whenever the desired state changes."),
  syncOptions: z.array(z.string()).optional().describe("Sync options, such as CreateNamespace=true or ServerSideApply=true."),
  retry: retryStrategySchema.optional().describe("How a failed sync is retried."),
  managedNamespaceMetadata: managedNamespaceMetadataSchema
    .optional()
    .describe("Labels and annotations of the namespace that CreateNamespace=true creates."),
});
export type SyncPolicy = z.infer<typeof syncPolicySchema>;

/** A rule that hides differences of matching resources from the comparison. */
export const resourceIgnoreDifferencesSchema = z.looseObject({
  group: z.string().optional(),
  kind: z.string(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  jsonPointers: z.array(z.string()).optional(),
  jqPathExpressions: z.array(z.string()).optional(),
  managedFieldsManagers: z.array(z.string()).optional(),
});
export type ResourceIgnoreDifferences = z.infer<typeof resourceIgnoreDifferencesSchema>;

/** Application `spec`. `destination` and `project` are required, as in Argo CD's CRD. */
export const applicationSpecSchema = z.looseObject({
  project: z.string().describe("The AppProject the Application belongs to, which limits its sources and destinations."),
  destination: applicationDestinationSchema.describe("The cluster (by server URL or by name) and the namespace to deploy to."),
  source: applicationSourceSchema.optional().describe("Where the manifests come from."),
  sources: z
    .array(applicationSourceSchema)
    .optional()
    .describe("Several sources whose manifests are deployed together (instead of source)."),
  syncPolicy: syncPolicySchema.optional().describe("When and how the Application is synced."),
  ignoreDifferences: z
    .array(resourceIgnoreDifferencesSchema)
    .optional()
    .describe("Fields of the live resources that are ignored when comparing them with the desired state."),
  revisionHistoryLimit: z.number().int().optional().describe("How many past syncs status.history keeps (10 when unset)."),
  info: z.array(infoSchema).optional().describe("Extra name/value pairs shown with the Application."),
  sourceHydrator: sourceHydratorSchema
    .optional()
    .describe("Render a dry source into a Git branch and sync from that branch (instead of source)."),
});
export type ApplicationSpec = z.infer<typeof applicationSpecSchema>;

// ---------------------------------------------------------------------------------------------
// Operation
// ---------------------------------------------------------------------------------------------

/** One resource named by a selective sync. */
export const syncOperationResourceSchema = z.looseObject({
  group: z.string().optional(),
  kind: z.string(),
  name: z.string(),
  namespace: z.string().optional(),
});
export type SyncOperationResource = z.infer<typeof syncOperationResourceSchema>;

/** `apply` or `hook` sync strategy (nil means hook). */
export const syncStrategySchema = z.looseObject({
  apply: z.looseObject({ force: z.boolean().optional() }).optional(),
  hook: z.looseObject({ force: z.boolean().optional() }).optional(),
});
export type SyncStrategy = z.infer<typeof syncStrategySchema>;

/** The sync request of an operation. */
export const syncOperationSchema = z.looseObject({
  revision: z.string().optional(),
  revisions: z.array(z.string()).optional(),
  prune: z.boolean().optional(),
  dryRun: z.boolean().optional(),
  syncStrategy: syncStrategySchema.optional(),
  resources: z.array(syncOperationResourceSchema).optional(),
  source: applicationSourceSchema.optional(),
  sources: z.array(applicationSourceSchema).optional(),
  manifests: z.array(z.string()).optional(),
  syncOptions: z.array(z.string()).optional(),
  autoHealAttemptsCount: z.number().int().optional(),
});
export type SyncOperation = z.infer<typeof syncOperationSchema>;

/** Who started an operation: a user name, or `automated: true`. */
export const operationInitiatorSchema = z.looseObject({
  username: z.string().optional(),
  automated: z.boolean().optional(),
});
export type OperationInitiator = z.infer<typeof operationInitiatorSchema>;

/** A requested operation (`Application.operation`). */
export const operationSchema = z.looseObject({
  sync: syncOperationSchema.optional(),
  initiatedBy: operationInitiatorSchema.optional(),
  info: z.array(infoSchema).optional(),
  retry: retryStrategySchema.optional(),
});
export type Operation = z.infer<typeof operationSchema>;

// ---------------------------------------------------------------------------------------------
// Status
// ---------------------------------------------------------------------------------------------

/** Health of an Application or of one resource. */
export const healthStatusSchema = z.looseObject({
  status: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: timeSchema,
});
export type HealthStatusInfo = z.infer<typeof healthStatusSchema>;

/** What the last comparison compared against. */
export const comparedToSchema = z.looseObject({
  source: applicationSourceSchema.optional(),
  sources: z.array(applicationSourceSchema).optional(),
  destination: applicationDestinationSchema.optional().meta(CRD_REQUIRED),
  ignoreDifferences: z.array(resourceIgnoreDifferencesSchema).optional(),
});
export type ComparedTo = z.infer<typeof comparedToSchema>;

/** `status.sync`: the result of the last comparison. */
export const syncStatusSchema = z.looseObject({
  status: z.string(),
  revision: z.string().optional(),
  revisions: z.array(z.string()).optional(),
  comparedTo: comparedToSchema.optional(),
});
export type SyncStatusInfo = z.infer<typeof syncStatusSchema>;

/** One managed resource (`status.resources[]`; also ApplicationSet `status.resources[]`). */
export const resourceStatusSchema = z.looseObject({
  group: z.string().optional(),
  version: z.string().optional(),
  kind: z.string().optional(),
  namespace: z.string().optional(),
  name: z.string().optional(),
  status: z.string().optional(),
  health: healthStatusSchema.optional(),
  hook: z.boolean().optional(),
  requiresPruning: z.boolean().optional(),
  syncWave: z.number().int().optional(),
  requiresDeletionConfirmation: z.boolean().optional(),
});
export type ResourceStatus = z.infer<typeof resourceStatusSchema>;

/** One resource's outcome in a sync (`syncResult.resources[]`). */
export const resourceResultSchema = z.looseObject({
  group: z.string(),
  version: z.string(),
  kind: z.string(),
  namespace: z.string(),
  name: z.string(),
  status: z.string().optional(),
  message: z.string().optional(),
  hookType: z.string().optional(),
  hookPhase: z.string().optional(),
  syncPhase: z.string().optional(),
  images: z.array(z.string()).optional(),
});
export type ResourceResult = z.infer<typeof resourceResultSchema>;

/** The result of a sync operation. */
export const syncOperationResultSchema = z.looseObject({
  resources: z.array(resourceResultSchema).optional(),
  revision: z.string(),
  revisions: z.array(z.string()).optional(),
  source: applicationSourceSchema.optional(),
  sources: z.array(applicationSourceSchema).optional(),
  managedNamespaceMetadata: managedNamespaceMetadataSchema.optional(),
});
export type SyncOperationResult = z.infer<typeof syncOperationResultSchema>;

/** `status.operationState`: the running or last operation. */
export const operationStateSchema = z.looseObject({
  operation: operationSchema,
  phase: z.string(),
  message: z.string().optional(),
  syncResult: syncOperationResultSchema.optional(),
  startedAt: z.string(),
  finishedAt: timeSchema,
  retryCount: z.number().int().optional(),
});
export type OperationState = z.infer<typeof operationStateSchema>;

/** One entry of `status.history`. */
export const revisionHistorySchema = z.looseObject({
  id: z.number().int(),
  revision: z.string().optional(),
  revisions: z.array(z.string()).optional(),
  source: applicationSourceSchema.optional(),
  sources: z.array(applicationSourceSchema).optional(),
  deployedAt: z.string(),
  deployStartedAt: timeSchema,
  initiatedBy: operationInitiatorSchema.optional(),
});
export type RevisionHistory = z.infer<typeof revisionHistorySchema>;

/** An Application condition. */
export const applicationConditionSchema = z.looseObject({
  type: z.string(),
  message: z.string(),
  lastTransitionTime: timeSchema,
});
export type ApplicationCondition = z.infer<typeof applicationConditionSchema>;

/** `status.summary`. */
export const applicationSummarySchema = z.looseObject({
  externalURLs: z.array(z.string()).optional(),
  images: z.array(z.string()).optional(),
  isAppOfApps: z.boolean().optional(),
});

/** Application `status`. */
export const applicationStatusSchema = z.looseObject({
  sync: syncStatusSchema.optional(),
  health: healthStatusSchema.optional(),
  resources: z.array(resourceStatusSchema).optional(),
  operationState: operationStateSchema.optional(),
  history: z.array(revisionHistorySchema).optional(),
  reconciledAt: timeSchema,
  observedAt: timeSchema,
  conditions: z.array(applicationConditionSchema).optional(),
  sourceType: z.string().optional(),
  sourceTypes: z.array(z.string()).optional(),
  summary: applicationSummarySchema.optional(),
  resourceHealthSource: z.string().optional(),
  controllerNamespace: z.string().optional(),
  sourceHydrator: sourceHydratorStatusSchema.optional(),
});
export type ApplicationStatus = z.infer<typeof applicationStatusSchema>;

/** An Argo CD Application. */
export const applicationSchema = z.looseObject({
  ...typeMetaShape(GROUP_VERSION, "Application"),
  metadata: objectMetaSchema,
  spec: applicationSpecSchema,
  operation: operationSchema.optional(),
  status: applicationStatusSchema.optional(),
});
export type Application = z.infer<typeof applicationSchema>;

/** Parses an Application read from the apiserver. Never throws. */
export function parseApplication(obj: unknown): ParseResult<Application> {
  return parseWith(applicationSchema, obj, describeObject("Application", obj));
}
