import { describe, expect, it } from "vitest";
import { at, envStep, live, rollingAppSet } from "../../test/unit/progressivesync/builders.js";
import { needsFinalizer, nextReverseDeletion, reverseDeletionOrder, ReverseDeletionError } from "./reverse-deletion.js";
import { deletionReversed } from "./strategy.js";

const steps = [envStep(["dev"]), envStep(["qa"]), envStep(["prod"])];
const appSet = rollingAppSet(steps, { deletionOrder: "Reverse" });
const apps = (o: Record<string, { deletedAt?: number }> = {}) =>
  [
    ["dev-a", "dev"],
    ["qa-a", "qa"],
    ["prod-b", "prod"],
    ["prod-a", "prod"],
    ["other", "staging"],
  ].map(([n, env]) => live(n!, { labels: { env: env! }, ...o[n!] }));

describe("reverse deletion", () => {
  it("orders Applications last step first, by name within a step, leaving unassigned ones out", () => {
    expect(reverseDeletionOrder(appSet, apps())).toEqual(["prod-a", "prod-b", "qa-a", "dev-a"]);
  });

  it.each([
    // name; the cached Applications; seconds since T0; expected step
    {
      name: "deletes the first Application of the last step",
      current: apps(),
      now: 0,
      step: { kind: "delete", application: "prod-a", requeueAfterMs: 10_000 },
    },
    {
      name: "waits while it is terminating",
      current: apps({ "prod-a": { deletedAt: 0 } }),
      now: 60,
      step: { kind: "wait", application: "prod-a", requeueAfterMs: 10_000 },
    },
    {
      name: "waits at exactly two minutes",
      current: apps({ "prod-a": { deletedAt: 0 } }),
      now: 120,
      step: { kind: "wait", application: "prod-a", requeueAfterMs: 10_000 },
    },
    {
      name: "asks the API server after two minutes, with the UID for the eviction precondition",
      current: apps({ "prod-a": { deletedAt: 0 } }),
      now: 121,
      step: { kind: "verifyLive", application: "prod-a", uid: "uid-prod-a" },
    },
    {
      name: "moves on once an Application is gone from the cache",
      current: apps().filter((a) => a.metadata.name !== "prod-a"),
      now: 0,
      step: { kind: "delete", application: "prod-b", requeueAfterMs: 10_000 },
    },
    {
      name: "is done when only unassigned Applications are left",
      current: apps().filter((a) => a.metadata.name === "other"),
      now: 0,
      step: { kind: "done" },
    },
  ])("$name", ({ current, now, step }) => {
    expect(nextReverseDeletion({ appSet, current, now: at(now) })).toEqual(step);
  });

  it.each([
    // name; ApplicationSet; progressive syncs enabled; expected
    { name: "Reverse with steps and the flag on needs the finalizer", a: appSet, on: true, out: true },
    { name: "the flag off does not add it", a: appSet, on: false, out: false },
    {
      name: "an existing finalizer is enough",
      a: rollingAppSet(steps, { deletionOrder: "Reverse", finalizers: ["resources-finalizer.argocd.argoproj.io"] }),
      on: true,
      out: false,
    },
    { name: "AllAtOnce deletion does not need it", a: rollingAppSet(steps, { deletionOrder: "AllAtOnce" }), on: true, out: false },
    { name: "Reverse without steps does not need it", a: rollingAppSet([], { deletionOrder: "Reverse" }), on: true, out: false },
  ])("needsFinalizer: $name", ({ a, on, out }) => {
    expect(needsFinalizer(a, on)).toBe(out);
  });

  it("compares deletionOrder ignoring case", () => {
    expect(deletionReversed(rollingAppSet(steps, { deletionOrder: "reVERSE" }))).toBe(true);
  });

  it("spells the error messages as Argo CD does", () => {
    expect(ReverseDeletionError.notVerified("a", "boom")).toBe(
      "application a has not been deleted in over 2m0s and could not be verified against the API server: boom",
    );
    expect(ReverseDeletionError.stillCached("a")).toBe("stale cache entry for application a is still present after eviction");
  });
});
