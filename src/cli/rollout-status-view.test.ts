import { describe, expect, it } from "vitest";
import type { RolloutRun, RolloutRunStatus } from "../api/rollout-run.js";
import { progressBar, renderStatus, requestLines, seconds } from "./rollout-status-view.js";

const NOW = Date.parse("2026-12-06T10:12:00Z");

const run = (status: RolloutRunStatus | undefined, spec: Partial<RolloutRun["spec"]> = {}): RolloutRun => ({
  apiVersion: "progressivesync.appset.dev/v1alpha1",
  kind: "RolloutRun",
  metadata: { name: "guestbook-7f9c2", namespace: "argocd" },
  spec: { applicationSet: "guestbook", policy: "careful", ...spec },
  ...(status === undefined ? {} : { status }),
});

const running: RolloutRunStatus = {
  phase: "Running",
  currentStep: 2,
  startedAt: "2026-12-06T10:00:00Z",
  steps: [
    { step: 1, phase: "Completed", counts: { total: 2, ready: 2, failed: 0, pending: 0 }, message: "ignored once completed" },
    {
      step: 2,
      phase: "Progressing",
      counts: { total: 10, ready: 5, failed: 1, pending: 4 },
      deadline: "2026-12-06T10:16:10Z",
      message: "prod-eu: OutOfSync at 3f2a1c9, wants 9b8c7d6\nprod-us: Progressing",
    },
    { step: 3, phase: "Waiting", counts: { total: 4, ready: 0, failed: 0, pending: 4 } },
  ],
};

