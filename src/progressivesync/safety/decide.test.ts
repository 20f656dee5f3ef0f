import { describe, expect, it } from "vitest";
import { play, type Scenario, type ScenarioPass } from "./scenario.js";
import { ControlKind, type Decision, type RolloutAction, type RolloutPolicySpec } from "./types.js";

const W = "Waiting";
const A = "AwaitingApproval";
const P = "Progressing";
const S = "Soaking";
const C = "Completed";
const H = "Halted";
const R = "RolledBack";

const pause = { kind: ControlKind.Pause };
const resume = { kind: ControlKind.Resume };
const promote = { kind: ControlKind.Promote };
const abort = { kind: ControlKind.Abort };
const approve = { kind: ControlKind.Approve };

const TWO = [
  ["a1", "a2"],
  ["b1", "b2"],
];
const ready = (...names: string[]): Record<string, "ready"> => Object.fromEntries(names.map((n) => [n, "ready"]));

/** An action as a short word: "start 2", "halt ProgressDeadlineExceeded", "rollback a1,a2", "complete". */
function word(a: RolloutAction): string {
  switch (a.type) {
    case "startStep":
      return `start ${a.step + 1}`;
    case "halt":
      return `halt ${a.reason}`;
    case "rollback":
      return `rollback ${a.applications.map((x) => x.name).join(",")}`;
    case "complete":
      return "complete";
  }
}

/** A pass with what to expect after it: the run's phase, each step's phase and the actions asked for. */
interface Expected extends ScenarioPass {
  readonly run: string;
  readonly steps: readonly string[];
  readonly actions?: readonly string[];
}

interface Case {
  /** What the case shows. */
  readonly name: string;
  readonly policy: RolloutPolicySpec;
  /** The Applications of each step; TWO unless given. */
  readonly stepApps?: Scenario["steps"];
  readonly hasPrevious?: boolean;
  readonly passes: readonly Expected[];
}

