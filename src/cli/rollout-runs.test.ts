import { describe, expect, it } from "vitest";
import type { RolloutRun } from "../api/rollout-run.js";
import { heldBehind, isFinished, newestRun, statusExit, type RolloutExit } from "./rollout-runs.js";

const run = (name: string, o: { startedAt?: string; created?: string } = {}): RolloutRun => ({
  apiVersion: "progressivesync.appset.dev/v1alpha1",
  kind: "RolloutRun",
  metadata: { name, namespace: "argocd", ...(o.created === undefined ? {} : { creationTimestamp: o.created }) },
  spec: { applicationSet: "guestbook" },
  ...(o.startedAt === undefined ? {} : { status: { startedAt: o.startedAt } }),
});

describe("newestRun", () => {
  it("is the first of newestFirst", () => {
    const runs = [run("a", { startedAt: "2026-01-01T10:00:00Z" }), run("b", { startedAt: "2026-01-01T11:00:00Z" })];
    expect(newestRun(runs)?.metadata.name).toBe("b");
  });

  it("finds no newest run among none", () => {
    expect(newestRun([])).toBeUndefined();
  });
});

describe("statusExit", () => {
  // [ phase, watched, exit code ]
  const cases: [string | undefined, boolean, RolloutExit][] = [
    ["Completed", false, 0],
    ["Completed", true, 0],
    ["Running", false, 0],
    ["Paused", false, 0],
    [undefined, false, 0],
    ["Halted", false, 1],
    ["Halted", true, 1],
    ["Aborted", false, 1],
    ["Aborted", true, 1],
    ["Running", true, 2],
    ["Paused", true, 2],
    [undefined, true, 2],
  ];
  it.each(cases)("phase %s, watched %s: exit %i", (phase, watched, code) => {
    expect(statusExit(phase, watched)).toBe(code);
  });

  it.each([
    ["Completed", true],
    ["Halted", true],
    ["Aborted", true],
    ["Running", false],
    ["Paused", false],
    [undefined, false],
  ] as const)("%s is finished: %s", (phase, finished) => {
    expect(isFinished(phase)).toBe(finished);
  });
});

describe("heldBehind", () => {
  const at = (name: string, hour: number, phase: string, haltReason?: string): RolloutRun => ({
    ...run(name),
    status: { startedAt: `2026-01-01T${String(hour).padStart(2, "0")}:00:00Z`, phase, ...(haltReason === undefined ? {} : { haltReason }) },
  });
  // [ case, runs (the last is the one shown), the halted run named, or undefined ]
  const cases: [string, RolloutRun[], string | undefined][] = [
    ["a Paused run right after a halt", [at("done", 9, "Completed"), at("halted", 10, "Halted"), at("shown", 11, "Paused")], "halted"],
    ["past other Paused runs", [at("halted", 10, "Halted"), at("p1", 11, "Paused"), at("shown", 12, "Paused")], "halted"],
    ["past a superseded run", [at("halted", 10, "Halted"), at("gone", 11, "Aborted", "Superseded"), at("shown", 12, "Paused")], "halted"],
    ["not past a completed run", [at("halted", 9, "Halted"), at("done", 10, "Completed"), at("shown", 11, "Paused")], undefined],
    ["not past an aborted run", [at("halted", 9, "Halted"), at("stop", 10, "Aborted", "Aborted"), at("shown", 11, "Paused")], undefined],
    ["a paused run with no halt before it", [at("done", 10, "Completed"), at("shown", 11, "Paused")], undefined],
    ["a run that is not Paused", [at("halted", 10, "Halted"), at("shown", 11, "Running")], undefined],
    ["the halted run itself", [at("done", 9, "Completed"), at("shown", 10, "Halted")], undefined],
    ["an older halt, whatever the list order", [at("shown", 11, "Paused"), at("halted", 10, "Halted")], "halted"],
  ];
  it.each(cases)("%s", (_, runs, want) => {
    const shown = runs.find((r) => r.metadata.name === "shown")!;
    expect(heldBehind(shown, runs)?.metadata.name).toBe(want);
  });
});
