/**
 * From a `RolloutPolicy` resource to the rules the state machine reads
 * (docs/adr/0009-rollout-policy-crd.md): Go durations to milliseconds, 1-based step numbers to
 * 0-based indexes, the history limit defaulted and bounded, and which ApplicationSets of its
 * namespace the policy selects. Every field that cannot be used is a problem naming its path; a
 * policy with problems holds the rollouts it selects (fail closed) until it is fixed.
 */
import { DEFAULT_HISTORY_LIMIT, type ApplicationSet, type RolloutPolicy, type StepSafetySpec } from "../../api/index.js";
import { GoDurationError, parseGoDuration } from "../../clock/go-duration.js";
import { compileSelector, type LabelMatcher } from "../../generators/selector.js";
import { parseMaxUpdate } from "../budget.js";
import type { RolloutPolicySpec, StepSafety } from "./types.js";

/** The most runs a policy may keep per ApplicationSet. */
export const MAX_HISTORY_LIMIT = 100;

/** A policy as the controller uses it. */
export interface ResolvedPolicy {
  readonly name: string;
  readonly spec: RolloutPolicySpec;
  /** Runs kept per ApplicationSet, in [1, {@link MAX_HISTORY_LIMIT}]. */
  readonly historyLimit: number;
  /** What cannot be used, each naming its field; empty when the policy is valid. */
  readonly problems: readonly string[];
  /** Whether the policy selects an ApplicationSet of its namespace. */
  readonly selects: (appSet: ApplicationSet) => boolean;
}

function durationMs(value: string | undefined, path: string, problems: string[]): number | undefined {
  if (value === undefined) return undefined;
  try {
    const ns = parseGoDuration(value);
    if (ns < 0n) {
      problems.push(`${path}: must not be negative, got ${JSON.stringify(value)}`);
      return undefined;
    }
    return Number(ns / 1_000_000n);
  } catch (err) {
    problems.push(`${path}: ${err instanceof GoDurationError ? err.message : String(err)}`);
    return undefined;
  }
}

function stepSafety(s: StepSafetySpec, path: string, problems: string[]): StepSafety {
  const out: { -readonly [K in keyof StepSafety]: StepSafety[K] } = {};
  const deadline = durationMs(s.progressDeadline, `${path}.progressDeadline`, problems);
  if (deadline !== undefined) out.progressDeadlineMs = deadline;
  const soak = durationMs(s.soak, `${path}.soak`, problems);
  if (soak !== undefined) out.soakMs = soak;
  if (s.maxFailures !== undefined) {
    const parsed = parseMaxUpdate(s.maxFailures);
    if (parsed.kind === "invalid" || parsed.kind === "unlimited") {
      problems.push(`${path}.maxFailures: ${JSON.stringify(s.maxFailures)} is neither a count nor a percentage such as "10%"`);
    } else {
      out.maxFailures = s.maxFailures;
    }
  }
  if (s.requireApproval !== undefined) out.requireApproval = s.requireApproval;
  return out;
}

function steps(policy: RolloutPolicy, problems: string[]): (StepSafety | undefined)[] {
  const out: (StepSafety | undefined)[] = [];
  const seen = new Set<number>();
  (policy.spec.steps ?? []).forEach((s, i) => {
    const path = `spec.steps[${String(i)}]`;
    if (!Number.isInteger(s.step) || s.step < 1) {
      problems.push(`${path}.step: must be a step number from 1, got ${String(s.step)}`);
      return;
    }
    if (seen.has(s.step)) {
      problems.push(`${path}.step: step ${String(s.step)} is named twice`);
      return;
    }
    seen.add(s.step);
    out[s.step - 1] = stepSafety(s, path, problems);
  });
  return out;
}

function historyLimit(value: number | undefined, problems: string[]): number {
  if (value === undefined) return DEFAULT_HISTORY_LIMIT;
  if (!Number.isInteger(value) || value < 1 || value > MAX_HISTORY_LIMIT) {
    problems.push(`spec.historyLimit: must be from 1 to ${String(MAX_HISTORY_LIMIT)}, got ${String(value)}`);
    return Math.min(MAX_HISTORY_LIMIT, Math.max(1, Math.trunc(value) || DEFAULT_HISTORY_LIMIT));
  }
  return value;
}

function selector(policy: RolloutPolicy, problems: string[]): LabelMatcher | undefined {
  const sel = policy.spec.applicationSets.selector;
  if (sel === undefined) return undefined;
  try {
    return compileSelector(sel, { strictValues: true, operatorNoun: "label" });
  } catch (err) {
    problems.push(`spec.applicationSets.selector: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/**
 * Resolves a policy. It selects ApplicationSets of its own namespace only, by name or by label (the
 * union); an absent selector selects by name alone, an empty one every ApplicationSet of the
 * namespace (Kubernetes' selector semantics).
 */
export function resolvePolicy(policy: RolloutPolicy): ResolvedPolicy {
  const problems: string[] = [];
  const spec: RolloutPolicySpec = {
    ...(policy.spec.defaults ? { defaults: stepSafety(policy.spec.defaults, "spec.defaults", problems) } : {}),
    steps: steps(policy, problems),
    ...(policy.spec.rollback
      ? {
          rollback: {
            enabled: policy.spec.rollback.enabled === true,
            includeEarlierSteps: policy.spec.rollback.includeEarlierSteps === true,
          },
        }
      : {}),
  };
  const limit = historyLimit(policy.spec.historyLimit, problems);
  const names = new Set(policy.spec.applicationSets.names ?? []);
  const matcher = selector(policy, problems);
  const namespace = policy.metadata.namespace ?? "";
  const selects = (appSet: ApplicationSet): boolean =>
    (appSet.metadata.namespace ?? "") === namespace &&
    (names.has(appSet.metadata.name ?? "") || (matcher !== undefined && matcher(appSet.metadata.labels ?? {})));
  return { name: policy.metadata.name ?? "", spec, historyLimit: limit, problems, selects };
}
