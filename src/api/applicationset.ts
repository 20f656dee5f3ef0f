/**
 * Argo CD `ApplicationSet` (argoproj.io/v1alpha1): spec (spec §1.2), strategy (§5) and status
 * (§1.6). Generators live in `generators.ts`.
 */
import { z } from "zod";
import { resourceStatusSchema } from "./application.js";
import { APPLICATIONS_SYNC_POLICIES, GROUP_VERSION } from "./constants.js";
import { applicationSetGeneratorSchema, applicationSetTemplateSchema } from "./generators.js";
import { objectMetaSchema, timeSchema, typeMetaShape } from "./meta.js";
import { describeObject, parseWith, type ParseResult } from "./parse.js";

/** How generated Applications relate to the ApplicationSet. */
export const applicationSetSyncPolicySchema = z.looseObject({
  preserveResourcesOnDeletion: z.boolean().optional(),
  applicationsSync: z.enum(APPLICATIONS_SYNC_POLICIES).optional(),
});
export type ApplicationSetSyncPolicy = z.infer<typeof applicationSetSyncPolicySchema>;

/** `maxUpdate`: an integer or a percentage string such as `"25%"` (int-or-string). */
export const intOrStringSchema = z.union([z.number().int(), z.string()]);
export type IntOrString = z.infer<typeof intOrStringSchema>;

/**
 * A RollingSync step's label expression. Unlike a LabelSelector, every field is optional (as in
 * Argo CD's CRD); only `In` and `NotIn` are valid operators, checked at runtime (spec §5.2).
 */
export const applicationMatchExpressionSchema = z.looseObject({
  key: z.string().optional(),
  operator: z.string().optional(),
  values: z.array(z.string()).optional(),
});
export type ApplicationMatchExpression = z.infer<typeof applicationMatchExpressionSchema>;

/** One RollingSync step: the Applications whose labels match, and how many may update at once. */
export const rollingSyncStepSchema = z.looseObject({
  matchExpressions: z.array(applicationMatchExpressionSchema).optional(),
  maxUpdate: intOrStringSchema.optional(),
});
export type RollingSyncStep = z.infer<typeof rollingSyncStepSchema>;

/** `strategy`: AllAtOnce (default) or RollingSync, and the deletion order. */
export const applicationSetStrategySchema = z.looseObject({
  type: z.string().optional(),
  rollingSync: z.looseObject({ steps: z.array(rollingSyncStepSchema).optional() }).optional(),
  deletionOrder: z.string().optional(),
});
export type ApplicationSetStrategy = z.infer<typeof applicationSetStrategySchema>;

/** Keys whose live values on an Application win over the template. */
export const preservedFieldsSchema = z.looseObject({
  annotations: z.array(z.string()).optional(),
  labels: z.array(z.string()).optional(),
});
export type PreservedFields = z.infer<typeof preservedFieldsSchema>;

/** A rule removing parts of Applications before they are compared. Empty `name` = every App. */
export const ignoreApplicationDifferenceSchema = z.looseObject({
  name: z.string().optional(),
  jsonPointers: z.array(z.string()).optional(),
  jqPathExpressions: z.array(z.string()).optional(),
});
export type IgnoreApplicationDifference = z.infer<typeof ignoreApplicationDifferenceSchema>;

/** ApplicationSet `spec`. */
export const applicationSetSpecSchema = z.looseObject({
  goTemplate: z.boolean().optional(),
  goTemplateOptions: z.array(z.string()).optional(),
  generators: z.array(applicationSetGeneratorSchema),
  template: applicationSetTemplateSchema,
  templatePatch: z.string().optional(),
  syncPolicy: applicationSetSyncPolicySchema.optional(),
  strategy: applicationSetStrategySchema.optional(),
  preservedFields: preservedFieldsSchema.optional(),
  ignoreApplicationDifferences: z.array(ignoreApplicationDifferenceSchema).optional(),
  applyNestedSelectors: z.boolean().optional(),
});
export type ApplicationSetSpec = z.infer<typeof applicationSetSpecSchema>;

/** An ApplicationSet condition. */
export const applicationSetConditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  reason: z.string(),
  message: z.string(),
  lastTransitionTime: timeSchema,
});
export type ApplicationSetCondition = z.infer<typeof applicationSetConditionSchema>;

/** RollingSync's view of one generated Application. */
export const applicationSetApplicationStatusSchema = z.looseObject({
  application: z.string(),
  status: z.string(),
  message: z.string(),
  step: z.string(),
  targetRevisions: z.array(z.string()).optional(),
  lastTransitionTime: timeSchema,
});
export type ApplicationSetApplicationStatus = z.infer<typeof applicationSetApplicationStatusSchema>;

/** ApplicationSet `status.health`, derived from the conditions. */
export const applicationSetHealthSchema = z.looseObject({
  status: z.string().optional(),
  message: z.string().optional(),
});
export type ApplicationSetHealth = z.infer<typeof applicationSetHealthSchema>;

/** ApplicationSet `status`. */
export const applicationSetStatusSchema = z.looseObject({
  conditions: z.array(applicationSetConditionSchema).optional(),
  applicationStatus: z.array(applicationSetApplicationStatusSchema).optional(),
  resources: z.array(resourceStatusSchema).optional(),
  resourcesCount: z.number().int().optional(),
  health: applicationSetHealthSchema.optional(),
});
export type ApplicationSetStatus = z.infer<typeof applicationSetStatusSchema>;

/** An Argo CD ApplicationSet. */
export const applicationSetSchema = z.looseObject({
  ...typeMetaShape(GROUP_VERSION, "ApplicationSet"),
  metadata: objectMetaSchema,
  spec: applicationSetSpecSchema,
  status: applicationSetStatusSchema.optional(),
});
export type ApplicationSet = z.infer<typeof applicationSetSchema>;

/** Parses an ApplicationSet read from the apiserver or a webhook. Never throws. */
export function parseApplicationSet(obj: unknown): ParseResult<ApplicationSet> {
  return parseWith(applicationSetSchema, obj, describeObject("ApplicationSet", obj));
}
