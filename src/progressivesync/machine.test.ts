import { describe, expect, it } from "vitest";
import { AppStatusMessage as M } from "../api/index.js";
import { entry, observed, ts, at } from "../../test/unit/progressivesync/builders.js";
import { promote, statusRank, transition } from "./machine.js";

const NOW = at(100);

describe("transition: the rows of the status table", () => {
  it.each([
    // name; the entry before the pass (undefined = none); what the application controller reports; expected status and message
    {
      name: "Waiting with a Synced and Healthy Application becomes Healthy",
      before: entry("app", "Waiting"),
      obs: observed({ syncStatus: "Synced", healthStatus: "Healthy" }),
      status: "Healthy",
      message: M.WaitingToHealthy,
    },
    {
      name: "Waiting with a Synced but Progressing Application becomes Progressing",
      before: entry("app", "Waiting"),
      obs: observed({ syncStatus: "Synced", healthStatus: "Progressing" }),
      status: "Progressing",
      message: M.WaitingToProgressing,
    },
    {
      name: "Waiting with an OutOfSync Application stays Waiting",
      before: entry("app", "Waiting", { message: "kept" }),
      obs: observed({ syncStatus: "OutOfSync" }),
      status: "Waiting",
      message: "kept",
    },
    {
      name: "Pending with a succeeded operation started after the promotion becomes Progressing",
      before: entry("app", "Pending", { lastTransitionTime: ts(10) }),
      obs: observed({ reconciledAt: at(20), operation: { phase: "Succeeded", startedAt: at(15) } }),
      status: "Progressing",
      message: M.PendingSyncSucceeded,
    },
    {
      name: "Pending with a failed operation becomes Progressing",
      before: entry("app", "Pending", { lastTransitionTime: ts(10) }),
      obs: observed({ reconciledAt: at(20), operation: { phase: "Failed", startedAt: at(15) } }),
      status: "Progressing",
      message: M.PendingSyncCompleted,
    },
    {
      name: "Pending with an errored operation becomes Progressing",
      before: entry("app", "Pending", { lastTransitionTime: ts(10) }),
      obs: observed({ reconciledAt: at(20), operation: { phase: "Error", startedAt: at(15) } }),
      status: "Progressing",
      message: M.PendingSyncCompleted,
    },
    {
      name: "Pending with a running operation becomes Progressing",
      before: entry("app", "Pending", { lastTransitionTime: ts(10) }),
      obs: observed({ reconciledAt: at(20), operation: { phase: "Running", startedAt: at(15) } }),
      status: "Progressing",
      message: M.PendingBecameProgressing,
    },
    {
      name: "Pending with a terminating operation becomes Progressing",
      before: entry("app", "Pending", { lastTransitionTime: ts(10) }),
      obs: observed({ reconciledAt: at(20), operation: { phase: "Terminating", startedAt: at(15) } }),
      status: "Progressing",
      message: M.PendingBecameProgressing,
    },
    {
      name: "Pending with a never-reconciled Application and a new operation becomes Progressing",
      before: entry("app", "Pending", { lastTransitionTime: ts(10) }),
      obs: observed({ reconciledAt: undefined, operation: { phase: "Succeeded", startedAt: at(15) } }),
      status: "Progressing",
      message: M.PendingSyncSucceeded,
    },
    {
      name: "Pending whose operation started before the promotion stays Pending",
      before: entry("app", "Pending", { lastTransitionTime: ts(10), message: "kept" }),
      obs: observed({ reconciledAt: at(20), operation: { phase: "Succeeded", startedAt: at(5) } }),
      status: "Pending",
      message: "kept",
    },
    {
      name: "Pending whose sync ran before the next refresh becomes Progressing (no second sync; Argo CD keeps it Pending)",
      before: entry("app", "Pending", { lastTransitionTime: ts(10), message: "kept" }),
      obs: observed({ reconciledAt: at(5), operation: { phase: "Succeeded", startedAt: at(15) } }),
      status: "Progressing",
      message: M.PendingSyncSucceeded,
    },
    {
      name: "Pending with an operation started in the second of the promotion becomes Progressing (>= on whole seconds)",
      before: entry("app", "Pending", { lastTransitionTime: ts(10) }),
      obs: observed({ reconciledAt: at(10.4), operation: { phase: "Running", startedAt: at(10.2) } }),
      status: "Progressing",
      message: M.PendingBecameProgressing,
    },
    {
      name: "Pending with an InvalidSpecError and no operation becomes Progressing",
      before: entry("app", "Pending", { lastTransitionTime: ts(10) }),
      obs: observed({ reconciledAt: at(20), hasErrorCondition: true }),
      status: "Progressing",
      message: M.PendingHasError,
    },
    {
      name: "Pending with an error condition but reconciled before the promotion stays Pending",
      before: entry("app", "Pending", { lastTransitionTime: ts(10), message: "kept" }),
      obs: observed({ reconciledAt: at(5), hasErrorCondition: true }),
      status: "Pending",
      message: "kept",
    },
    {
      name: "Pending without operation or error stays Pending",
      before: entry("app", "Pending", { lastTransitionTime: ts(10), message: "kept" }),
      obs: observed({ reconciledAt: at(20) }),
      status: "Pending",
      message: "kept",
    },
    {
      name: "Progressing with a Healthy and Synced Application becomes Healthy",
      before: entry("app", "Progressing"),
      obs: observed({ syncStatus: "Synced", healthStatus: "Healthy" }),
      status: "Healthy",
      message: M.ProgressingToHealthy,
    },
    {
      name: "Progressing with a Synced but Degraded Application stays Progressing",
      before: entry("app", "Progressing", { message: "kept" }),
      obs: observed({ syncStatus: "Synced", healthStatus: "Degraded" }),
      status: "Progressing",
      message: "kept",
    },
    {
      name: "Healthy stays Healthy when the Application goes OutOfSync on the same revision",
      before: entry("app", "Healthy", { message: "kept" }),
      obs: observed({ syncStatus: "OutOfSync", healthStatus: "Degraded" }),
      status: "Healthy",
      message: "kept",
    },
    {
      name: "no entry yet defaults to Waiting",
      before: undefined,
      obs: observed({ syncStatus: "OutOfSync" }),
      status: "Waiting",
      message: M.Defaulted,
    },
    {
      name: "no entry yet with a Synced and Healthy Application becomes Healthy in the same pass",
      before: undefined,
      obs: observed({ syncStatus: "Synced", healthStatus: "Healthy" }),
      status: "Healthy",
      message: M.WaitingToHealthy,
    },
  ])("$name", ({ before, obs, status, message }) => {
    const res = transition(before, obs, { step: "1" }, NOW);
    expect(res.next.status).toBe(status);
    expect(res.next.message).toBe(message);
    const movedNow = before === undefined || status !== before.status;
    expect(res.next.lastTransitionTime).toBe(movedNow ? ts(100) : before.lastTransitionTime);
    expect(res.message).toBe(movedNow ? message : undefined);
  });
});

