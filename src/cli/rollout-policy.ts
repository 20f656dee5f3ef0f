/**
 * A RolloutPolicy as the `appset rollout` commands read it: its Go durations parsed (a bad one is a
 * {@link PolicyFieldError} naming the field), its steps placed by index, and, for `rollout plan
 * --policy`, the rules each step of an ApplicationSet gets and where each rule comes from. Pure.
 */
import type { PolicyStep, RolloutPolicy, StepSafetySpec } from "../api/rollout-policy.js";
import { GoDurationError, parseGoDuration } from "../clock/go-duration.js";
import { AppSetError } from "../errors.js";
import { failureLimit, rulesFor } from "../progressivesync/safety/index.js";
import type { RolloutPolicySpec, StepSafety } from "../progressivesync/safety/types.js";

/** A field of a RolloutPolicy that cannot be used; the message names the field and what is wrong. */
export class PolicyFieldError extends AppSetError {
  constructor(message: string) {
    super("InvalidRolloutPolicy", message);
  }
}

function durationMs(text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  let nanos: bigint;
  try {
    nanos = parseGoDuration(text);
  } catch (err) {
    if (err instanceof GoDurationError) throw new PolicyFieldError(`${field}: ${err.message}`);
    throw err;
  }
  if (nanos < 0n) throw new PolicyFieldError(`${field}: "${text}" is negative`);
  return Number(nanos / 1_000_000n);
}

function stepSafety(s: StepSafetySpec, field: string): StepSafety {
  const deadline = durationMs(s.progressDeadline, `${field}.progressDeadline`);
  const soak = durationMs(s.soak, `${field}.soak`);
  return {
    ...(deadline === undefined ? {} : { progressDeadlineMs: deadline }),
    ...(s.maxFailures === undefined ? {} : { maxFailures: s.maxFailures }),
    ...(soak === undefined ? {} : { soakMs: soak }),
    ...(s.requireApproval === undefined ? {} : { requireApproval: s.requireApproval }),
  };
}

/** The policy with durations in milliseconds and steps by 0-based index; throws {@link PolicyFieldError}. */
export function resolvePolicy(policy: RolloutPolicy): RolloutPolicySpec {
  const spec = policy.spec;
  const steps: (StepSafety | undefined)[] = [];
  (spec.steps ?? []).forEach((s: PolicyStep, i) => {
    if (s.step < 1) throw new PolicyFieldError(`spec.steps[${String(i)}].step: ${String(s.step)} is not a step number (1 for the first)`);
    steps[s.step - 1] = stepSafety(s, `spec.steps[${String(i)}]`);
  });
  return {
    ...(spec.defaults === undefined ? {} : { defaults: stepSafety(spec.defaults, "spec.defaults") }),
    steps,
    ...(spec.rollback === undefined
      ? {}
      : { rollback: { enabled: spec.rollback.enabled === true, includeEarlierSteps: spec.rollback.includeEarlierSteps === true } }),
  };
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
