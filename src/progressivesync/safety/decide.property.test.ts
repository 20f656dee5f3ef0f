import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide } from "./decide.js";
import { newRun } from "./run.js";
import { failureLimit } from "./failure-budget.js";
import { observe, play, PREVIOUS, START, TARGET, type Look } from "./scenario.js";
import { ControlKind, RunPhase, StepPhase, type ControlRequest, type Decision, type RolloutPolicySpec, type RunState } from "./types.js";

const APPS = ["a1", "a2", "b1", "b2", "c1"];
const STEPS = [["a1", "a2"], ["b1", "b2"], ["c1"]];
const LOOKS: Look[] = ["ready", "outOfSync", "progressing", "degraded", "syncFailedHealthy", "old", "missing"];

const look = fc.constantFrom(...LOOKS);
const kinds = (allowed: ControlKind[]): fc.Arbitrary<ControlRequest> =>
  fc.record({ kind: fc.constantFrom(...allowed), step: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }) });

/** A random pass: seconds after the previous one, how each Application looks, and requests. */
const passOf = (allowed: ControlKind[]): fc.Arbitrary<{ dt: number; looks: Look[]; requests: ControlRequest[] }> =>
  fc.record({
    dt: fc.integer({ min: 0, max: 900 }),
    looks: fc.array(look, { minLength: APPS.length, maxLength: APPS.length }),
    requests: fc.array(kinds(allowed), { maxLength: 3 }),
  });

const policy = fc.record({
  defaults: fc.record(
    {
      progressDeadlineMs: fc.constantFrom(30_000, 300_000),
      maxFailures: fc.constantFrom<number | string>(0, 1, "50%", "10%"),
      soakMs: fc.constantFrom(0, 60_000),
      requireApproval: fc.boolean(),
    },
    { requiredKeys: [] },
  ),
  rollback: fc.record({ enabled: fc.boolean(), includeEarlierSteps: fc.boolean() }),
}) as fc.Arbitrary<RolloutPolicySpec>;

/** Plays random passes from `run` at `at`, returning every decision. */
function drive(
  p: RolloutPolicySpec,
  run: RunState,
  at: number,
  passes: { dt: number; looks: Look[]; requests: ControlRequest[] }[],
): Decision[] {
  const out: Decision[] = [];
  let current = run;
  let now = at;
  for (const pass of passes) {
    now += pass.dt * 1000;
    const observations = APPS.flatMap((name, i) => observe(name, pass.looks[i] ?? "ready", now) ?? []);
    const lastCompleted = Object.fromEntries(APPS.map((n) => [n, [PREVIOUS]]));
    const d = decide({ policy: p, run: current, observations, requests: pass.requests, lastCompleted, now });
    out.push(d);
    current = d.run;
  }
  return out;
}

/** A run halted on its first step by a Degraded Application beyond a budget of 0. */
function haltedRun(p: RolloutPolicySpec): RunState {
  const base = { ...p, defaults: { ...p.defaults, maxFailures: 0, requireApproval: false } };
  const ds = play({ policy: base, steps: STEPS, passes: [{ at: 0 }, { at: 1, apps: { a1: "degraded" } }] });
  const run = ds.at(-1)?.run;
  if (run?.phase !== RunPhase.Halted) throw new Error("expected a halted run");
  return run;
}

const NO_RESUME = [ControlKind.Pause, ControlKind.Promote, ControlKind.Approve];

describe("rollout safety invariants", () => {
  it("a halted run never starts a step, moves on or rolls back again without a resume", () => {
    fc.assert(
      fc.property(policy, fc.array(passOf(NO_RESUME), { maxLength: 8 }), (p, passes) => {
        const run = haltedRun(p);
        for (const d of drive(p, run, START + 1000, passes)) {
          expect(d.actions).toEqual([]);
          expect(d.run.phase).toBe(RunPhase.Halted);
          expect(d.run.currentStep).toBe(run.currentStep);
        }
      }),
    );
  });

  it("a paused run makes no move and takes no action until it is resumed or aborted", () => {
    fc.assert(
      fc.property(policy, fc.array(passOf(NO_RESUME), { maxLength: 8 }), (p, passes) => {
        const started = play({ policy: p, steps: STEPS, passes: [{ at: 0 }, { at: 1, requests: [{ kind: ControlKind.Pause }] }] }).at(
          -1,
        )?.run;
        if (started === undefined) throw new Error("no run");
        for (const d of drive(p, started, START + 1000, passes)) {
          expect(d.actions).toEqual([]);
          expect(d.run.phase).toBe(started.phase);
          expect(d.run.steps.map((s) => s.phase)).toEqual(started.steps.map((s) => s.phase));
        }
      }),
    );
  });

  it("an aborted run stays aborted and asks for nothing, whatever is requested", () => {
    const all = [ControlKind.Pause, ControlKind.Resume, ControlKind.Promote, ControlKind.Approve, ControlKind.Abort];
    fc.assert(
      fc.property(policy, fc.array(passOf(all), { maxLength: 8 }), (p, passes) => {
        const aborted = play({ policy: p, steps: STEPS, passes: [{ at: 0, requests: [{ kind: ControlKind.Abort }] }] }).at(-1)?.run;
        if (aborted === undefined) throw new Error("no run");
        for (const d of drive(p, aborted, START, passes)) {
          expect(d.actions).toEqual([]);
          expect(d.run.phase).toBe(RunPhase.Aborted);
        }
      }),
    );
  });

  it("a step completes only with as many failures left behind as its budget allows, and steps start in order", () => {
    const all = [ControlKind.Pause, ControlKind.Resume, ControlKind.Promote, ControlKind.Approve];
    fc.assert(
      fc.property(policy, fc.array(passOf(all), { minLength: 1, maxLength: 12 }), (p, passes) => {
        const targets = Object.fromEntries(APPS.map((n) => [n, [TARGET]]));
        const fresh = newRun({ id: "r", steps: STEPS, targetRevisions: targets, now: START });
        for (const d of drive(p, fresh, START, passes)) {
          for (const s of d.run.steps.filter((x) => x.phase === StepPhase.Completed)) {
            expect(s.toleratedFailures.length).toBeLessThanOrEqual(failureLimit(p.defaults?.maxFailures, s.counts.total));
            expect(s.index).toBeLessThan(d.run.currentStep);
          }
          for (const a of d.actions) if (a.type === "startStep") expect(a.step).toBe(d.run.currentStep);
        }
      }),
    );
  });

  it("every Application rolled back goes from this run's target to the last completed revisions", () => {
    fc.assert(
      fc.property(policy, fc.array(passOf([ControlKind.Resume]), { maxLength: 8 }), (p, passes) => {
        const withRollback = { ...p, rollback: { enabled: true, includeEarlierSteps: true } };
        for (const d of drive(withRollback, haltedRun(withRollback), START + 1000, passes)) {
          for (const a of d.actions) {
            if (a.type !== "rollback") continue;
            for (const app of a.applications) expect([app.from, app.to]).toEqual([[TARGET], [PREVIOUS]]);
          }
        }
      }),
    );
  });
});
