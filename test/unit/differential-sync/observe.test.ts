import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normaliseText, orderWithinSlots, refreshed, timeline, writesOf, type Context } from "../../differential-sync/support/observe.js";

const ctx: Context = {
  ns: "ds-1-argo",
  repo: "/tmp/appset-repo-Ab12Cd",
  commits: ["a".repeat(40), "b".repeat(40)],
  generated: ["post-"],
  slot: (n) => (n.startsWith("Job/") ? "PostSync@0" : "sync@0"),
};

describe("normaliseText", () => {
  it.each([
    ["configmap/a created in ds-1-argo", "configmap/a created in $NS"],
    [`revision ${"b".repeat(40)} (${"a".repeat(7)})`, "revision c1 (c0)"],
    ["job.batch/post-x7k2q created", "job.batch/post-* created"],
    ["Retrying attempt #1 at 7:01AM: failed", "Retrying attempt #1 at <clock>: failed"],
    ["started 2026-12-03T07:00:01Z, waited 12s", "started <time>, waited <duration>"],
    ['error when patching "/dev/shm/3074521690": ConfigMap "x" is invalid', 'ConfigMap "x" is invalid'],
    ["source 1 of 1: rpc error: code = Unknown desc = app: app path does not exist", "source 1 of 1: app: app path does not exist"],
    ['resource mapping not found for name: "w" from "/dev/shm/12": no matches', 'resource mapping not found for name: "w": no matches'],
    [
      "application repo file:///tmp/appset-repo-Ab12Cd is not permitted in project 'p'",
      "application repo file://$REPO is not permitted in project 'p'",
    ],
    ["application repo file:///tmp/appset-repo-ab12cd is not permitted", "application repo file://$REPO is not permitted"],
  ])("%s", (raw, want) => expect(normaliseText(raw, ctx)).toBe(want));
});

describe("refreshed", () => {
  it.each([
    ["compared", { status: { reconciledAt: "2026-12-06T06:00:00Z" } }, true],
    ["never looked at", {}, false],
    ["stopped by its project", { status: { sync: { status: "Unknown" }, conditions: [{ type: "InvalidSpecError", message: "m" }] } }, true],
    [
      "an UnknownError from its project",
      { status: { sync: { status: "Unknown" }, conditions: [{ type: "UnknownError", message: "m" }] } },
      true,
    ],
    ["a warning only", { status: { sync: { status: "Unknown" }, conditions: [{ type: "SyncError", message: "m" }] } }, false],
  ])("%s", (_, app, want) => expect(refreshed(app)).toBe(want));
});

describe("orderWithinSlots", () => {
  it("orders neighbours of one slot by name and keeps each name's own order", () => {
    const items = [
      ["w0", "b", 1],
      ["w0", "a", 2],
      ["w0", "b", 3],
      ["w1", "a", 4],
      ["w0", "c", 5],
    ] as const;
    expect(
      orderWithinSlots(
        items,
        (i) => i[0],
        (i) => i[1],
      ).map((i) => i[2]),
    ).toEqual([2, 1, 3, 4, 5]);
  });

  it("is a permutation that keeps the sequence of slots", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom("s1", "s2"), fc.constantFrom("a", "b", "c"))), (items) => {
        const out = orderWithinSlots(
          items,
          (i) => i[0],
          (i) => i[1],
        );
        expect([...out].sort()).toEqual([...items].sort());
        expect(out.map((i) => i[0])).toEqual(items.map((i) => i[0]));
      }),
    );
  });
});

describe("writesOf and timeline", () => {
  const job = (rv: number, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
    kind: "Job",
    metadata: { name: "post-abcde", resourceVersion: String(rv), ...meta },
    spec: { x: 1 },
    ...extra,
  });

  it("records creation with finalizers, a content change, deletion started and done; not status or own annotations", () => {
    const a = job(1, {}, { finalizers: ["argocd.argoproj.io/hook-finalizer"] });
    const b = job(
      2,
      { status: { active: 1 } },
      { finalizers: ["argocd.argoproj.io/hook-finalizer"], annotations: { "argocd.argoproj.io/tracking-id": "x" } },
    );
    const c = job(3, { spec: { x: 2 } }, { finalizers: [] });
    const d = job(4, { spec: { x: 2 } }, { deletionTimestamp: "now" });
    const writes = [
      ...writesOf("ADDED", undefined, a, ctx),
      ...writesOf("MODIFIED", a, b, ctx),
      ...writesOf("MODIFIED", b, c, ctx),
      ...writesOf("MODIFIED", c, d, ctx),
      ...writesOf("DELETED", d, d, ctx),
    ];
    expect(timeline(writes)).toEqual([
      "ADDED Job/post-*",
      'FINALIZERS Job/post-* ["argocd.argoproj.io/hook-finalizer"]',
      "CHANGED Job/post-*",
      "FINALIZERS Job/post-* []",
      "DELETING Job/post-*",
      "DELETED Job/post-*",
    ]);
  });
});
