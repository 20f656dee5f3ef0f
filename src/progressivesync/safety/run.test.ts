import { describe, expect, it } from "vitest";
import { keepHistory, lastCompletedRevisions, newRun } from "./run.js";
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

describe("run history", () => {
  it.each([
    // name; the history before; the run kept; the limit; the ids after, newest first
    {
      name: "a new run goes first",
      before: [run("r1", 1, "Completed", "x")],
      add: run("r2", 2, "Running", "y"),
      limit: 5,
      ids: ["r2", "r1"],
    },
    {
      name: "a run of the same id is replaced",
      before: [run("r1", 1, "Running", "x")],
      add: run("r1", 1, "Completed", "x"),
      limit: 5,
      ids: ["r1"],
    },
    {
      name: "only the last N are kept",
      before: [run("r2", 2, "Completed", "x"), run("r1", 1, "Completed", "x")],
      add: run("r3", 3, "Running", "y"),
      limit: 2,
      ids: ["r3", "r2"],
    },
    { name: "a limit of 0 keeps none", before: [], add: run("r1", 1, "Running", "x"), limit: 0, ids: [] },
  ])("$name", ({ before, add, limit, ids }) => {
    expect(keepHistory(before, add, limit).map((r) => r.id)).toEqual(ids);
  });

  it("rolls back to the newest completed run's revisions, skipping halted and aborted ones", () => {
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
