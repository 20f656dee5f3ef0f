/**
 * `RolloutPolicy` (progressivesync.appset.dev/v1alpha1): the rollout safety rules of the
 * ApplicationSets it selects in its own namespace (docs/adr/0009-rollout-policy-crd.md,
 * docs/progressive-syncs.md#rollout-safety). Durations are Go durations (`10m`, `1h30m`) and are
 * parsed at the edge (`src/progressivesync/safety/policy.ts`), where a bad one becomes a condition
 * that says what to fix.
 */
import { z } from "zod";
import { intOrStringSchema } from "./applicationset.js";
import { ROLLOUT_GROUP_VERSION, RolloutKind } from "./rollout-constants.js";
import { CRD_ATOMIC_LIST, labelSelectorSchema, objectMetaSchema, timeSchema, typeMetaShape } from "./meta.js";
import { describeObject, parseWith, type ParseResult } from "./parse.js";

/** The most steps a policy may name; RollingSync steps are few, and a policy is read every pass. */
export const MAX_POLICY_STEPS = 100;
/** The most ApplicationSet names a policy may list. */
export const MAX_POLICY_NAMES = 500;

/** The rules of a step; absent fields fall back to `defaults`, then to "no such rule". */
export const stepSafetySchema = z.looseObject({
  progressDeadline: z
    .string()
    .max(64)
    .optional()
    .describe("A step not complete this long (a Go duration such as 10m) after it started halts the rollout."),
  maxFailures: intOrStringSchema
    .optional()
    .describe(
      'Failed Applications (Degraded, or whose last sync failed) the step completes without: a count, or a percentage such as "10%" of the step\'s Applications (rounded down). Default 0.',
    ),
  soak: z
    .string()
    .max(64)
    .optional()
    .describe("How long every Application of the step must stay Healthy and Synced on the rolled-out revisions before the step completes."),
  requireApproval: z.boolean().optional().describe("The step waits, before it starts, until someone approves it."),
});
export type StepSafetySpec = z.infer<typeof stepSafetySchema>;

/** The rules of one step of the ApplicationSet, by its 1-based number. */
export const policyStepSchema = stepSafetySchema.extend({
  step: z.number().int().describe("The ApplicationSet's RollingSync step number, 1 for the first step."),
});
export type PolicyStep = z.infer<typeof policyStepSchema>;

/** Which ApplicationSets of the policy's namespace it governs: by name, by label, or both (the union). */
export const applicationSetSelectionSchema = z.looseObject({
  names: z.array(z.string()).max(MAX_POLICY_NAMES).meta(CRD_ATOMIC_LIST).optional().describe("ApplicationSet names."),
  selector: labelSelectorSchema.optional().describe("A label selector over the ApplicationSets of the namespace."),
});
export type ApplicationSetSelection = z.infer<typeof applicationSetSelectionSchema>;

/** What happens when a rollout halts. */
export const rollbackSpecSchema = z.looseObject({
  enabled: z
    .boolean()
    .optional()
    .describe("Sync the Applications of the halted step back to the revisions of the last completed rollout, and keep the rollout halted."),
  includeEarlierSteps: z.boolean().optional().describe("Roll back the Applications of the steps this rollout completed too."),
});
export type RollbackSpec = z.infer<typeof rollbackSpecSchema>;

/** `RolloutPolicy.spec`. */
export const rolloutPolicySpecSchema = z.looseObject({
  applicationSets: applicationSetSelectionSchema.describe("The ApplicationSets of this namespace the policy governs."),
  defaults: stepSafetySchema.optional().describe("The rules of every step, unless the step overrides a field."),
  steps: z.array(policyStepSchema).max(MAX_POLICY_STEPS).optional().describe("Rules of single steps, by step number."),
  rollback: rollbackSpecSchema.optional().describe("Opt-in rollback when a rollout halts."),
  historyLimit: z.number().int().optional().describe("How many rollouts (RolloutRuns) of each ApplicationSet are kept. Default 10."),
});
export type RolloutPolicySpecResource = z.infer<typeof rolloutPolicySpecSchema>;

/** A condition of a RolloutPolicy (`Invalid` when a field cannot be used). */
export const rolloutPolicyConditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  reason: z.string(),
  message: z.string(),
  lastTransitionTime: timeSchema,
});

/** `RolloutPolicy.status`. */
export const rolloutPolicyStatusSchema = z.looseObject({
  observedGeneration: z.number().int().optional(),
  applicationSets: z.array(z.string()).optional().describe("The ApplicationSets the policy governs now, sorted."),
  conditions: z.array(rolloutPolicyConditionSchema).optional(),
});

/** A RolloutPolicy. */
export const rolloutPolicySchema = z.looseObject({
  ...typeMetaShape(ROLLOUT_GROUP_VERSION, RolloutKind.RolloutPolicy),
  metadata: objectMetaSchema,
  spec: rolloutPolicySpecSchema,
  status: rolloutPolicyStatusSchema.optional(),
});
export type RolloutPolicy = z.infer<typeof rolloutPolicySchema>;

/** Parses a RolloutPolicy read from the apiserver. Never throws. */
export function parseRolloutPolicy(obj: unknown): ParseResult<RolloutPolicy> {
  return parseWith(rolloutPolicySchema, obj, describeObject("RolloutPolicy", obj));
}