const cases: Case[] = [
  {
    name: "without rules each step starts once the previous one is all ready",
    policy: {},
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 5, apps: { a1: "ready" }, run: "Running", steps: [P, W], actions: [] },
      { at: 9, apps: ready("a2"), run: "Running", steps: [C, P], actions: ["start 2"] },
      { at: 12, apps: ready("b1", "b2"), run: "Completed", steps: [C, C], actions: ["complete"] },
    ],
  },
  {
    name: "a step not complete by its deadline halts and later steps never start",
    policy: { defaults: { progressDeadlineMs: 60_000 } },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 59, apps: { a1: "ready", a2: "progressing" }, run: "Running", steps: [P, W], actions: [] },
      { at: 60, run: "Halted", steps: [H, W], actions: ["halt ProgressDeadlineExceeded"] },
      { at: 500, apps: ready("a2", "b1", "b2"), run: "Halted", steps: [H, W], actions: [] },
    ],
  },
  {
    name: "deadline with a budget: at the deadline an Application still not ready is left behind within the budget",
    policy: { defaults: { progressDeadlineMs: 60_000, maxFailures: 1 } },
    stepApps: [["a1", "a2", "a3"], ["b1"]],
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 30, apps: { a1: "ready", a2: "ready", a3: "progressing" }, run: "Running", steps: [P, W], actions: [] },
      { at: 60, run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
  {
    name: "deadline with a budget: more not ready than the budget at the deadline halts",
    policy: { defaults: { progressDeadlineMs: 60_000, maxFailures: 1 } },
    stepApps: [["a1", "a2", "a3"], ["b1"]],
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      {
        at: 60,
        apps: { a1: "ready", a2: "degraded", a3: "progressing" },
        run: "Halted",
        steps: [H, W],
        actions: ["halt ProgressDeadlineExceeded"],
      },
    ],
  },
  {
    name: "a Degraded Application beyond a budget of 0 halts before the deadline",
    policy: { defaults: { progressDeadlineMs: 600_000 } },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 5, apps: { a1: "degraded" }, run: "Halted", steps: [H, W], actions: ["halt FailureBudgetExceeded"] },
    ],
  },
  {
    name: "a SyncFailed-but-Healthy Application within the budget lets the step complete without it",
    policy: { defaults: { maxFailures: 1 } },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 5, apps: { a1: "syncFailedHealthy", a2: "ready" }, run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
  {
    name: "a SyncFailed-but-Healthy Application beyond the budget halts instead of blocking forever",
    policy: {},
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 5, apps: { a1: "syncFailedHealthy", a2: "ready" }, run: "Halted", steps: [H, W], actions: ["halt FailureBudgetExceeded"] },
    ],
  },
  {
    name: "a percentage budget rounds down: 10% of 5 tolerates no failure",
    policy: { defaults: { maxFailures: "10%" } },
    stepApps: [["a1", "a2", "a3", "a4", "a5"]],
    passes: [
      { at: 0, run: "Running", steps: [P], actions: ["start 1"] },
      {
        at: 5,
        apps: { ...ready("a2", "a3", "a4", "a5"), a1: "degraded" },
        run: "Halted",
        steps: [H],
        actions: ["halt FailureBudgetExceeded"],
      },
    ],
  },
  {
    name: "a percentage budget rounds down: 20% of 5 tolerates one failure",
    policy: { defaults: { maxFailures: "20%" } },
    stepApps: [["a1", "a2", "a3", "a4", "a5"]],
    passes: [
      { at: 0, run: "Running", steps: [P], actions: ["start 1"] },
      { at: 5, apps: { ...ready("a2", "a3", "a4", "a5"), a1: "degraded" }, run: "Completed", steps: [C], actions: ["complete"] },
    ],
  },
  {
    name: "a soak holds the next step until every Application stayed ready for its length",
    policy: { defaults: { soakMs: 300_000 } },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 10, apps: ready("a1", "a2"), run: "Running", steps: [S, W], actions: [] },
      { at: 309, run: "Running", steps: [S, W], actions: [] },
      { at: 310, run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
  {
    name: "a soak interrupted by a Degraded Application within the budget restarts from zero",
    policy: { defaults: { soakMs: 300_000, maxFailures: 1 } },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 10, apps: ready("a1", "a2"), run: "Running", steps: [S, W], actions: [] },
      { at: 200, apps: { a1: "degraded" }, run: "Running", steps: [P, W], actions: [] },
      { at: 210, apps: ready("a1"), run: "Running", steps: [S, W], actions: [] },
      { at: 509, run: "Running", steps: [S, W], actions: [] },
      { at: 510, run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
  {
    name: "a soak interrupted by a Degraded Application beyond the budget halts",
    policy: { defaults: { soakMs: 300_000 } },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 10, apps: ready("a1", "a2"), run: "Running", steps: [S, W], actions: [] },
      { at: 200, apps: { a2: "degraded" }, run: "Halted", steps: [H, W], actions: ["halt FailureBudgetExceeded"] },
    ],
  },
  {
    name: "a pause during a soak stops its clock: the paused time does not count",
    policy: { defaults: { soakMs: 300_000 } },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 10, apps: ready("a1", "a2"), run: "Running", steps: [S, W], actions: [] },
      { at: 100, requests: [pause], run: "Paused", steps: [S, W], actions: [] },
      { at: 1000, run: "Paused", steps: [S, W], actions: [] },
      { at: 1100, requests: [resume], run: "Running", steps: [S, W], actions: [] },
      { at: 1309, run: "Running", steps: [S, W], actions: [] },
      { at: 1310, run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
  {
    name: "a pause keeps the deadline from firing and resume extends it by the paused time",
    policy: { defaults: { progressDeadlineMs: 60_000 } },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 10, requests: [pause], run: "Paused", steps: [P, W], actions: [] },
      { at: 100, run: "Paused", steps: [P, W], actions: [] },
      { at: 200, requests: [resume], run: "Running", steps: [P, W], actions: [] },
      { at: 249, run: "Running", steps: [P, W], actions: [] },
      { at: 250, run: "Halted", steps: [H, W], actions: ["halt ProgressDeadlineExceeded"] },
    ],
  },
  {
    name: "a step that needs approval waits before it starts and starts once approved",
    policy: { steps: [undefined, { requireApproval: true }] },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 5, apps: ready("a1", "a2"), run: "Running", steps: [C, A], actions: [] },
      { at: 500, run: "Running", steps: [C, A], actions: [] },
      { at: 600, requests: [approve], run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
  {
    name: "approval after a halt: approving does not resume, and the step waits for its approval after resume",
    policy: { defaults: { progressDeadlineMs: 60_000 }, steps: [undefined, { requireApproval: true }] },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 60, run: "Halted", steps: [H, W], actions: ["halt ProgressDeadlineExceeded"] },
      { at: 70, requests: [approve], run: "Halted", steps: [H, W], actions: [] },
      { at: 80, apps: ready("a1", "a2"), requests: [resume], run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 90, run: "Running", steps: [C, A], actions: [] },
      { at: 100, requests: [approve], run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
  {
    name: "a step approved ahead, while the run is halted, starts without waiting once reached",
    policy: { defaults: { progressDeadlineMs: 60_000 }, steps: [undefined, { requireApproval: true }] },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 60, run: "Halted", steps: [H, W], actions: ["halt ProgressDeadlineExceeded"] },
      { at: 70, requests: [{ kind: ControlKind.Approve, step: 1 }], run: "Halted", steps: [H, W], actions: [] },
      { at: 80, apps: ready("a1", "a2"), requests: [resume], run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 90, run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
  {
    name: "promote skips the rest of a soak and the next step starts in the same pass",
    policy: { defaults: { soakMs: 300_000 } },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 10, apps: ready("a1", "a2"), run: "Running", steps: [S, W], actions: [] },
      { at: 20, requests: [promote], run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
  {
    name: "promote then pause in one pass completes the soaking step and holds the next one until resume",
    policy: { defaults: { soakMs: 300_000 } },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 10, apps: ready("a1", "a2"), run: "Running", steps: [S, W], actions: [] },
      { at: 20, requests: [promote, pause], run: "Paused", steps: [C, W], actions: [] },
      { at: 30, requests: [resume], run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
  {
    name: "promote approves a step awaiting approval",
    policy: { defaults: { requireApproval: true } },
    passes: [
      { at: 0, run: "Running", steps: [A, W], actions: [] },
      { at: 10, requests: [promote], run: "Running", steps: [P, W], actions: ["start 1"] },
    ],
  },
  {
    name: "abort ends the run for good: resume is refused and nothing starts again",
    policy: {},
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 10, requests: [abort], run: "Aborted", steps: [H, W], actions: ["halt Aborted"] },
      { at: 20, apps: ready("a1", "a2"), requests: [resume], run: "Aborted", steps: [H, W], actions: [] },
    ],
  },
  {
    name: "rollback then resume: the halted step goes back to the last completed revisions, then starts again",
    policy: { defaults: { progressDeadlineMs: 60_000 }, rollback: { enabled: true } },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 60, apps: { a1: "ready" }, run: "Halted", steps: [R, W], actions: ["halt ProgressDeadlineExceeded", "rollback a1,a2"] },
      { at: 100, requests: [resume], run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 110, apps: ready("a1", "a2"), run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
  {
    name: "rollback of the earlier steps too, and resume restarts from the first rolled-back step",
    policy: { defaults: { maxFailures: 0 }, rollback: { enabled: true, includeEarlierSteps: true } },
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 5, apps: ready("a1", "a2"), run: "Running", steps: [C, P], actions: ["start 2"] },
      { at: 9, apps: { b1: "degraded" }, run: "Halted", steps: [R, R], actions: ["halt FailureBudgetExceeded", "rollback a1,a2,b1,b2"] },
      { at: 20, requests: [resume], run: "Running", steps: [P, W], actions: ["start 1"] },
    ],
  },
  {
    name: "rollback with no completed rollout before has nothing to roll back to",
    policy: { defaults: { progressDeadlineMs: 60_000 }, rollback: { enabled: true } },
    hasPrevious: false,
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 60, run: "Halted", steps: [H, W], actions: ["halt ProgressDeadlineExceeded"] },
    ],
  },
  {
    name: "resuming a halted run whose cause is not fixed halts it again at once",
    policy: {},
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 5, apps: { a1: "degraded" }, run: "Halted", steps: [H, W], actions: ["halt FailureBudgetExceeded"] },
      { at: 9, requests: [resume], run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 10, run: "Halted", steps: [H, W], actions: ["halt FailureBudgetExceeded"] },
    ],
  },
  {
    name: "a pause then resume in one pass leaves the run running",
    policy: {},
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 5, requests: [pause, resume], apps: ready("a1", "a2"), run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
  {
    name: "an empty step completes at once",
    policy: {},
    stepApps: [[], ["b1"]],
    passes: [
      { at: 0, run: "Running", steps: [P, W], actions: ["start 1"] },
      { at: 1, run: "Running", steps: [C, P], actions: ["start 2"] },
    ],
  },
];

