import { describe, expect, it } from "vitest";
import { AppStatusMessage } from "../api/index.js";
import { at, entry, envStep, ts } from "../../test/unit/progressivesync/builders.js";
import { eligibleApps, progressingCondition, promoteWaiting, stepCounts, syncOperation } from "./promotion.js";
import { assignSteps } from "./steps.js";

const steps = [envStep(["dev"]), envStep(["qa"]), envStep(["prod"])];
const assignment = assignSteps(steps, [
  { name: "dev-1", labels: { env: "dev" } },
  { name: "dev-2", labels: { env: "dev" } },
  { name: "qa-1", labels: { env: "qa" } },
  { name: "prod-1", labels: { env: "prod" } },
]);
const all = new Set(["dev-1", "dev-2", "qa-1", "prod-1"]);
const statuses = (s: Record<string, string | undefined>) =>
  new Map(Object.entries(s).flatMap(([n, st]) => (st === undefined ? [] : [[n, entry(n, st)] as const])));

describe("eligibleApps (wave gating)", () => {
  it.each([
    // name; entry statuses; existing Applications; expected eligible names
    { name: "step 1 is always eligible", s: { "dev-1": "Waiting", "dev-2": "Healthy" }, existing: all, out: ["dev-1", "dev-2"] },
    {
      name: "a Healthy step unblocks the next",
      s: { "dev-1": "Healthy", "dev-2": "Healthy", "qa-1": "Waiting" },
      existing: all,
      out: ["dev-1", "dev-2", "qa-1"],
    },
    {
      name: "every step Healthy makes everything eligible",
      s: { "dev-1": "Healthy", "dev-2": "Healthy", "qa-1": "Healthy", "prod-1": "Waiting" },
      existing: all,
      out: [...all],
    },
    {
      name: "a Progressing Application blocks the next step",
      s: { "dev-1": "Healthy", "dev-2": "Progressing" },
      existing: all,
      out: ["dev-1", "dev-2"],
    },
    { name: "an Application without an entry blocks the next step", s: { "dev-1": "Healthy" }, existing: all, out: ["dev-1", "dev-2"] },
    {
      name: "an Application not created yet blocks the next step",
      s: { "dev-1": "Healthy", "dev-2": "Healthy" },
      existing: new Set(["dev-1"]),
      out: ["dev-1", "dev-2"],
    },
  ])("$name", ({ s, existing, out }) => {
    expect([...eligibleApps(assignment, statuses(s), existing)].sort()).toEqual([...out].sort());
  });

  it("an empty step counts as complete", () => {
    const a = assignSteps(
      [envStep(["dev"]), envStep(["none"]), envStep(["prod"])],
      [
        { name: "d", labels: { env: "dev" } },
        { name: "p", labels: { env: "prod" } },
      ],
    );
    expect([...eligibleApps(a, statuses({ d: "Healthy" }), new Set(["d", "p"]))]).toEqual(["d", "p"]);
  });

  it("an Application selected by two steps gates both", () => {
    const a = assignSteps(
      [envStep(["dev"]), envStep(["dev", "qa"]), envStep(["prod"])],
      [
        { name: "d", labels: { env: "dev" } },
        { name: "q", labels: { env: "qa" } },
        { name: "p", labels: { env: "prod" } },
      ],
    );
    expect([...eligibleApps(a, statuses({ d: "Healthy", q: "Healthy" }), new Set(["d", "q", "p"]))].sort()).toEqual(["d", "p", "q"]);
    expect([...eligibleApps(a, statuses({ d: "Progressing", q: "Healthy" }), new Set(["d", "q", "p"]))].sort()).toEqual(["d"]);
  });
});

