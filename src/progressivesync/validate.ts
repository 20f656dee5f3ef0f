/**
 * RollingSync configuration issues (docs/progressive-syncs.md#configuration-issues) and the
 * `InvalidRolloutConfig` condition. Only the highest-priority kind is reported: invalid operators,
 * then duplicate selections, then invalid maxUpdate values, then empty steps. Step numbers in
 * messages are 1-based. Issues are informational: the rollout still runs with the effective
 * behaviour.
 */
import {
  ConditionMessage,
  ConditionStatus,
  ConditionType,
  Reason,
  type ApplicationSetCondition,
  type RollingSyncStep,
} from "../api/index.js";
import { rfc3339 } from "../clock/index.js";
import { parseMaxUpdate } from "./budget.js";
import type { InvalidMatchExpression, StepAssignment } from "./steps.js";

/** A step whose `maxUpdate` is neither an integer nor a percentage (0-based step). */
export interface InvalidMaxUpdate {
  readonly stepIndex: number;
  /** The value as written. */
  readonly value: string;
}

/** Every configuration problem found in one pass. */
export interface ValidationIssues {
  readonly invalidMatchExpressions: readonly InvalidMatchExpression[];
  readonly duplicateAppSelections: ReadonlyMap<string, readonly number[]>;
  readonly invalidMaxUpdates: readonly InvalidMaxUpdate[];
  readonly emptySteps: readonly number[];
}

/**
 * Collects the issues of a step assignment and of the steps' `maxUpdate` values. Unlike Argo CD,
 * which notices an invalid maxUpdate only while promoting an Application of that step, every
 * step's value is checked, so the report does not depend on the rollout's progress.
 */
export function collectIssues(steps: readonly RollingSyncStep[], assignment: StepAssignment): ValidationIssues {
  const invalidMaxUpdates = steps.flatMap((s, i) => {
    const m = parseMaxUpdate(s.maxUpdate);
    return m.kind === "invalid" ? [{ stepIndex: i, value: m.raw }] : [];
  });
  return {
    invalidMatchExpressions: assignment.invalidMatchExpressions,
    duplicateAppSelections: assignment.duplicateAppSelections,
    invalidMaxUpdates,
    emptySteps: assignment.emptySteps,
  };
}

/** True when any issue was found. */
export function hasIssues(issues: ValidationIssues): boolean {
  return (
    issues.invalidMatchExpressions.length > 0 ||
    issues.duplicateAppSelections.size > 0 ||
    issues.invalidMaxUpdates.length > 0 ||
    issues.emptySteps.length > 0
  );
}

const oneBased = (i: number): string => String(i + 1);

function invalidOperatorsMessage(list: readonly InvalidMatchExpression[]): string {
  const steps = list.map((x) => oneBased(x.stepIndex));
  const ops = list.map((x) => x.operator).join(", ");
  return list.length === 1
    ? `Step ${steps[0]!} has invalid matchExpression operators: ${ops}. Supported Operators are 'In' and 'NotIn'`
    : `Steps ${steps.join(", ")} have invalid matchExpression operators: ${ops}. Supported Operators are 'In' and 'NotIn'`;
}

function duplicatesMessage(dups: ReadonlyMap<string, readonly number[]>): string {
  const names = [...dups.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const ranges = names.map((n) => dups.get(n)!.map(oneBased).join("-"));
  return names.length === 1
    ? `Application '${names[0]!}' is selected by multiple steps: (${ranges[0]!})`
    : `Applications '${names.join("', '")}' are selected by multiple steps: [(${ranges.join("), (")})]`;
}

function invalidMaxUpdatesMessage(list: readonly InvalidMaxUpdate[]): string {
  const steps = list.map((x) => oneBased(x.stepIndex)).join(", ");
  const values = list.map((x) => x.value).join(", ");
  return list.length === 1
    ? `Step ${steps} has an invalid maxUpdate value: ${values}`
    : `Steps ${steps} have invalid maxUpdate values: [${values}]`;
}

/** Go's `%v` of a []string: "[1 5]". */
function emptyStepsMessage(steps: readonly number[]): string {
  return `Steps [${steps.map(oneBased).join(" ")}] have no applications matching their criteria`;
}

/** Every issue kind found, each with its message, in priority order (for logs and `rollout plan`). */
export function allIssueMessages(issues: ValidationIssues): { kind: string; message: string }[] {
  const out: { kind: string; message: string }[] = [];
  if (issues.invalidMatchExpressions.length > 0)
    out.push({ kind: "InvalidMatchExpression", message: invalidOperatorsMessage(issues.invalidMatchExpressions) });
  if (issues.duplicateAppSelections.size > 0)
    out.push({ kind: "DuplicateAppSelection", message: duplicatesMessage(issues.duplicateAppSelections) });
  if (issues.invalidMaxUpdates.length > 0)
    out.push({ kind: "InvalidMaxUpdate", message: invalidMaxUpdatesMessage(issues.invalidMaxUpdates) });
  if (issues.emptySteps.length > 0) out.push({ kind: "EmptyStep", message: emptyStepsMessage(issues.emptySteps) });
  return out;
}

/** The message of the highest-priority issue, or undefined when there is none. */
export function issueMessage(issues: ValidationIssues): string | undefined {
  return allIssueMessages(issues)[0]?.message;
}

/** The `InvalidRolloutConfig` condition for these issues, stamped with `now`. */
export function invalidRolloutConfigCondition(issues: ValidationIssues, now: number): ApplicationSetCondition {
  const message = issueMessage(issues);
  return message === undefined
    ? {
        type: ConditionType.InvalidRolloutConfig,
        status: ConditionStatus.False,
        reason: Reason.ApplicationSetValidRolloutConfig,
        message: ConditionMessage.RollingSyncConfigured,
        lastTransitionTime: rfc3339(now),
      }
    : {
        type: ConditionType.InvalidRolloutConfig,
        status: ConditionStatus.True,
        reason: Reason.ApplicationSetInvalidRolloutConfig,
        message,
        lastTransitionTime: rfc3339(now),
      };
}
