import { describe, expect, it } from "vitest";
import { lastCompletedRevisions, newRun } from "./run.js";
import { RunPhase, type RunState } from "./types.js";

const run = (id: string, startedAt: number, phase: RunState["phase"], rev: string): RunState => ({
  ...newRun({ id, steps: [["a"]], targetRevisions: { a: [rev] }, now: startedAt }),
  phase,
});

describe("a new run", () => {
  it("has every step Waiting with its Applications sorted and counted as pending", () => {
    const r = newRun({ id: "r", steps: [["b", "a"], []], targetRevisions: {}, now: 5 });
    expect(r.steps.map((s) => [s.phase, s.applications, s.counts.pending])).toEqual([
      ["Waiting", ["a", "b"], 2],
      ["Waiting", [], 0],
    ]);
    expect([r.phase, r.currentStep, r.startedAt]).toEqual([RunPhase.Running, 0, 5]);
  });
});

describe("the rollback target", () => {
  it("rolls back to the newest completed run's revisions (the history is newest first), skipping halted and aborted ones", () => {
    const history = [
      run("r3", 3, "Halted", "c"),
      run("r2", 2, "Completed", "b"),
      run("r1", 1, "Completed", "a"),
      run("r0", 0, "Aborted", "z"),
    ];
    expect(lastCompletedRevisions(history)).toEqual({ a: ["b"] });
    expect(lastCompletedRevisions([run("r3", 3, "Halted", "c")])).toBeUndefined();
  });
});