describe("transition: resets on a revision or spec change", () => {
  it.each([
    // name; status before; what changed; expected message
    {
      name: "a new revision resets Healthy to Waiting",
      from: "Healthy",
      revisions: ["r2"],
      specChanged: false,
      message: M.PendingChangesRevision,
      reset: "revision",
    },
    {
      name: "a new revision resets Progressing to Waiting",
      from: "Progressing",
      revisions: ["r2"],
      specChanged: false,
      message: M.PendingChangesRevision,
      reset: "revision",
    },
    {
      name: "a new revision resets Pending to Waiting",
      from: "Pending",
      revisions: ["r2"],
      specChanged: false,
      message: M.PendingChangesRevision,
      reset: "revision",
    },
    {
      name: "a spec change resets Healthy to Waiting",
      from: "Healthy",
      revisions: ["r1"],
      specChanged: true,
      message: M.PendingChangesSpec,
      reset: "spec",
    },
    {
      name: "both changes reset with the combined message",
      from: "Healthy",
      revisions: ["r2"],
      specChanged: true,
      message: M.PendingChangesBoth,
      reset: "both",
    },
  ])("$name", ({ from, revisions, specChanged, message, reset }) => {
    const res = transition(entry("app", from), observed({ revisions, specChanged, syncStatus: "OutOfSync" }), { step: "2" }, NOW);
    expect(res.next).toMatchObject({ status: "Waiting", message, targetRevisions: revisions, lastTransitionTime: ts(100), step: "2" });
    expect(res.reset).toBe(reset);
  });

  it("a reset Application already Synced and Healthy on the new revision becomes Healthy in the same pass", () => {
    const res = transition(entry("app", "Healthy"), observed({ revisions: ["r2"], syncStatus: "Synced" }), { step: "1" }, NOW);
    expect(res.next).toMatchObject({ status: "Healthy", message: M.WaitingToHealthy, targetRevisions: ["r2"] });
    expect(res.reset).toBe("revision");
  });

  it("a spec change never lets the stale Synced and Healthy status count in the same pass", () => {
    const res = transition(entry("app", "Healthy"), observed({ specChanged: true, syncStatus: "Synced" }), { step: "1" }, NOW);
    expect(res.next).toMatchObject({ status: "Waiting", message: M.PendingChangesSpec });
  });

  it.each([
    // name; the status before the pass
    { name: "Waiting", from: "Waiting" },
    { name: "Progressing", from: "Progressing" },
  ])("$name does not move on a Synced and Healthy status its controller has not compared for the current spec", ({ from }) => {
    const res = transition(
      entry("app", from, { message: "kept" }),
      observed({ reconciled: false, syncStatus: "Synced" }),
      { step: "1" },
      NOW,
    );
    expect(res.next).toMatchObject({ status: from, message: "kept" });
  });

  it.each([
    // name; the status before the pass; whether the spec changed too; expected status, message and reset
    { name: "Pending stays Pending", from: "Pending", specChanged: false, status: "Pending", message: "kept", reset: undefined },
    { name: "Healthy stays Healthy", from: "Healthy", specChanged: false, status: "Healthy", message: "kept", reset: undefined },
    {
      name: "a spec change still resets",
      from: "Pending",
      specChanged: true,
      status: "Waiting",
      message: M.PendingChangesSpec,
      reset: "spec",
    },
  ])(
    "a comparison that failed (sync Unknown) reports the revision asked for, not one resolved: $name, the pinned revisions kept",
    ({ from, specChanged, status, message, reset }) => {
      const before = entry("app", from, { message: "kept", targetRevisions: ["abc123"], lastTransitionTime: ts(10) });
      const res = transition(before, observed({ revisions: ["main"], specChanged, syncStatus: "Unknown" }), { step: "1" }, NOW);
      expect(res.next).toMatchObject({ status, message, targetRevisions: ["abc123"] });
      expect(res.reset).toBe(reset);
      if (reset === undefined) expect(res.next.lastTransitionTime).toBe(ts(10));
    },
  );

  it("a missing targetRevisions is read as an empty list", () => {
    const res = transition(entry("app", "Healthy", { targetRevisions: undefined }), observed({ revisions: [] }), { step: "1" }, NOW);
    expect(res.next).toMatchObject({ status: "Healthy", targetRevisions: [] });
  });

  it("recomputes the step without moving the status", () => {
    const res = transition(entry("app", "Healthy", { step: "1" }), observed(), { step: "-1" }, NOW);
    expect(res.next).toMatchObject({ status: "Healthy", step: "-1", lastTransitionTime: ts(0) });
  });
});

describe("promote and statusRank", () => {
  it("promote moves Waiting to Pending with the verbatim message and now, keeping the pinned revisions", () => {
    expect(promote(entry("app", "Waiting", { targetRevisions: ["abc"] }), NOW)).toEqual({
      application: "app",
      status: "Pending",
      message: M.MovedToPending,
      step: "1",
      targetRevisions: ["abc"],
      lastTransitionTime: ts(100),
    });
  });

  it("statusRank orders the forward path", () => {
    expect(["Waiting", "Pending", "Progressing", "Healthy", "bogus"].map(statusRank)).toEqual([0, 1, 2, 3, 0]);
  });
});