describe("rollout safety decisions, pass by pass", () => {
  it.each(cases)("$name", ({ policy, stepApps, hasPrevious, passes }) => {
    const decisions = play({ policy, steps: stepApps ?? TWO, passes, hasPrevious });
    const seen = decisions.map((d, i) => ({
      at: passes[i]?.at,
      run: d.run.phase,
      steps: d.run.steps.map((s) => s.phase),
      actions: d.actions.map(word),
    }));
    expect(seen).toEqual(passes.map((p) => ({ at: p.at, run: p.run, steps: p.steps, actions: p.actions ?? [] })));
  });
});

const last = (ds: Decision[]): Decision => {
  const d = ds.at(-1);
  if (d === undefined) throw new Error("no pass");
  return d;
};

describe("what a run records", () => {
  it("says why a step waits, naming each Application and what it lacks", () => {
    const d = last(play({ policy: {}, steps: TWO, passes: [{ at: 0 }, { at: 12, apps: { a1: "ready", a2: "progressing" } }] }));
    expect(d.run.steps[0]?.why).toBe("a2: Progressing at 9b8c7d6, last reconciled 0 s ago");
    expect(d.run.steps[0]?.counts).toEqual({ total: 2, ready: 1, failed: 0, pending: 1 });
  });

  it("keeps the times of a step: started, deadline, ended", () => {
    const ds = play({
      policy: { defaults: { progressDeadlineMs: 60_000 } },
      steps: TWO,
      passes: [{ at: 3 }, { at: 8, apps: ready("a1", "a2") }],
    });
    const step = last(ds).run.steps[0];
    const start = ds[0]?.run.startedAt ?? 0;
    expect([step?.startedAt, step?.deadline, step?.endedAt]).toEqual([start + 3000, start + 63_000, start + 8000]);
  });

  it("records the Applications a budget let a step complete without", () => {
    const d = last(
      play({
        policy: { defaults: { maxFailures: 1 } },
        steps: TWO,
        passes: [{ at: 0 }, { at: 5, apps: { a1: "syncFailedHealthy", a2: "ready" } }],
      }),
    );
    expect(d.run.steps[0]?.toleratedFailures).toEqual(["a1"]);
  });

  it("records which revisions a rollback goes from and to", () => {
    const d = last(play({ policy: { rollback: { enabled: true } }, steps: TWO, passes: [{ at: 0 }, { at: 5, apps: { a2: "degraded" } }] }));
    expect(d.run.rollback?.applications).toEqual([
      { name: "a1", from: ["9b8c7d6e5f40"], to: ["3f2a1c9d8e7b"] },
      { name: "a2", from: ["9b8c7d6e5f40"], to: ["3f2a1c9d8e7b"] },
    ]);
    expect(d.run.haltReason).toBe("FailureBudgetExceeded");
  });

  it("counts soak restarts and says when a soak restarts", () => {
    const passes = [{ at: 0 }, { at: 5, apps: ready("a1", "a2") }, { at: 9, apps: { a1: "progressing" as const } }];
    const d = last(play({ policy: { defaults: { soakMs: 60_000 } }, steps: TWO, passes }));
    expect(d.run.steps[0]?.soakRestarts).toBe(1);
    expect(d.run.steps[0]?.why).toBe("soak restarts: a1: Progressing at 9b8c7d6, last reconciled 0 s ago");
  });

  it("says how much soak is left, and that a step awaits approval", () => {
    const soak = last(
      play({ policy: { defaults: { soakMs: 60_000 } }, steps: TWO, passes: [{ at: 0 }, { at: 5, apps: ready("a1", "a2") }, { at: 20 }] }),
    );
    expect(soak.run.steps[0]?.why).toBe("soaking: 45 s of 60 s left");
    const wait = last(play({ policy: { defaults: { requireApproval: true } }, steps: TWO, passes: [{ at: 0 }] }));
    expect(wait.run.steps[0]?.why).toBe("step 1 waits for approval");
  });

  it("returns the requests that had no effect, with why", () => {
    const d = last(play({ policy: {}, steps: TWO, passes: [{ at: 0, requests: [promote, { kind: ControlKind.Approve, step: 7 }] }] }));
    expect(d.ignored.map((i) => i.why)).toEqual(["step 1 is neither soaking nor awaiting approval", "no step 8"]);
  });

  it("says a halted run waits for a resume, and that a rolled-back step was rolled back", () => {
    const passes = [{ at: 0 }, { at: 5, apps: { a2: "degraded" as const } }, { at: 9 }];
    const halted = last(play({ policy: {}, steps: TWO, passes }));
    expect(halted.run.steps[0]?.why).toBe(
      "halted (FailureBudgetExceeded), resume once fixed; a1: OutOfSync at 3f2a1c9, wants 9b8c7d6, last reconciled 0 s ago; a2: Degraded at 9b8c7d6, last reconciled 0 s ago",
    );
    const rolled = last(play({ policy: { rollback: { enabled: true } }, steps: TWO, passes }));
    const said =
      "halted (FailureBudgetExceeded), 2 Applications rolled back to the last completed revisions; resume to roll out again; " +
      "at the halt: 1 failed, budget 0: a1: OutOfSync at 3f2a1c9, wants 9b8c7d6, last reconciled 0 s ago; a2: Degraded at 9b8c7d6, last reconciled 0 s ago";
    expect(rolled.run.steps[0]?.why).toBe(said);
    // Later passes keep it as it was said, whatever the rolled-back Applications look like now.
    const later = last(
      play({ policy: { rollback: { enabled: true } }, steps: TWO, passes: [...passes, { at: 30, apps: { a2: "ready" as const } }] }),
    );
    expect(later.run.steps[0]?.why).toBe(said);
  });

  it("says a paused run is paused and what its step still lacks", () => {
    const d = last(play({ policy: {}, steps: TWO, passes: [{ at: 0 }, { at: 5, requests: [pause], apps: { a1: "ready" } }] }));
    expect(d.run.steps[0]?.why).toBe("paused; a2: OutOfSync at 3f2a1c9, wants 9b8c7d6, last reconciled 0 s ago");
  });
});
