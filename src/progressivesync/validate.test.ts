import { describe, expect, it } from "vitest";
import { at, envStep } from "../../test/unit/progressivesync/builders.js";
import { assignSteps } from "./steps.js";
import { collectIssues, hasIssues, invalidRolloutConfigCondition, issueMessage, type ValidationIssues } from "./validate.js";

const none: ValidationIssues = { invalidMatchExpressions: [], duplicateAppSelections: new Map(), invalidMaxUpdates: [], emptySteps: [] };

describe("validation messages, in Argo CD's words", () => {
  it.each([
    // name; the issues; the expected condition message
    {
      name: "one invalid operator",
      issues: { ...none, invalidMatchExpressions: [{ stepIndex: 0, operator: "Invalid" }] },
      message: "Step 1 has invalid matchExpression operators: Invalid. Supported Operators are 'In' and 'NotIn'",
    },
    {
      name: "invalid operators in two steps",
      issues: {
        ...none,
        invalidMatchExpressions: [
          { stepIndex: 0, operator: "Invalid" },
          { stepIndex: 4, operator: "Another" },
        ],
      },
      message: "Steps 1, 5 have invalid matchExpression operators: Invalid, Another. Supported Operators are 'In' and 'NotIn'",
    },
    {
      name: "one duplicate selection",
      issues: { ...none, duplicateAppSelections: new Map([["foo", [0, 1]]]) },
      message: "Application 'foo' is selected by multiple steps: (1-2)",
    },
    {
      name: "two duplicate selections, names sorted",
      issues: {
        ...none,
        duplicateAppSelections: new Map([
          ["foo", [0, 1]],
          ["bar", [1, 2]],
        ]),
      },
      message: "Applications 'bar', 'foo' are selected by multiple steps: [(2-3), (1-2)]",
    },
    {
      name: "one invalid maxUpdate",
      issues: { ...none, invalidMaxUpdates: [{ stepIndex: 0, value: "Invalid" }] },
      message: "Step 1 has an invalid maxUpdate value: Invalid",
    },
    {
      name: "two invalid maxUpdate values",
      issues: {
        ...none,
        invalidMaxUpdates: [
          { stepIndex: 0, value: "Invalid" },
          { stepIndex: 4, value: "Another" },
        ],
      },
      message: "Steps 1, 5 have invalid maxUpdate values: [Invalid, Another]",
    },
    { name: "one empty step", issues: { ...none, emptySteps: [0] }, message: "Steps [1] have no applications matching their criteria" },
    {
      name: "two empty steps",
      issues: { ...none, emptySteps: [0, 4] },
      message: "Steps [1 5] have no applications matching their criteria",
    },
    {
      name: "invalid operators win over everything",
      issues: {
        invalidMatchExpressions: [{ stepIndex: 1, operator: "X" }],
        duplicateAppSelections: new Map([["a", [0, 1]]]),
        invalidMaxUpdates: [{ stepIndex: 0, value: "v" }],
        emptySteps: [2],
      },
      message: "Step 2 has invalid matchExpression operators: X. Supported Operators are 'In' and 'NotIn'",
    },
    {
      name: "duplicates win over invalid maxUpdate and empty steps",
      issues: {
        ...none,
        duplicateAppSelections: new Map([["a", [0, 1]]]),
        invalidMaxUpdates: [{ stepIndex: 0, value: "v" }],
        emptySteps: [2],
      },
      message: "Application 'a' is selected by multiple steps: (1-2)",
    },
    {
      name: "invalid maxUpdate wins over empty steps",
      issues: { ...none, invalidMaxUpdates: [{ stepIndex: 0, value: "v" }], emptySteps: [2] },
      message: "Step 1 has an invalid maxUpdate value: v",
    },
  ])("$name", ({ issues, message }) => {
    expect(hasIssues(issues)).toBe(true);
    expect(issueMessage(issues)).toBe(message);
    expect(invalidRolloutConfigCondition(issues, at(1))).toEqual({
      type: "InvalidRolloutConfig",
      status: "True",
      reason: "ApplicationSetInvalidRolloutConfig",
      message,
      lastTransitionTime: "2026-01-01T00:00:01Z",
    });
  });

  it("reports a valid configuration", () => {
    expect(hasIssues(none)).toBe(false);
    expect(invalidRolloutConfigCondition(none, at(2))).toEqual({
      type: "InvalidRolloutConfig",
      status: "False",
      reason: "ApplicationSetValidRolloutConfig",
      message: "Rolling Sync Configured correctly",
      lastTransitionTime: "2026-01-01T00:00:02Z",
    });
  });

  it("collects invalid maxUpdate values of every step, whatever the Applications", () => {
    const steps = [envStep(["dev"], "Invalid"), envStep(["qa"], 1), envStep(["prod"], "10%"), envStep(["x"], "5")];
    const issues = collectIssues(steps, assignSteps(steps, [{ name: "a", labels: { env: "dev" } }]));
    expect(issues.invalidMaxUpdates).toEqual([
      { stepIndex: 0, value: "Invalid" },
      { stepIndex: 3, value: "5" },
    ]);
    expect(issues.emptySteps).toEqual([1, 2, 3]);
  });
});
