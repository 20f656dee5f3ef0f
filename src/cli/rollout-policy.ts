/**
 * A RolloutPolicy as the `appset rollout` commands read it: resolved as the controller resolves it
 * (a field that cannot be used is a {@link PolicyFieldError} naming it), and, for `rollout plan
 * --policy`, the rules each step of an ApplicationSet gets and where each rule comes from. Pure.
 */
import type { RolloutPolicy } from "../api/rollout-policy.js";
import { AppSetError } from "../errors.js";
import { failureLimit, resolvePolicy, rulesFor, type RolloutPolicySpec } from "../progressivesync/safety/index.js";

/** A field of a RolloutPolicy that cannot be used; the message names the field and what is wrong. */
export class PolicyFieldError extends AppSetError {
  constructor(message: string) {
    super("InvalidRolloutPolicy", message);
  }
}

/**
 * The policy's rules with durations in milliseconds and steps by 0-based index, as the controller
 * reads them; a field that cannot be used throws a {@link PolicyFieldError} naming it.
 */
export function policyRules(policy: RolloutPolicy): RolloutPolicySpec {
  const resolved = resolvePolicy(policy);
  if (resolved.problems.length > 0) throw new PolicyFieldError(resolved.problems.join("; "));
  return resolved.spec;
}

/** Where a rule of a step comes from. */
export type RuleSource = "step" | "defaults";

/** One rule that applies to a step, as written and where. */
export interface AppliedRule {
  readonly name: "progressDeadline" | "maxFailures" | "soak" | "requireApproval";
  /** As written in the policy. */
  readonly value: string;
  readonly from: RuleSource;
}

/** The rules of one step of an ApplicationSet under a policy. */
export interface StepRules {
  /** 1-based. */
  readonly step: number;
  readonly rules: readonly AppliedRule[];
  /** Failed Applications the step completes without, for its `applications` Applications. */
  readonly toleratedFailures: number;
  readonly applications: number;
}

const RULE_NAMES = ["progressDeadline", "maxFailures", "soak", "requireApproval"] as const;

/** The rules step `step` (1-based) of `applications` Applications gets from `policy`. */
export function stepRules(policy: RolloutPolicy, resolved: RolloutPolicySpec, step: number, applications: number): StepRules {
  const own = policy.spec.steps?.find((s) => s.step === step);
  const defaults = policy.spec.defaults;
  const rules: AppliedRule[] = [];
  for (const name of RULE_NAMES) {
    const mine = own?.[name];
    const theirs = defaults?.[name];
    if (mine !== undefined) rules.push({ name, value: String(mine), from: "step" });
    else if (theirs !== undefined) rules.push({ name, value: String(theirs), from: "defaults" });
  }
  const tolerated = failureLimit(rulesFor(resolved, step - 1).maxFailures, applications);
  return { step, rules, toleratedFailures: tolerated, applications };
}

/** The soak of each of the first `steps` steps (1-based keys), where the policy sets one. */
export function soakByStep(resolved: RolloutPolicySpec, steps: number): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 0; i < steps; i++) {
    const soak = rulesFor(resolved, i).soakMs;
    if (soak !== undefined) out.set(i + 1, soak);
  }
  return out;
}

/** One line of text per step: the rules, maxFailures as written and as a count. */
export function describeStepRules(r: StepRules): string {
  if (r.rules.length === 0) return "  Rules: none (no deadline, no failure tolerated, no soak, no approval)";
  const parts = r.rules.map((rule) => {
    const from = rule.from === "step" ? "step" : "default";
    if (rule.name === "maxFailures") {
      return `maxFailures ${rule.value} (${from}): tolerates ${String(r.toleratedFailures)} of ${String(r.applications)}`;
    }
    return `${rule.name} ${rule.value} (${from})`;
  });
  if (!r.rules.some((rule) => rule.name === "maxFailures")) parts.push(`maxFailures unset: tolerates 0 of ${String(r.applications)}`);
  return `  Rules: ${parts.join("; ")}`;
}

/** The rollback setting in words. */
export function describeRollback(resolved: RolloutPolicySpec): string {
  const rb = resolved.rollback;
  if (rb === undefined || !rb.enabled) return "Rollback: off (a halted rollout stays where it stopped)";
  return rb.includeEarlierSteps === true
    ? "Rollback: on, the halted step and the steps completed before it"
    : "Rollback: on, the halted step only";
}

/** What `rollout plan --policy` adds to the preview of one ApplicationSet. */
export interface PlanSafety {
  readonly policy: string;
  /** The rules of each step of the ApplicationSet, in step order. */
  readonly steps: readonly StepRules[];
  readonly rollback: string;
  /** Step numbers the policy names that the ApplicationSet does not have. */
  readonly unknownSteps: readonly number[];
}

/** The rules of every step of an ApplicationSet whose steps hold `sizes` Applications (step 1 first). */
export function planSafety(policy: RolloutPolicy, resolved: RolloutPolicySpec, sizes: readonly number[]): PlanSafety {
  return {
    policy: policy.metadata.name ?? "",
    steps: sizes.map((n, i) => stepRules(policy, resolved, i + 1, n)),
    rollback: describeRollback(resolved),
    unknownSteps: (policy.spec.steps ?? []).map((s) => s.step).filter((n) => n > sizes.length),
  };
}
