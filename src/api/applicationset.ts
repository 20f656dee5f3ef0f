/**
 * Argo CD `ApplicationSet` (argoproj.io/v1alpha1): spec, strategy (docs/progressive-syncs.md) and
 * status (docs/controller.md#status). Generators live in `generators.ts`.
 */
import { z } from "zod";
import { resourceStatusSchema } from "./application.js";
import { APPLICATIONS_SYNC_POLICIES } from "./appset-status.js";
import { GROUP_VERSION } from "./constants.js";
import { applicationSetGeneratorSchema, applicationSetTemplateSchema } from "./generators.js";
import { CRD_REQUIRED, objectMetaSchema, timeSchema, typeMetaShape } from "./meta.js";
import { describeObject, parseWith, type ParseResult } from "./parse.js";

/** How generated Applications relate to the ApplicationSet. */
export const applicationSetSyncPolicySchema = z.looseObject({
  preserveResourcesOnDeletion: z
    .boolean()
    .optional()
    .describe("When true, deleting the ApplicationSet removes its Applications but leaves the resources they deployed in place."),
  applicationsSync: z
    .enum(APPLICATIONS_SYNC_POLICIES)
    .optional()
    .describe(
      "Which changes the controller may make to its Applications: create-only, create-update, create-delete, or sync (all of them, the default).",
    ),
});
export type ApplicationSetSyncPolicy = z.infer<typeof applicationSetSyncPolicySchema>;

/** `maxUpdate`: an integer or a percentage string such as `"25%"` (int-or-string). */
export const intOrStringSchema = z.union([z.number().int(), z.string()]);
export type IntOrString = z.infer<typeof intOrStringSchema>;

/**
 * A RollingSync step's label expression. Unlike a LabelSelector, every field is optional (as in
 * Argo CD's CRD); only `In` and `NotIn` are valid operators, checked at runtime
 * (docs/progressive-syncs.md#steps).
 */
export const applicationMatchExpressionSchema = z.looseObject({
  key: z.string().optional(),
  operator: z.string().optional(),
  values: z.array(z.string()).optional(),
});
export type ApplicationMatchExpression = z.infer<typeof applicationMatchExpressionSchema>;

/** One RollingSync step: the Applications whose labels match, and how many may update at once. */
export const rollingSyncStepSchema = z.looseObject({
  matchExpressions: z
    .array(applicationMatchExpressionSchema)
    .optional()
    .describe("Label expressions (operators In and NotIn) choosing the Applications of this step."),
  maxUpdate: intOrStringSchema
    .optional()
    .describe('How many of the step\'s Applications may sync at the same time: a number, or a percentage such as "25%".'),
});
export type RollingSyncStep = z.infer<typeof rollingSyncStepSchema>;

/** `strategy`: AllAtOnce (default) or RollingSync, and the deletion order. */
export const applicationSetStrategySchema = z.looseObject({
  type: z.string().optional().describe("AllAtOnce (the default) or RollingSync."),
  rollingSync: z
    .looseObject({
      steps: z.array(rollingSyncStepSchema).optional().describe("The steps, in order, each choosing its Applications by label."),
    })
    .optional()
    .describe("Sync the Applications step by step, each step once the previous one is healthy."),
  deletionOrder: z
    .string()
    .optional()
    .describe("How Applications are deleted with the ApplicationSet: AllAtOnce, or Reverse (the RollingSync steps last to first)."),
});
export type ApplicationSetStrategy = z.infer<typeof applicationSetStrategySchema>;

/** Keys whose live values on an Application win over the template. */
export const preservedFieldsSchema = z.looseObject({
  annotations: z.array(z.string()).optional().describe("Annotation keys whose live values are kept."),
  labels: z.array(z.string()).optional().describe("Label keys whose live values are kept."),
});
export type PreservedFields = z.infer<typeof preservedFieldsSchema>;

/** A rule removing parts of Applications before they are compared. Empty `name` = every App. */
export const ignoreApplicationDifferenceSchema = z.looseObject({
  name: z.string().optional().describe("The Application the rule is for; empty for every Application."),
  jsonPointers: z.array(z.string()).optional().describe("JSON Pointers (RFC 6901) of the fields left alone."),
  jqPathExpressions: z.array(z.string()).optional().describe("jq path expressions of the fields left alone."),
});
export type IgnoreApplicationDifference = z.infer<typeof ignoreApplicationDifferenceSchema>;

/** ApplicationSet `spec`. */
export const applicationSetSpecSchema = z.looseObject({
  goTemplate: z
    .boolean()
    .optional()
    .describe("Render templates as Go templates ({{ .param }}, with functions) instead of plain {{param}} substitution."),
  goTemplateOptions: z
    .array(z.string())
    .optional()
    .describe('Options of the Go template engine, such as "missingkey=error" to fail on an unknown parameter.'),
  generators: z
    .array(applicationSetGeneratorSchema)
    .describe("The generators producing parameter sets; the template is rendered into one Application per set."),
  template: applicationSetTemplateSchema.describe(
    "The Application rendered for every parameter set: metadata and an Application spec in which parameters are substituted.",
  ),
  templatePatch: z
    .string()
    .optional()
    .describe("A Go template rendering to a YAML or JSON patch that is merged over each rendered Application (goTemplate only)."),
  syncPolicy: applicationSetSyncPolicySchema
    .optional()
    .describe("What the controller may do to the Applications it generates, and what deleting the ApplicationSet deletes."),
  strategy: applicationSetStrategySchema
    .optional()
    .describe("How changes reach the generated Applications: all at once, or in steps (RollingSync)."),
  preservedFields: preservedFieldsSchema
    .optional()
    .describe("Annotations and labels of the live Applications that the controller keeps instead of resetting them from the template."),
  ignoreApplicationDifferences: z
    .array(ignoreApplicationDifferenceSchema)
    .optional()
    .describe("Fields of the live Applications that the controller does not reset when they differ from the template."),
  applyNestedSelectors: z
    .boolean()
    .optional()
    .describe("Accepted for compatibility: this controller always applies the selectors of nested generators."),
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
  targetRevisions: z.array(z.string()).optional().meta(CRD_REQUIRED),
  lastTransitionTime: timeSchema,
});
export type ApplicationSetApplicationStatus = z.infer<typeof applicationSetApplicationStatusSchema>;

/** ApplicationSet `status.health`, derived from the conditions. */
export const applicationSetHealthSchema = z.looseObject({
  status: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: timeSchema,
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
