import { beforeEach, describe, expect, it } from "vitest";
import type { AppEvent, RolloutRecorder, SetEvent } from "../../e2e/support/rollout-recorder.js";
import { reverseDeletionViolations, rolloutViolations } from "../../chaos/support/invariants.js";

// The chaos suite's invariants over hand-written recordings: each must name what broke.

let seq = 0;
beforeEach(() => {
  seq = 0;
});
function app(name: string, env: string, over: Partial<AppEvent> = {}): AppEvent {
  seq++;
  return {
    t: seq,
    seq,
    name,
    env,
    sync: "Synced",
    health: "Healthy",
    revision: "r1",
    operation: undefined,
    opPhase: undefined,
    opStartedAt: undefined,
    opRevision: undefined,
    deleting: false,
    gone: false,
    ...over,
  };
}
const recording = (apps: AppEvent[], sets: SetEvent[] = []) => ({ apps, sets }) as unknown as RolloutRecorder;
const op = (revision: string) => ({ by: "applicationset-controller", revision });

describe("rolloutViolations", () => {
  it("passes a clean rollout", () => {
    const rec = recording([
      app("dev-guestbook", "env-dev"),
      app("prod-guestbook", "env-prod", { operation: op("r1") }),
      app("prod-guestbook", "env-prod", { opStartedAt: "t1", opRevision: "r1" }),
    ]);
    expect(rolloutViolations(rec, { maxProdUpdating: 1 })).toEqual([]);
  });

  it("names a second sync of one revision, a second operation, a deletion while generated and an out-of-order sync", () => {
    const rec = recording([
      app("dev-guestbook", "env-dev", { sync: "OutOfSync", revision: "r0" }),
      app("prod-guestbook", "env-prod", { operation: op("r1") }),
      app("prod-guestbook", "env-prod", { opStartedAt: "t1", opRevision: "r1" }),
      app("prod-guestbook", "env-prod", { operation: undefined, opStartedAt: "t1", opRevision: "r1" }),
      app("prod-guestbook", "env-prod", { operation: op("r1"), opStartedAt: "t2", opRevision: "r1" }),
      app("dev-guestbook", "env-dev", { deleting: true }),
    ]);
    const got = rolloutViolations(rec, { maxProdUpdating: 1 });
    expect(got).toEqual([
      "prod-guestbook@r1 was synced 2 times",
      "the controller wrote the operation prod-guestbook@r1 2 times",
      "prod-guestbook synced to r1 before dev-guestbook Healthy at it",
      "prod-guestbook synced to r1 before dev-guestbook Healthy at it",
      "dev-guestbook was marked for deletion while generated (event 6)",
    ]);
  });

  it("names a maxUpdate breach", () => {
    const entries: SetEvent["entries"] = [
      ["engineering-prod-1-guestbook", "3", "Pending", ""],
      ["engineering-prod-2-guestbook", "3", "Progressing", ""],
    ];
    const set: SetEvent = { t: 1, seq: 1, name: "guestbook", entries, progressing: undefined, finalizers: [], gone: false };
    expect(rolloutViolations(recording([], [set]), { maxProdUpdating: 1 })).toEqual([
      "2 prod Applications were updating at once (maxUpdate allows 1)",
    ]);
  });
});

describe("reverseDeletionViolations", () => {
  it("passes prod, then qa, then dev", () => {
    const rec = recording([
      app("p", "env-prod", { deleting: true }),
      app("p", "env-prod", { gone: true }),
      app("q", "env-qa", { deleting: true }),
      app("q", "env-qa", { gone: true }),
      app("d", "env-dev", { deleting: true }),
    ]);
    expect(reverseDeletionViolations(rec)).toEqual([]);
  });

  it("names an Application deleted before a later step was gone", () => {
    const rec = recording([
      app("p", "env-prod", { deleting: true }),
      app("d", "env-dev", { deleting: true }),
      app("p", "env-prod", { gone: true }),
    ]);
    expect(reverseDeletionViolations(rec)).toEqual(["d was marked for deletion before p (a later step) was gone"]);
  });
});
