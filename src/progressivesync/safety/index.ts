/**
 * Rollout safety for RollingSync (docs/adr/0009-rollout-policy-crd.md): a pure state machine over
 * one rollout run. Deadlines, failure budgets, soak, approvals, run control and rollback are
 * decided here from injected time; nothing in this folder reads or writes the cluster.
 */
export { decide } from "./decide.js";
export { failureLimit } from "./failure-budget.js";
export { lastCompletedRevisions, newRun, type NewRunInput } from "./run.js";
export { standingOf, whyLine, type Standing } from "./readiness.js";
export { observationOf } from "./observation.js";
export { rulesFor } from "./step.js";
export * from "./types.js";
export { resolvePolicy, MAX_HISTORY_LIMIT, type ResolvedPolicy } from "./policy.js";
export * from "./resource.js";
export { newestFirst, nextSequence } from "./order.js";
export * from "./governor.js";
export * from "./report.js";
