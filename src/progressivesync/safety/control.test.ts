import { describe, expect, it } from "vitest";
import { applyControl } from "./control.js";
import { newRun, withStep } from "./run.js";
import { ControlKind, RunPhase, StepPhase, type ControlRequest, type RunState } from "./types.js";

const base = newRun({ id: "r", steps: [["a"], ["b"]], targetRevisions: {}, now: 0 });
const on = (phase: RunState["phase"], step0: StepPhase, extra: Partial<RunState> = {}): RunState => ({
  ...withStep(base, { ...base.steps[0]!, phase: step0 }),
  phase,
  ...extra,
});

describe("control requests that cannot apply change nothing and say why", () => {
  it.each([
    // name; the run; the request; why it is ignored
    { name: "pause of a halted run", run: on(RunPhase.Halted, StepPhase.Halted), req: { kind: ControlKind.Pause }, why: "run is Halted" },
    {
      name: "pause of a paused run",
      run: on(RunPhase.Paused, StepPhase.Progressing),
      req: { kind: ControlKind.Pause },
      why: "run is Paused",
    },
    {
      name: "resume of a running run",
      run: on(RunPhase.Running, StepPhase.Progressing),
      req: { kind: ControlKind.Resume },
      why: "run is Running",
    },
    {
      name: "resume of an aborted run",
      run: on(RunPhase.Aborted, StepPhase.Halted),
      req: { kind: ControlKind.Resume },
      why: "run is Aborted",
    },
    {
      name: "promote of a paused run",
      run: on(RunPhase.Paused, StepPhase.Soaking),
      req: { kind: ControlKind.Promote },
      why: "run is Paused",
    },
    {
      name: "approve of a started step",
      run: on(RunPhase.Running, StepPhase.Progressing),
      req: { kind: ControlKind.Approve },
      why: "step 1 is Progressing",
    },
    {
      name: "approve of a step twice",
      run: withStep(base, { ...base.steps[1]!, approvedAt: 5 }),
      req: { kind: ControlKind.Approve, step: 1 },
      why: "step 2 is already approved",
    },
    {
      name: "approve of a completed run",
      run: on(RunPhase.Completed, StepPhase.Completed),
      req: { kind: ControlKind.Approve },
      why: "run is Completed",
    },
    {
      name: "abort of a completed run",
      run: on(RunPhase.Completed, StepPhase.Completed),
      req: { kind: ControlKind.Abort },
      why: "run is Completed",
    },
  ] satisfies { name: string; run: RunState; req: ControlRequest; why: string }[])("$name", ({ run, req, why }) => {
    expect(applyControl(run, req, 10)).toEqual({ ignored: why });
  });
});

/** The run after a request that must apply. */
function applied(run: RunState, req: ControlRequest, now: number): RunState {
  const result = applyControl(run, req, now);
  if ("ignored" in result) throw new Error(result.ignored);
  return result.run;
}

describe("control requests that apply", () => {
  it("resume of a paused run shifts the current step's deadline and soak start by the paused time", () => {
    const paused = withStep(
      { ...base, phase: RunPhase.Paused, pausedAt: 100 },
      { ...base.steps[0]!, phase: StepPhase.Soaking, deadline: 160, soakStartedAt: 90 },
    );
    const run = applied(paused, { kind: ControlKind.Resume }, 400);
    expect([run.phase, run.steps[0]?.deadline, run.steps[0]?.soakStartedAt, run.pausedAt]).toEqual([RunPhase.Running, 460, 390, undefined]);
  });

  it("abort halts the current step and records when", () => {
    const run = applied(on(RunPhase.Paused, StepPhase.Progressing, { pausedAt: 3 }), { kind: ControlKind.Abort }, 10);
    expect([run.phase, run.haltReason, run.endedAt, run.pausedAt, run.steps[0]?.phase]).toEqual([
      RunPhase.Aborted,
      "Aborted",
      10,
      undefined,
      StepPhase.Halted,
    ]);
  });
});
