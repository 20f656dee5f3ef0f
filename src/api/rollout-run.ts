/**
 * `RolloutRun` (progressivesync.appset.dev/v1alpha1): one rollout of one ApplicationSet, that is
 * one new set of target revisions of its Applications (docs/adr/0009-rollout-policy-crd.md). The
 * controller creates it, owned by the ApplicationSet, and writes its status; people append control
 * requests to `spec.requests` (the `appset rollout` commands do), which the controller applies once
 * each, in order, and records in `status.requests`.
 */
import { z } from "zod";
import { CRD_ATOMIC_LIST, objectMetaSchema, timeSchema, typeMetaShape } from "./meta.js";
import { describeObject, parseWith, type ParseResult } from "./parse.js";
import { MAX_RUN_REQUESTS, ROLLOUT_GROUP_VERSION, RolloutKind } from "./rollout-constants.js";

/** The control requests a person can send, as written in `spec.requests[].action`. */
export const RUN_ACTIONS = ["pause", "resume", "promote", "abort", "approve"] as const;

/** The revisions one Application is rolled out to. */
export const runTargetSchema = z.looseObject({
  application: z.string(),
  revisions: z.array(z.string()).meta(CRD_ATOMIC_LIST),
});
export type RunTarget = z.infer<typeof runTargetSchema>;

/** One control request. */
export const runRequestSchema = z.looseObject({
  action: z.enum(RUN_ACTIONS).describe("pause, resume, promote, abort or approve."),
  step: z.number().int().optional().describe("For approve: the step (1-based) approved; absent for the step awaiting approval."),
  by: z.string().max(256).optional().describe("Who sent the request (the sender's user name, as the CLI reads it from the kubeconfig)."),
  at: timeSchema.describe("When the request was sent."),
});
export type RunRequest = z.infer<typeof runRequestSchema>;

/** `RolloutRun.spec`. */
export const rolloutRunSpecSchema = z.looseObject({
  applicationSet: z.string().describe("The ApplicationSet rolled out."),
  policy: z.string().optional().describe("The RolloutPolicy governing the run."),
  sequence: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("The run's place among the ApplicationSet's runs: one more than the highest the controller knew when it created the run."),
  targetRevisions: z
    .array(runTargetSchema)
    .meta(CRD_ATOMIC_LIST)
    .optional()
    .describe("The revisions each Application is rolled out to, sorted by Application."),
  requests: z.array(runRequestSchema).max(MAX_RUN_REQUESTS).optional().describe("Control requests, oldest first; append only."),
});
export type RolloutRunSpec = z.infer<typeof rolloutRunSpecSchema>;

/** How many of a step's Applications stand where. */
export const stepCountsSchema = z.looseObject({
  total: z.number().int(),
  ready: z.number().int(),
  failed: z.number().int(),
  pending: z.number().int(),
});

/** One step of a run. */
export const runStepStatusSchema = z.looseObject({
  step: z.number().int().describe("The step number, 1 for the first step."),
  phase: z.string().describe("Waiting, AwaitingApproval, Progressing, Soaking, Completed, Halted or RolledBack."),
  applications: z.array(z.string()).optional(),
  counts: stepCountsSchema.optional(),
  toleratedFailures: z.array(z.string()).optional().describe("Failed Applications the failure budget let the step complete without."),
  startedAt: timeSchema,
  endedAt: timeSchema,
  deadline: timeSchema,
  soakStartedAt: timeSchema,
  soakRestarts: z.number().int().optional(),
  approvedAt: timeSchema,
  message: z.string().optional().describe("Why the step waits, naming each Application and what it lacks."),
});
export type RunStepStatus = z.infer<typeof runStepStatusSchema>;

/** One Application rolled back. */
export const rolledBackAppSchema = z.looseObject({
  application: z.string(),
  from: z.array(z.string()).optional(),
  to: z.array(z.string()).optional(),
});

/** The record of a rollback. */
export const runRollbackSchema = z.looseObject({
  at: timeSchema,
  applications: z.array(rolledBackAppSchema).optional(),
  skipped: z.array(z.string()).optional().describe("Applications with no revisions in the last completed rollout, left as they are."),
});

/** What became of one control request. */
export const requestResultSchema = z.looseObject({
  index: z.number().int().describe("The request's index in spec.requests."),
  applied: z.boolean(),
  message: z.string().optional(),
});

/** `RolloutRun.status`. */
export const rolloutRunStatusSchema = z.looseObject({
  phase: z.string().optional().describe("Running, Paused, Halted, Completed or Aborted."),
  currentStep: z.number().int().optional().describe("The step the run is on (1-based); absent once completed."),
  haltReason: z.string().optional().describe("ProgressDeadlineExceeded, FailureBudgetExceeded, Aborted or Superseded."),
  message: z.string().optional().describe("What the run waits on now."),
  startedAt: timeSchema,
  endedAt: timeSchema,
  pausedAt: timeSchema,
  steps: z.array(runStepStatusSchema).optional(),
  rollback: runRollbackSchema.optional(),
  observedRequests: z.number().int().optional().describe("How many of spec.requests the controller has applied or refused."),
  requests: z.array(requestResultSchema).optional().describe("What became of each request."),
});
export type RolloutRunStatus = z.infer<typeof rolloutRunStatusSchema>;

/** A RolloutRun. */
export const rolloutRunSchema = z.looseObject({
  ...typeMetaShape(ROLLOUT_GROUP_VERSION, RolloutKind.RolloutRun),
  metadata: objectMetaSchema,
  spec: rolloutRunSpecSchema,
  status: rolloutRunStatusSchema.optional(),
});
export type RolloutRun = z.infer<typeof rolloutRunSchema>;

/** Parses a RolloutRun read from the apiserver. Never throws. */
export function parseRolloutRun(obj: unknown): ParseResult<RolloutRun> {
  return parseWith(rolloutRunSchema, obj, describeObject("RolloutRun", obj));
}
