import { describe, expect, it } from "vitest";
import type { RolloutRun, RolloutRunStatus } from "../api/rollout-run.js";
import { historyRows, renderHistory } from "./rollout-history-view.js";

const NOW = Date.parse("2026-12-06T12:00:00Z");
const run = (name: string, status?: RolloutRunStatus): RolloutRun => ({
  apiVersion: "progressivesync.appset.dev/v1alpha1",
  kind: "RolloutRun",
  metadata: { name, namespace: "argocd", creationTimestamp: "2026-12-06T09:00:00Z" },
  spec: { applicationSet: "guestbook" },
  ...(status === undefined ? {} : { status }),
});
const steps = (...phases: string[]) => phases.map((phase, i) => ({ step: i + 1, phase }));

const runs = [
  run("guestbook-1", {
    phase: "Completed",
    startedAt: "2026-12-06T09:00:00Z",
    endedAt: "2026-12-06T09:30:00Z",
    steps: steps("Completed", "Completed"),
  }),
  run("guestbook-3", { phase: "Running", startedAt: "2026-12-06T11:00:00Z", steps: steps("Completed", "Progressing", "Waiting") }),
  run("guestbook-2", {
    phase: "Halted",
    haltReason: "ProgressDeadlineExceeded",
    startedAt: "2026-12-06T10:00:00Z",
    endedAt: "2026-12-06T10:20:30Z",
    steps: steps("Completed", "RolledBack"),
    rollback: { at: "2026-12-06T10:20:31Z", applications: [] },
  }),
];

describe("historyRows", () => {
  it("lists the runs newest first, with duration, steps completed and rollback", () => {
    expect(historyRows(runs, NOW)).toEqual([
      {
        name: "guestbook-3",
        phase: "Running",
        haltReason: "",
        startedAt: "2026-12-06T11:00:00Z",
        endedAt: "",
        duration: "1h0m0s",
        stepsCompleted: 1,
        steps: 3,
        rolledBack: false,
      },
      {
        name: "guestbook-2",
        phase: "Halted",
        haltReason: "ProgressDeadlineExceeded",
        startedAt: "2026-12-06T10:00:00Z",
        endedAt: "2026-12-06T10:20:30Z",
        duration: "20m30s",
        stepsCompleted: 1,
        steps: 2,
        rolledBack: true,
      },
      {
        name: "guestbook-1",
        phase: "Completed",
        haltReason: "",
        startedAt: "2026-12-06T09:00:00Z",
        endedAt: "2026-12-06T09:30:00Z",
        duration: "30m0s",
        stepsCompleted: 2,
        steps: 2,
        rolledBack: false,
      },
    ]);
  });

  it("renders an aligned table, with - for empty cells and a run without status", () => {
    expect(renderHistory(historyRows([...runs, run("guestbook-0")], NOW))).toEqual([
      "RUN          PHASE      HALT REASON               STARTED               ENDED                 DURATION  STEPS  ROLLED BACK",
      "guestbook-3  Running    -                         2026-12-06T11:00:00Z  -                     1h0m0s    1/3    no",
      "guestbook-2  Halted     ProgressDeadlineExceeded  2026-12-06T10:00:00Z  2026-12-06T10:20:30Z  20m30s    1/2    yes",
      "guestbook-1  Completed  -                         2026-12-06T09:00:00Z  2026-12-06T09:30:00Z  30m0s     2/2    no",
      "guestbook-0  -          -                         -                     -                     -         0/0    no",
    ]);
  });
});
