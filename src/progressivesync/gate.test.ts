import { describe, expect, it } from "vitest";
import { AppStatusMessage as M } from "../api/index.js";
import { at, entry, observed, ts } from "../../test/unit/progressivesync/builders.js";
import { pendingChangeAnchor, reconcileGate } from "./gate.js";

const GRACE = 30_000;

describe("pendingChangeAnchor", () => {
  it("is the newest Waiting entry reset by a revision or spec change, ignoring new and moved entries", () => {
    const entries = [
      entry("a", "Waiting", { message: M.PendingChangesRevision, lastTransitionTime: ts(10) }),
      entry("b", "Waiting", { message: M.PendingChangesSpec, lastTransitionTime: ts(20) }),
      entry("c", "Waiting", { message: M.Defaulted, lastTransitionTime: ts(90) }),
      entry("d", "Pending", { message: M.MovedToPending, lastTransitionTime: ts(95) }),
    ];
    expect(pendingChangeAnchor(entries)).toBe(at(20));
    expect(pendingChangeAnchor([entry("c", "Waiting", { message: M.Defaulted })])).toBeUndefined();
  });
});

describe("reconcileGate (reconciled before progressing)", () => {
  const changed = entry("x", "Waiting", { message: M.PendingChangesRevision, lastTransitionTime: ts(100), targetRevisions: ["r2"] });
  it.each([
    // name; entries after Phase A; observed Applications; now (s); expected open, lagging, refresh, requeue (ms)
    {
      name: "no change pending and every Application compared its spec: open",
      entries: [entry("a", "Healthy")],
      obs: [observed({ name: "a" })],
      now: 200,
      open: true,
      lagging: [],
      refresh: [],
      requeue: undefined,
    },
    {
      name: "an Application reconciled before the latest change lags, within the grace period: wait for the rest of it",
      entries: [changed],
      obs: [observed({ name: "a", reconciledAt: at(50) }), observed({ name: "x", reconciledAt: at(100), revisions: ["r2"] })],
      now: 110,
      open: false,
      lagging: ["a"],
      refresh: [],
      requeue: 20_000,
    },
    {
      name: "after the grace period the lagging Application is refreshed",
      entries: [changed],
      obs: [observed({ name: "a", reconciledAt: at(50) }), observed({ name: "x", reconciledAt: at(100), revisions: ["r2"] })],
      now: 130,
      open: false,
      lagging: ["a"],
      refresh: ["a"],
      requeue: GRACE,
    },
    {
      name: "a refresh already requested is not requested again",
      entries: [changed],
      obs: [observed({ name: "a", reconciledAt: at(50), refreshRequested: true })],
      now: 200,
      open: false,
      lagging: ["a"],
      refresh: [],
      requeue: GRACE,
    },
    {
      name: "an Application reconciled before the change that already reports its revisions has seen it: open",
      entries: [changed],
      obs: [
        observed({ name: "a", reconciledAt: at(50), revisions: ["r2"] }),
        observed({ name: "x", reconciledAt: at(99), revisions: ["r2"] }),
      ],
      now: 101,
      open: true,
      lagging: [],
      refresh: [],
      requeue: undefined,
    },
    {
      name: "a change of no known revision is seen only by reconciling after it",
      entries: [entry("x", "Waiting", { message: M.PendingChangesSpec, lastTransitionTime: ts(100), targetRevisions: [] })],
      obs: [observed({ name: "a", reconciledAt: at(50), revisions: [] })],
      now: 101,
      open: false,
      lagging: ["a"],
      refresh: [],
      requeue: 29_000,
    },
    {
      name: "reconciled in the same second as the change, without its revisions, may have been before it: refreshed at once",
      entries: [changed],
      obs: [observed({ name: "a", reconciledAt: at(100.7) }), observed({ name: "x", reconciledAt: at(100), revisions: ["r2"] })],
      now: 101,
      open: false,
      lagging: ["a"],
      refresh: ["a"],
      requeue: GRACE,
    },
    {
      name: "reconciled in the same second as the change and reporting its revisions has seen it: open",
      entries: [changed],
      obs: [
        observed({ name: "a", reconciledAt: at(100.7), revisions: ["r2"] }),
        observed({ name: "x", reconciledAt: at(100), revisions: ["r2"] }),
      ],
      now: 101,
      open: true,
      lagging: [],
      refresh: [],
      requeue: undefined,
    },
    {
      name: "reconciled in a later second than the change has seen it: open",
      entries: [changed],
      obs: [observed({ name: "a", reconciledAt: at(101) }), observed({ name: "x", reconciledAt: at(101), revisions: ["r2"] })],
      now: 102,
      open: true,
      lagging: [],
      refresh: [],
      requeue: undefined,
    },
    {
      name: "an Application whose controller has not compared its new spec lags, graced from its entry's time",
      entries: [entry("a", "Waiting", { message: M.Defaulted, lastTransitionTime: ts(100) })],
      obs: [observed({ name: "a", reconciled: false })],
      now: 140,
      open: false,
      lagging: ["a"],
      refresh: ["a"],
      requeue: GRACE,
    },
    {
      name: "terminating Applications and Applications with an error condition are exempt",
      entries: [changed],
      obs: [
        observed({ name: "a", reconciledAt: at(1), terminating: true }),
        observed({ name: "b", reconciled: false, hasErrorCondition: true }),
      ],
      now: 200,
      open: true,
      lagging: [],
      refresh: [],
      requeue: undefined,
    },
  ])("$name", ({ entries, obs, now, open, lagging, refresh, requeue }) => {
    const gate = reconcileGate({ entries, observed: obs, now: at(now), refreshGracePeriodMs: GRACE });
    expect(gate).toMatchObject({ open, lagging, refresh, requeueAfterMs: requeue });
  });

  it("a zero grace period refreshes at once", () => {
    const gate = reconcileGate({
      entries: [changed],
      observed: [observed({ name: "a", reconciledAt: at(5) })],
      now: at(100),
      refreshGracePeriodMs: 0,
    });
    expect(gate.refresh).toEqual(["a"]);
  });
});
