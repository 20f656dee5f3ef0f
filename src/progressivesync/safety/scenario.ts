/**
 * A small driver for rollout safety scenarios, for tests and examples: Applications described by
 * one word each, passes at given seconds, and the run threaded from pass to pass. Pure; time is
 * plain numbers (epoch milliseconds of a start plus the pass's seconds).
 */
import { HealthStatus, OperationPhase, SyncStatus } from "../../api/index.js";
import { decide } from "./decide.js";
import { newRun } from "./run.js";
import type { AppObservation, ControlRequest, Decision, RolloutPolicySpec, RunState } from "./types.js";

/** The revision every Application is rolled out to in a scenario. */
export const TARGET = "9b8c7d6e5f40";
/** The revision of the last completed rollout in a scenario. */
export const PREVIOUS = "3f2a1c9d8e7b";
/** The start of every scenario. */
export const START = Date.UTC(2026, 0, 1);

/** How an Application looks, in one word. */
export type Look = "ready" | "outOfSync" | "progressing" | "degraded" | "syncFailedHealthy" | "old" | "missing";

/** One Application as a word describes it, on the target revision unless `old`. */
export function observe(name: string, look: Look, reconciledAt = START): AppObservation | undefined {
  const base = { name, operationPhase: OperationPhase.Succeeded, revisions: [TARGET], reconciledAt };
  switch (look) {
    case "ready":
      return { ...base, syncStatus: SyncStatus.Synced, healthStatus: HealthStatus.Healthy };
    case "outOfSync":
      return { ...base, syncStatus: SyncStatus.OutOfSync, healthStatus: HealthStatus.Healthy, revisions: [PREVIOUS] };
    case "progressing":
      return { ...base, syncStatus: SyncStatus.Synced, healthStatus: HealthStatus.Progressing, operationPhase: OperationPhase.Running };
    case "degraded":
      return { ...base, syncStatus: SyncStatus.Synced, healthStatus: HealthStatus.Degraded };
    case "syncFailedHealthy":
      return { ...base, syncStatus: SyncStatus.OutOfSync, healthStatus: HealthStatus.Healthy, operationPhase: OperationPhase.Failed };
    case "old":
      return { ...base, syncStatus: SyncStatus.Synced, healthStatus: HealthStatus.Healthy, revisions: [PREVIOUS] };
    case "missing":
      return undefined;
  }
}

/** One pass: at `at` seconds after the start, these Applications changed, and these requests came. */
export interface ScenarioPass {
  readonly at: number;
  readonly apps?: Readonly<Record<string, Look>>;
  readonly requests?: readonly ControlRequest[];
}

/** A scenario: the policy, the steps' Applications, and the passes. */
export interface Scenario {
  readonly policy: RolloutPolicySpec;
  readonly steps: readonly (readonly string[])[];
  readonly passes: readonly ScenarioPass[];
  /** Whether a last completed rollout exists (on {@link PREVIOUS}); default true. */
  readonly hasPrevious?: boolean;
}

/** Runs a scenario; every Application starts out of sync on the previous revision. Returns every pass's decision. */
export function play(scenario: Scenario): Decision[] {
  const names = scenario.steps.flat();
  const looks = new Map<string, Look>(names.map((n) => [n, "outOfSync"]));
  const targets = Object.fromEntries(names.map((n) => [n, [TARGET]]));
  const lastCompleted = scenario.hasPrevious === false ? undefined : Object.fromEntries(names.map((n) => [n, [PREVIOUS]]));
  let run: RunState = newRun({ id: "run-1", steps: scenario.steps, targetRevisions: targets, now: START });
  const out: Decision[] = [];
  for (const pass of scenario.passes) {
    for (const [name, look] of Object.entries(pass.apps ?? {})) looks.set(name, look);
    const now = START + pass.at * 1000;
    const observations = [...looks].flatMap(([name, look]) => observe(name, look, now) ?? []);
    const decision = decide({ policy: scenario.policy, run, observations, requests: pass.requests ?? [], lastCompleted, now });
    out.push(decision);
    run = decision.run;
  }
  return out;
}
