import { describe, expect, it } from "vitest";
import type { RolloutPolicy } from "../api/rollout-policy.js";
import { describeRollback, describeStepRules, PolicyFieldError, policyRules, soakByStep, stepRules } from "./rollout-policy.js";

const policy = (spec: Partial<RolloutPolicy["spec"]>): RolloutPolicy => ({
  apiVersion: "progressivesync.appset.dev/v1alpha1",
  kind: "RolloutPolicy",
  metadata: { name: "careful" },
  spec: { applicationSets: { names: ["guestbook"] }, ...spec },
});

describe("policyRules", () => {
  it("parses Go durations to milliseconds and places steps by index", () => {
    expect(
      policyRules(
        policy({
          defaults: { progressDeadline: "1m30s", maxFailures: "10%" },
          steps: [{ step: 3, soak: "1h", requireApproval: true }],
          rollback: { enabled: true },
        }),
      ),
    ).toEqual({
      defaults: { progressDeadlineMs: 90_000, maxFailures: "10%" },
      steps: [undefined, undefined, { soakMs: 3_600_000, requireApproval: true }],
      rollback: { enabled: true, includeEarlierSteps: false },
    });
  });

  // [ case, spec, error ]
  const bad: [string, Partial<RolloutPolicy["spec"]>, string][] = [
    ["a bad default", { defaults: { soak: "forever" } }, 'spec.defaults.soak: time: invalid duration "forever"'],
    ["a bad step field", { steps: [{ step: 1 }, { step: 2, progressDeadline: "5 m" }] }, "spec.steps[1].progressDeadline: time: "],
    ["a negative duration", { defaults: { progressDeadline: "-1m" } }, 'spec.defaults.progressDeadline: must not be negative, got "-1m"'],
    ["step 0", { steps: [{ step: 0 }] }, "spec.steps[0].step: must be a step number from 1, got 0"],
  ];
  it.each(bad)("names the field of %s", (_, spec, message) => {
    expect(() => policyRules(policy(spec))).toThrow(PolicyFieldError);
    expect(() => policyRules(policy(spec))).toThrow(message);
  });
});

describe("stepRules", () => {
  const p = policy({ defaults: { maxFailures: "10%", soak: "5m" }, steps: [{ step: 2, maxFailures: 2, requireApproval: false }] });
  const resolved = policyRules(p);
  // [ step, Applications, tolerated, rules line ]
  const cases: [number, number, number, string][] = [
    [1, 5, 0, "  Rules: maxFailures 10% (default): tolerates 0 of 5; soak 5m (default)"],
    [1, 9, 0, "  Rules: maxFailures 10% (default): tolerates 0 of 9; soak 5m (default)"],
    [1, 10, 1, "  Rules: maxFailures 10% (default): tolerates 1 of 10; soak 5m (default)"],
    [1, 29, 2, "  Rules: maxFailures 10% (default): tolerates 2 of 29; soak 5m (default)"],
    [2, 5, 2, "  Rules: maxFailures 2 (step): tolerates 2 of 5; soak 5m (default); requireApproval false (step)"],
    // a count is taken as written, as the controller does
    [2, 1, 2, "  Rules: maxFailures 2 (step): tolerates 2 of 1; soak 5m (default); requireApproval false (step)"],
  ];
  it.each(cases)("step %i of %i Applications tolerates %i", (step, apps, tolerated, line) => {
    const r = stepRules(p, resolved, step, apps);
    expect(r.toleratedFailures).toBe(tolerated);
    expect(describeStepRules(r)).toBe(line);
  });

  it("says when a step has no rule, and when maxFailures is left at 0", () => {
    const empty = policy({});
    expect(describeStepRules(stepRules(empty, policyRules(empty), 1, 3))).toBe(
      "  Rules: none (no deadline, no failure tolerated, no soak, no approval)",
    );
    const soakOnly = policy({ defaults: { soak: "1m" } });
    expect(describeStepRules(stepRules(soakOnly, policyRules(soakOnly), 1, 3))).toBe(
      "  Rules: soak 1m (default); maxFailures unset: tolerates 0 of 3",
    );
  });
});

describe("describeRollback and soakByStep", () => {
  it.each([
    [undefined, "Rollback: off (a halted rollout stays where it stopped)"],
    [{ enabled: false, includeEarlierSteps: true }, "Rollback: off (a halted rollout stays where it stopped)"],
    [{ enabled: true }, "Rollback: on, the halted step only"],
    [{ enabled: true, includeEarlierSteps: true }, "Rollback: on, the halted step and the steps completed before it"],
  ])("%j: %s", (rollback, text) => {
    expect(describeRollback(policyRules(policy(rollback === undefined ? {} : { rollback })))).toBe(text);
  });

  it("gives each step its soak, the step's own over the default", () => {
    const resolved = policyRules(policy({ defaults: { soak: "1m" }, steps: [{ step: 2, soak: "1h" }] }));
    expect([...soakByStep(resolved, 3)]).toEqual([
      [1, 60_000],
      [2, 3_600_000],
      [3, 60_000],
    ]);
  });
});
