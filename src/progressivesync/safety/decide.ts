/**
 * The rollout safety decision (docs/adr/0009-rollout-policy-crd.md): one pure pass from the policy,
 * the previous run, what the Applications of the run look like now, the control requests and the
 * clock's `now` to the next run and the actions the controller must carry out. The controller only
 * persists the run and executes the actions.
 *
 * A pass first applies the control requests in order, then, while the run is Running, moves the
 * current step (`step.ts`): a step that completes hands over to the next one in the same pass, and
 * at most one step starts per pass. A Paused or Halted run makes no move; its steps' counts and
 * "why it waits" are refreshed so the status says what it waits on.
 */
import { applyControl } from "./control.js";
import { withStep } from "./run.js";
import { standStep, type StepStanding } from "./readiness.js";
import { planRollback } from "./rollback.js";
import { evaluateStep, rulesFor, startOrAwait, type StepMove } from "./step.js";
import {
  HaltReason,
  RunPhase,
  StepPhase,
  type AppObservation,
  type Decision,
  type DecideInput,
  type IgnoredRequest,
  type RolloutAction,
  type RunState,
  type StepRun,
} from "./types.js";

interface Pass {
  readonly input: DecideInput;
  readonly observed: ReadonlyMap<string, AppObservation>;
  readonly actions: RolloutAction[];
}

function standing(pass: Pass, run: RunState, step: StepRun): StepStanding {
  const since = step.startedAt !== undefined ? { since: step.startedAt } : {};
  return standStep(step.applications, pass.observed, { targets: run.targetRevisions, now: pass.input.now, ...since });
}

function controls(pass: Pass, run: RunState, ignored: IgnoredRequest[]): RunState {
  let current = run;
  for (const request of pass.input.requests) {
    const result = applyControl(current, request, pass.input.now);
    if ("ignored" in result) {
      ignored.push({ request, why: result.ignored });
      continue;
    }
    current = result.run;
    if (result.aborted === true) pass.actions.push({ type: "halt", step: current.currentStep, reason: HaltReason.Aborted });
  }
  return current;
}

function halt(pass: Pass, run: RunState, move: StepMove): RunState {
  const reason = move.halt ?? HaltReason.Aborted;
  pass.actions.push({ type: "halt", step: run.currentStep, reason });
  const haltedRun: RunState = { ...withStep(run, move.step), phase: RunPhase.Halted, haltReason: reason };
  const rollback = pass.input.policy.rollback;
  if (rollback?.enabled !== true) return haltedRun;
  const plan = planRollback(haltedRun, rollback, pass.input.lastCompleted, pass.input.now);
  if (plan.record.applications.length === 0) return { ...haltedRun, rollback: plan.record };
  pass.actions.push({ type: "rollback", applications: plan.record.applications });
  return { ...haltedRun, steps: plan.steps, rollback: plan.record };
}

/**
 * Starts the current step, or makes it await approval; a start asks for its Applications to be
 * synced, and the started step says at once what it waits on.
 */
function start(pass: Pass, run: RunState, step: StepRun): RunState {
  const next = startOrAwait(step, rulesFor(pass.input.policy, step.index), pass.input.now);
  if (next.phase !== StepPhase.Progressing) return withStep(run, next);
  pass.actions.push({ type: "startStep", step: step.index, applications: step.applications });
  const s = standing(pass, run, next);
  return withStep(run, { ...next, counts: s.counts, why: s.notReady.map((n) => n.line).join("; ") });
}

const pending = (p: StepPhase): boolean => p === StepPhase.Waiting || p === StepPhase.AwaitingApproval;

/** Moves a Running run until a step waits, halts or starts, or the run completes. */
function advance(pass: Pass, initial: RunState): RunState {
  let run = initial;
  for (;;) {
    const step = run.steps[run.currentStep];
    if (step === undefined) {
      pass.actions.push({ type: "complete" });
      return { ...run, phase: RunPhase.Completed, endedAt: pass.input.now };
    }
    if (pending(step.phase)) return start(pass, run, step);
    const move = evaluateStep(step, rulesFor(pass.input.policy, step.index), standing(pass, run, step), pass.input.now);
    if (move.halt !== undefined) return halt(pass, run, move);
    run = withStep(run, move.step);
    if (move.step.phase !== StepPhase.Completed) return run;
    run = { ...run, currentStep: run.currentStep + 1 };
  }
}

/** How the "why" of a rolled-back step begins, once it has been said. */
const HALTED_PREFIX = "halted ";

/** The "why" of a run that makes no move: paused, rolled back or halted, then what its step lacks. */
function idleWhy(run: RunState, step: StepRun, lines: string): string {
  const tail = lines === "" ? "" : `; ${lines}`;
  if (run.phase === RunPhase.Paused) return `paused${tail}`;
  if (step.phase === StepPhase.RolledBack) {
    // Said once, keeping what the step lacked when it halted (the Applications now sit on the
    // rolled-back revisions, so their lines would no longer tell why).
    if (step.why.startsWith(HALTED_PREFIX)) return step.why;
    const n = run.rollback?.applications.length ?? 0;
    const cause = step.why === "" ? "" : `; at the halt: ${step.why}`;
    return `${HALTED_PREFIX}(${run.haltReason ?? ""}), ${n} Applications rolled back to the last completed revisions; resume to roll out again${cause}`;
  }
  return `halted (${run.haltReason ?? ""}), resume once fixed${tail}`;
}

/** Refreshes the counts and "why" of the current step of a run that makes no move. */
function refresh(pass: Pass, run: RunState): RunState {
  const step = run.steps[run.currentStep];
  if (step === undefined || run.phase === RunPhase.Completed || run.phase === RunPhase.Aborted) return run;
  const s = standing(pass, run, step);
  const why = idleWhy(run, step, s.notReady.map((n) => n.line).join("; "));
  return withStep(run, { ...step, counts: s.counts, why });
}

/** One pass of the rollout safety state machine. */
export function decide(input: DecideInput): Decision {
  const pass: Pass = { input, observed: new Map(input.observations.map((o) => [o.name, o])), actions: [] };
  const ignored: IgnoredRequest[] = [];
  const controlled = controls(pass, input.run, ignored);
  const run = controlled.phase === RunPhase.Running ? advance(pass, controlled) : refresh(pass, controlled);
  return { run, actions: pass.actions, ignored };
}
