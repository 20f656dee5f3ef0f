/** The differential harness's pure parts: normalising observations and judging differences. */
import { describe, expect, it } from "vitest";
import { differences, verdict, type Deviation } from "../../differential/support/compare.js";
import { normaliseStrings, observe, timelineEntry } from "../../differential/support/observe.js";

describe("differences", () => {
  it.each([
    { name: "equal values", a: { x: [1, { y: "z" }] }, b: { x: [1, { y: "z" }] }, want: [] },
    { name: "a changed leaf", a: { x: { y: 1 } }, b: { x: { y: 2 } }, want: [{ path: "x.y", argo: 1, ours: 2 }] },
    { name: "a key on one side", a: { x: 1 }, b: {}, want: [{ path: "x", argo: 1, ours: undefined }] },
    { name: "lists of another length, whole", a: { l: [1, 2] }, b: { l: [1] }, want: [{ path: "l", argo: [1, 2], ours: [1] }] },
    { name: "list items by index", a: { l: [{ m: "a" }] }, b: { l: [{ m: "b" }] }, want: [{ path: "l[0].m", argo: "a", ours: "b" }] },
  ])("$name", ({ a, b, want }) => {
    expect(differences(a as never, b as never)).toEqual(want);
  });
});

describe("verdict", () => {
  const dev: Deviation = { id: "words", reason: "r", doc: "docs/differential.md", cases: ["c"], paths: ["obs[*].message"] };
  const diff = { path: "obs[0].message", argo: "a", ours: "b" };
  it.each([
    { name: "no differences", c: "c", diffs: [], devs: [], want: { kind: "identical" } },
    { name: "covered by a deviation of the case", c: "c", diffs: [diff], devs: [dev], want: { kind: "deviation", ids: ["words"] } },
    {
      name: "a deviation of another case does not cover",
      c: "d",
      diffs: [diff],
      devs: [dev],
      want: { kind: "different", unexplained: [diff] },
    },
    {
      name: "a path the deviation does not name",
      c: "c",
      diffs: [{ ...diff, path: "obs[0].other" }],
      devs: [dev],
      want: { kind: "different" },
    },
    { name: "a deviation that covers nothing of its case", c: "c", diffs: [], devs: [dev], want: { kind: "different" } },
    {
      name: "a race deviation that covers nothing this time",
      c: "c",
      diffs: [],
      devs: [{ ...dev, sometimes: true }],
      want: { kind: "identical" },
    },
  ])("$name", ({ c, diffs, devs, want }) => {
    expect(verdict(c, diffs, devs)).toMatchObject(want);
  });
});

describe("observe", () => {
  it("writes the namespace as $NS and times as <time>, and keeps only what a user sees", () => {
    const app = {
      metadata: {
        name: "a",
        namespace: "df-1-argo",
        uid: "u",
        resourceVersion: "9",
        creationTimestamp: "2026-12-02T00:00:00Z",
        labels: { l: "1" },
        ownerReferences: [{ kind: "ApplicationSet", name: "s", uid: "u2" }],
        deletionTimestamp: "2026-12-02T00:00:01Z",
      },
      spec: { destination: { namespace: "df-1-argo" } },
    };
    const set = {
      metadata: { name: "s" },
      spec: { x: 1 },
      status: { conditions: [{ type: "T", status: "True", reason: "R", message: "m", lastTransitionTime: "2026-12-02T00:00:00Z" }] },
    };
    const ev = {
      type: "Normal",
      reason: "created",
      involvedObject: { kind: "ApplicationSet", name: "s" },
      message: 'created Application "a"',
    };
    expect(observe("df-1-argo", [app], [set], [ev, ev])).toEqual({
      applications: {
        a: {
          metadata: { labels: { l: "1" }, ownerReferences: [{ kind: "ApplicationSet", name: "s" }], deleting: true },
          spec: { destination: { namespace: "$NS" } },
        },
      },
      applicationSets: { s: { metadata: {}, status: { conditions: [{ type: "T", status: "True", reason: "R", message: "m" }] } } },
      events: ['Normal created ApplicationSet/s: created Application "a"'],
    });
  });

  it("observes the SpecWarning condition apart from Argo CD's conditions", () => {
    const cond = (type: string) => ({ type, status: "True", reason: "R", message: "m", lastTransitionTime: "2026-12-02T00:00:00Z" });
    const set = { metadata: { name: "s" }, status: { conditions: [cond("ErrorOccurred"), cond("SpecWarning")] } };
    expect(observe("df-9-ours", [], [set], []).applicationSets).toEqual({
      s: {
        metadata: {},
        status: { conditions: [{ type: "ErrorOccurred", status: "True", reason: "R", message: "m" }] },
        specWarning: { type: "SpecWarning", status: "True", reason: "R", message: "m" },
      },
    });
  });

  it("normalises keys as well as values", () => {
    expect(normaliseStrings({ "df-x": ["df-x/a", "2026-01-01T00:00:00.123Z"] }, "df-x")).toEqual({ $NS: ["$NS/a", "<time>"] });
  });
});

describe("timelineEntry", () => {
  const app = (extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({ metadata: { name: "a", ...meta }, ...extra });
  it.each([
    { name: "a create", type: "ADDED" as const, prev: undefined, cur: app(), want: "create a" },
    {
      name: "an operation written",
      type: "MODIFIED" as const,
      prev: app(),
      cur: app({ operation: { sync: { revision: "r1" } } }),
      want: 'sync a "r1"',
    },
    { name: "a deletion requested", type: "MODIFIED" as const, prev: app(), cur: app({}, { deletionTimestamp: "t" }), want: "delete a" },
    { name: "gone", type: "DELETED" as const, prev: app(), cur: app(), want: "gone a" },
    { name: "another change", type: "MODIFIED" as const, prev: app(), cur: app({ status: {} }), want: undefined },
  ])("$name", ({ type, prev, cur, want }) => {
    expect(timelineEntry(type, prev as never, cur as never)).toEqual(want);
  });
});