describe("renderStatus", () => {
  it("shows the header, one line per step with a bar on a terminal, and why a step waits", () => {
    expect(renderStatus(run(running), { now: NOW, isTTY: true })).toEqual([
      "ApplicationSet: guestbook (namespace argocd)",
      "Run:            guestbook-7f9c2 (policy careful)",
      "Phase:          Running",
      "Started:        2026-12-06T10:00:00Z",
      "Elapsed:        12m0s",
      "Current step:   2 of 3",
      "Steps:",
      "  Step 1  Completed         [####################] 2/2",
      "  Step 2  Progressing       [##########----------] 5/10  failed 1  deadline in 4m10s",
      "      prod-eu: OutOfSync at 3f2a1c9, wants 9b8c7d6",
      "      prod-us: Progressing",
      "  Step 3  Waiting           [--------------------] 0/4",
    ]);
  });

  it("writes plain `ready N/M` without a terminal", () => {
    const lines = renderStatus(run(running), { now: NOW, isTTY: false });
    expect(lines.filter((l) => l.startsWith("  Step"))).toEqual([
      "  Step 1  Completed         ready 2/2",
      "  Step 2  Progressing       ready 5/10  failed 1  deadline in 4m10s",
      "  Step 3  Waiting           ready 0/4",
    ]);
    expect(lines.join("\n")).not.toContain("[");
  });

  // [ case, step status, now, the step line's tail ]
  const timeCases: [string, NonNullable<RolloutRunStatus["steps"]>[number], string, boolean][] = [
    [
      "a deadline passed",
      { step: 1, phase: "Progressing", counts: { total: 1, ready: 0, failed: 0, pending: 1 }, deadline: "2026-12-06T10:11:30Z" },
      "deadline passed 30s ago",
      false,
    ],
    [
      "soak left, with the policy's soak",
      { step: 1, phase: "Soaking", soakStartedAt: "2026-12-06T10:02:00Z" },
      "soak ends in 5m0s (of 15m0s)",
      true,
    ],
    ["soak so far, without the policy", { step: 1, phase: "Soaking", soakStartedAt: "2026-12-06T10:02:00Z" }, "soaking for 10m0s", false],
    ["no deadline shown once soaking", { step: 1, phase: "Soaking", deadline: "2026-12-06T10:20:00Z" }, "Soaking", false],
  ];
  it.each(timeCases)("%s", (_, step, tail, withSoak) => {
    const lines = renderStatus(run({ phase: "Running", steps: [step] }), {
      now: NOW,
      isTTY: false,
      ...(withSoak ? { soakMs: new Map([[1, 15 * 60_000]]) } : {}),
    });
    expect(
      lines
        .find((l) => l.startsWith("  Step 1"))
        ?.trimEnd()
        .endsWith(tail),
    ).toBe(true);
  });

  it("shows a halt with its reason, the end time, the tolerated failures, the rollback record and the requests", () => {
    const lines = renderStatus(
      run(
        {
          phase: "Halted",
          haltReason: "FailureBudgetExceeded",
          startedAt: "2026-12-06T10:00:00Z",
          endedAt: "2026-12-06T10:05:00Z",
          message: "step 2 halted",
          steps: [
            { step: 1, phase: "Completed", counts: { total: 3, ready: 2, failed: 1, pending: 0 }, toleratedFailures: ["dev-b"] },
            {
              step: 2,
              phase: "RolledBack",
              counts: { total: 2, ready: 0, failed: 2, pending: 0 },
              message: "2 failed, budget 0: prod-a: Degraded",
            },
          ],
          rollback: {
            at: "2026-12-06T10:05:01Z",
            applications: [{ application: "prod-a", from: ["9b8c7d6"], to: ["3f2a1c9"] }],
            skipped: ["prod-new"],
          },
          observedRequests: 1,
          requests: [{ index: 0, applied: false, message: "the run is halted" }],
        },
        {
          requests: [
            { action: "approve", step: 2, by: "alice", at: "2026-12-06T10:01:00Z" },
            { action: "resume", by: "bob", at: "2026-12-06T10:06:00Z" },
          ],
        },
      ),
      { now: NOW, isTTY: false },
    );
    expect(lines).toEqual([
      "ApplicationSet: guestbook (namespace argocd)",
      "Run:            guestbook-7f9c2 (policy careful)",
      "Phase:          Halted, FailureBudgetExceeded",
      "Started:        2026-12-06T10:00:00Z",
      "Elapsed:        5m0s (ended 2026-12-06T10:05:00Z)",
      "Message:        step 2 halted",
      "Steps:",
      "  Step 1  Completed         ready 2/3  failed 1  completed without dev-b",
      "  Step 2  RolledBack        ready 0/2  failed 2",
      "      2 failed, budget 0: prod-a: Degraded",
      "Rolled back at 2026-12-06T10:05:01Z:",
      "  prod-a: 9b8c7d6 -> 3f2a1c9",
      "  left as they are (no revisions in the last completed run): prod-new",
      "Requests (last 2 of 2):",
      "  #0 approve step 2 by alice at 2026-12-06T10:01:00Z: refused: the run is halted",
      "  #1 resume by bob at 2026-12-06T10:06:00Z: not applied yet",
    ]);
  });

  it("shows the halted run a Paused run waits behind, why it halted and its rollback", () => {
    const halted: RolloutRun = {
      ...run({
        phase: "Halted",
        haltReason: "FailureBudgetExceeded",
        currentStep: 1,
        message: "1 failed, budget 0: ui-1: sync Failed at 9b8c7d6",
        rollback: { at: "2026-12-06T10:05:01Z", applications: [{ application: "ui-1", from: ["9b8c7d6"], to: ["3f2a1c9"] }] },
      }),
      metadata: { name: "guestbook-1a2b3", namespace: "argocd" },
    };
    const lines = renderStatus(
      run({
        phase: "Paused",
        currentStep: 1,
        startedAt: "2026-12-06T10:10:00Z",
        steps: [{ step: 1, phase: "Waiting", message: "paused" }],
      }),
      { now: NOW, isTTY: false, heldBehind: halted },
    );
    expect(lines).toEqual([
      "ApplicationSet: guestbook (namespace argocd)",
      "Run:            guestbook-7f9c2 (policy careful)",
      "Phase:          Paused",
      "Started:        2026-12-06T10:10:00Z",
      "Elapsed:        2m0s",
      "Current step:   1 of 1",
      "Held behind:    guestbook-1a2b3 (Halted, FailureBudgetExceeded at step 1); resume to roll this run out",
      "  1 failed, budget 0: ui-1: sync Failed at 9b8c7d6",
      "  Rolled back at 2026-12-06T10:05:01Z:",
      "    ui-1: 9b8c7d6 -> 3f2a1c9",
      "Steps:",
      "  Step 1  Waiting",
      "      paused",
    ]);
  });

  it("shows a run the controller has not written a status for", () => {
    expect(renderStatus(run(undefined, { policy: undefined }), { now: NOW, isTTY: true })).toEqual([
      "ApplicationSet: guestbook (namespace argocd)",
      "Run:            guestbook-7f9c2",
      "Phase:          Pending (no status yet)",
      "Steps: none yet",
    ]);
  });
});

describe("requestLines", () => {
  it("shows only the newest requests, numbered by their place in spec.requests", () => {
    const requests = Array.from({ length: 7 }, (_, i) => ({ action: "pause" as const, by: `u${String(i)}`, at: "t" }));
    const r = run({ observedRequests: 7, requests: [{ index: 6, applied: true }] }, { requests });
    expect(requestLines(r, 2)).toEqual(["Requests (last 2 of 7):", "  #5 pause by u5 at t: seen", "  #6 pause by u6 at t: applied"]);
  });
});

describe("progressBar and seconds", () => {
  it.each([
    [0, 0, "[--------------------] 0/0"],
    [1, 3, "[######--------------] 1/3"],
    [3, 3, "[####################] 3/3"],
    [5, 3, "[####################] 5/3"],
  ])("%i of %i: %s", (ready, total, bar) => {
    expect(progressBar(ready, total)).toBe(bar);
  });
  it.each([
    [0, "0s"],
    [1_499, "1s"],
    [61_000, "1m1s"],
    [3_600_000, "1h0m0s"],
    [-5_000, "0s"],
  ])("%i ms: %s", (ms, text) => {
    expect(seconds(ms)).toBe(text);
  });
});