describe("promoteWaiting (Phase B)", () => {
  const many = (n: number, status = "Waiting") =>
    Array.from({ length: n }, (_, i) => entry(`p-${String(i).padStart(2, "0")}`, status, { step: "1" }));
  const run = (maxUpdate: number | string | undefined, entries = many(25), ready = new Set(entries.map((e) => e.application))) =>
    promoteWaiting({
      steps: [envStep(["prod"], maxUpdate)],
      entries,
      eligible: new Set(entries.map((e) => e.application)),
      ready,
      now: at(50),
    });

  it.each([
    // name; maxUpdate; expected promotions out of 25 Waiting entries
    { name: "no maxUpdate promotes all", maxUpdate: undefined, count: 25 },
    { name: "maxUpdate 3 promotes 3", maxUpdate: 3, count: 3 },
    { name: "maxUpdate 0 promotes none", maxUpdate: 0, count: 0 },
    { name: "10% of 25 promotes 2", maxUpdate: "10%", count: 2 },
    { name: "0% promotes none", maxUpdate: "0%", count: 0 },
    { name: "an invalid maxUpdate promotes all (no limit)", maxUpdate: "five", count: 25 },
  ])("$name", ({ maxUpdate, count }) => {
    const res = run(maxUpdate);
    expect(res.promoted).toHaveLength(count);
    expect(res.promoted).toEqual(
      many(25)
        .slice(0, count)
        .map((e) => e.application),
    );
    expect(res.entries.filter((e) => e.status === "Pending")).toHaveLength(count);
  });

  it("counts Applications already updating against the budget", () => {
    const entries = [...many(8), entry("p-98", "Pending", { step: "1" }), entry("p-99", "Progressing", { step: "1" })];
    expect(run("30%", entries).promoted).toEqual(["p-00"]);
  });

  it("stamps promoted entries with now and the verbatim message", () => {
    expect(run(1).entries[0]).toMatchObject({ status: "Pending", message: AppStatusMessage.MovedToPending, lastTransitionTime: ts(50) });
  });

  it("skips Applications that are not ready or not eligible, and unassigned ones", () => {
    const entries = [entry("a", "Waiting"), entry("b", "Waiting"), entry("c", "Waiting", { step: "-1" }), entry("d", "Waiting")];
    const res = promoteWaiting({
      steps: [envStep(["x"])],
      entries,
      eligible: new Set(["a", "b", "c"]),
      ready: new Set(["b", "c", "d"]),
      now: at(1),
    });
    expect(res.promoted).toEqual(["b"]);
  });

  it("stepCounts ignores unassigned entries", () => {
    expect(
      stepCounts(
        [entry("a", "Pending", { step: "-1" }), entry("b", "Progressing", { step: "2" }), entry("c", "Healthy", { step: "2" })],
        2,
      ),
    ).toEqual({ total: [0, 2], updating: [0, 1] });
  });
});

describe("syncOperation (with pinned revisions)", () => {
  const base = {
    initiatedBy: { username: "applicationset-controller", automated: true },
    info: [{ name: "Reason", value: "ApplicationSet RollingSync triggered a sync of this Application resource" }],
  };
  it.each([
    // name; the spec; the pinned revisions; prune; the expected operation
    {
      name: "no syncPolicy: pinned revision, default retry",
      spec: { source: {} },
      revisions: ["abc"],
      prune: false,
      op: { ...base, sync: { revision: "abc" }, retry: { limit: 5 } },
    },
    {
      name: "syncPolicy with options and retry",
      spec: { source: {}, syncPolicy: { syncOptions: ["CreateNamespace=true"], retry: { limit: 2 } } },
      revisions: ["abc"],
      prune: true,
      op: { ...base, sync: { revision: "abc", prune: true, syncOptions: ["CreateNamespace=true"] }, retry: { limit: 2 } },
    },
    {
      name: "syncPolicy without options",
      spec: { syncPolicy: {} },
      revisions: ["abc"],
      prune: false,
      op: { ...base, sync: { revision: "abc", prune: false }, retry: { limit: 5 } },
    },
    {
      name: "multi-source pins every revision",
      spec: { sources: [{}, {}] },
      revisions: ["a", "b"],
      prune: false,
      op: { ...base, sync: { revisions: ["a", "b"] }, retry: { limit: 5 } },
    },
    { name: "unknown revisions are not pinned", spec: {}, revisions: [], prune: false, op: { ...base, sync: {}, retry: { limit: 5 } } },
  ])("$name", ({ spec, revisions, prune, op }) => {
    expect(syncOperation(spec, revisions, prune)).toEqual(op);
  });
});

describe("progressingCondition", () => {
  it.each([
    // name; entries; expected status and message
    {
      name: "the first step with a non-Healthy entry is in progress",
      entries: [entry("a", "Healthy", { step: "1" }), entry("b", "Pending", { step: "2" }), entry("c", "Waiting", { step: "3" })],
      status: "True",
      message: "ApplicationSet is performing rollout of step 2",
    },
    {
      name: "all Healthy completes",
      entries: [entry("a", "Healthy", { step: "1" }), entry("b", "Healthy", { step: "3" })],
      status: "False",
      message: "ApplicationSet Rollout has completed",
    },
    {
      name: "unassigned entries are ignored",
      entries: [entry("a", "Healthy", { step: "1" }), entry("u", "Waiting", { step: "-1" })],
      status: "False",
      message: "ApplicationSet Rollout has completed",
    },
  ])("$name", ({ entries, status, message }) => {
    expect(progressingCondition(entries, 3, at(9))).toEqual({
      type: "RolloutProgressing",
      status,
      reason: status === "True" ? "ApplicationSetModified" : "ApplicationSetRolloutComplete",
      message,
      lastTransitionTime: ts(9),
    });
  });
});
