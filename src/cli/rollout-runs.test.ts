import { describe, expect, it } from "vitest";
import type { RolloutRun } from "../api/rollout-run.js";
import { isFinished, newestFirst, newestRun, statusExit, type RolloutExit } from "./rollout-runs.js";

const run = (name: string, o: { startedAt?: string; created?: string } = {}): RolloutRun => ({
  apiVersion: "progressivesync.appset.dev/v1alpha1",
  kind: "RolloutRun",
  metadata: { name, namespace: "argocd", ...(o.created === undefined ? {} : { creationTimestamp: o.created }) },
  spec: { applicationSet: "guestbook" },
  ...(o.startedAt === undefined ? {} : { status: { startedAt: o.startedAt } }),
});

describe("newestFirst", () => {
  // [ case, runs, names newest first ]
  const cases: [string, RolloutRun[], string[]][] = [
    ["latest start first", [run("a", { startedAt: "2026-01-01T10:00:00Z" }), run("b", { startedAt: "2026-01-01T11:00:00Z" })], ["b", "a"]],
    [
      "start wins over creation",
      [
        run("a", { startedAt: "2026-01-01T12:00:00Z", created: "2026-01-01T09:00:00Z" }),
        run("b", { startedAt: "2026-01-01T11:00:00Z", created: "2026-01-01T10:00:00Z" }),
      ],
      ["a", "b"],
    ],
    [
      "same start: the later creation",
      [
        run("a", { startedAt: "2026-01-01T10:00:00Z", created: "2026-01-01T09:00:00Z" }),
        run("b", { startedAt: "2026-01-01T10:00:00Z", created: "2026-01-01T09:30:00Z" }),
      ],
      ["b", "a"],
    ],
    [
      "a run without status yet counts from its creation",
      [run("old", { startedAt: "2026-01-01T10:00:00Z", created: "2026-01-01T10:00:00Z" }), run("new", { created: "2026-01-01T12:00:00Z" })],
      ["new", "old"],
    ],
    [
      "same start: the one another replaced is the older",
      [
        { ...run("z"), status: { startedAt: "2026-01-01T10:00:00Z", phase: "Aborted", haltReason: "Superseded" } },
        { ...run("a"), status: { startedAt: "2026-01-01T10:00:00Z", phase: "Halted", haltReason: "FailureBudgetExceeded" } },
      ],
      ["a", "z"],
    ],
    ["all equal: by name, descending", [run("a"), run("c"), run("b")], ["c", "b", "a"]],
  ];
  it.each(cases)("%s", (_, runs, names) => {
    expect(newestFirst(runs).map((r) => r.metadata.name)).toEqual(names);
    expect(newestRun(runs)?.metadata.name).toBe(names[0]);
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
