import { describe, expect, it } from "vitest";
import { AppStatusMessage as M } from "../api/index.js";
import { at, desired, entry, envStep, live, rollingAppSet, spec, ts } from "../../test/unit/progressivesync/builders.js";
import { autosyncWarning, planRollout, type RolloutInput } from "./index.js";

const steps = [envStep(["dev"]), envStep(["prod"], 1)];
const autoSpec = spec({ syncPolicy: { automated: { prune: true } } });
const liveSpec = spec({ syncPolicy: { automated: { prune: true, enabled: false } } });
const desiredApps = [
  desired("dev-1", { env: "dev" }, autoSpec),
  desired("prod-1", { env: "prod" }, autoSpec),
  desired("prod-2", { env: "prod" }, autoSpec),
];

function input(o: Partial<RolloutInput<ReturnType<typeof desired>>> = {}): RolloutInput<ReturnType<typeof desired>> {
  return {
    appSet: rollingAppSet(steps),
    desired: desiredApps,
    current: desiredApps.map((d) => live(d.metadata.name, { labels: d.metadata.labels, spec: liveSpec, reconciledAt: 0 })),
    now: at(10),
    config: { progressiveSyncsEnabled: true },
    ...o,
  };
}

describe("planRollout: modes", () => {
  const withStatus = rollingAppSet(steps, { status: [entry("dev-1", "Healthy")] });
  const allAtOnce = { ...withStatus, spec: { ...withStatus.spec, strategy: { type: "AllAtOnce" } } };

  it.each([
    // name; ApplicationSet; flag; expected mode, applicationStatus, removed conditions, log
    {
      name: "flag off clears the status and keeps stale RollingSync conditions",
      a: withStatus,
      on: false,
      mode: "disabled",
      status: [],
      remove: [],
      log: ["Progressive Sync disabled, removing 1 AppStatus entries from ApplicationSet guestbook"],
    },
    {
      name: "flag off on AllAtOnce removes the rollout conditions",
      a: allAtOnce,
      on: false,
      mode: "disabled",
      status: [],
      remove: ["RolloutProgressing", "InvalidRolloutConfig"],
      log: ["Progressive Sync disabled, removing 1 AppStatus entries from ApplicationSet guestbook"],
    },
    {
      name: "AllAtOnce with the flag on clears the status and the conditions",
      a: allAtOnce,
      on: true,
      mode: "allAtOnce",
      status: [],
      remove: ["RolloutProgressing", "InvalidRolloutConfig"],
      log: ["Removing 1 unnecessary AppStatus entries from ApplicationSet guestbook"],
    },
    {
      name: "nothing to clear leaves the status alone",
      a: rollingAppSet(steps),
      on: false,
      mode: "disabled",
      status: undefined,
      remove: [],
      log: [],
    },
  ])("$name", ({ a, on, mode, status, remove, log }) => {
    const d = planRollout(input({ appSet: a, config: { progressiveSyncsEnabled: on } }));
    expect(d).toMatchObject({ mode, applicationStatus: status, removeConditions: remove, logs: log, writeApplications: true, syncs: [] });
    expect(d.applications).toBe(desiredApps);
  });

  it("RollingSync without steps reports the error, writes nothing and requeues in 3 minutes", () => {
    const d = planRollout(input({ appSet: rollingAppSet([]) }));
    expect(d).toMatchObject({
      mode: "noSteps",
      writeApplications: false,
      applications: [],
      applicationStatus: undefined,
      error: { reason: "ApplicationSetRolloutError", message: "No steps defined for rollout" },
      requeueAfterMs: 180_000,
    });
  });
});

describe("planRollout: a RollingSync pass", () => {
  it("turns autosync off on every desired Application and warns for each template that asked for it", () => {
    const d = planRollout(input());
    expect(d.applications.map((a) => (a.spec as { syncPolicy: unknown }).syncPolicy)).toEqual(
      desiredApps.map(() => ({ automated: { prune: true, enabled: false } })),
    );
    expect(d.autosyncWarnings).toEqual(
      desiredApps.map((a) => ({ application: a.metadata.name, message: autosyncWarning(a.metadata.name) })),
    );
  });

  it("creates Waiting entries, promotes the first step and attaches its pinned sync in the same pass", () => {
    const d = planRollout(input());
    expect(d.applicationStatus!.map((e) => [e.application, e.status, e.step])).toEqual([
      ["dev-1", "Pending", "1"],
      ["prod-1", "Waiting", "2"],
      ["prod-2", "Waiting", "2"],
    ]);
    expect(d.syncs.map((s) => [s.application, s.revisions])).toEqual([["dev-1", ["r1"]]]);
    expect(d.conditions.map((c) => [c.type, c.status, c.message])).toEqual([
      ["InvalidRolloutConfig", "False", "Rolling Sync Configured correctly"],
      ["RolloutProgressing", "True", "ApplicationSet is performing rollout of step 1"],
    ]);
  });

  it("attaches the pinned sync to an Application that was Pending before the pass", () => {
    const appSet = rollingAppSet(steps, {
      status: [
        entry("dev-1", "Pending", { targetRevisions: ["r1"], lastTransitionTime: ts(5) }),
        entry("prod-1", "Waiting", { step: "2" }),
        entry("prod-2", "Waiting", { step: "2" }),
      ],
    });
    const d = planRollout(input({ appSet }));
    expect(d.syncs.map((s) => [s.application, s.revisions])).toEqual([["dev-1", ["r1"]]]);
    const dev = d.applications.find((a) => a.metadata.name === "dev-1")!;
    expect(dev.operation).toMatchObject({
      sync: { revision: "r1", prune: true },
      initiatedBy: { username: "applicationset-controller", automated: true },
    });
    expect(d.applications.find((a) => a.metadata.name === "prod-1")!.operation).toBeUndefined();
  });

  it("writes one sync when a comparison fails while it runs (sync Unknown at the branch), as seen under connection cuts", () => {
    const devLive = (o: Parameters<typeof live>[1]) => live("dev-1", { labels: { env: "dev" }, spec: liveSpec, reconciledAt: 6, ...o });
    const pending = entry("dev-1", "Pending", { targetRevisions: ["r2"], lastTransitionTime: ts(5) });
    const others = [entry("prod-1", "Waiting", { step: "2" }), entry("prod-2", "Waiting", { step: "2" })];
    const running = { phase: "Running", startedAt: 5 };
    // Pass 1: the sync runs; the comparison failed, so the Application reports `main`, not a SHA.
    const pass1 = planRollout(
      input({
        appSet: rollingAppSet(steps, { status: [pending, ...others] }),
        current: [devLive({ liveOperation: true, sync: "Unknown", revisions: ["main"], operation: running, reconciledAt: 7 })],
        now: at(7),
      }),
    );
    const dev1 = pass1.applicationStatus!.find((e) => e.application === "dev-1")!;
    // Pass 2 (the comparison works again at r2) on what pass 1 wrote.
    const pass2 = planRollout(
      input({
        appSet: rollingAppSet(steps, { status: [...pass1.applicationStatus!] }),
        current: [devLive({ liveOperation: true, revisions: ["r2"], operation: running, reconciledAt: 9 })],
        now: at(9),
      }),
    );
    // Pass 3: the sync ended; the operation is cleared, its state Succeeded.
    const pass3 = planRollout(
      input({
        appSet: rollingAppSet(steps, { status: [...pass2.applicationStatus!] }),
        current: [devLive({ revisions: ["r2"], operation: { phase: "Succeeded", startedAt: 5 }, reconciledAt: 9 })],
        now: at(11),
      }),
    );
    expect(dev1).toMatchObject({ status: "Progressing", targetRevisions: ["r2"] });
    expect([...pass1.syncs, ...pass2.syncs, ...pass3.syncs]).toEqual([]);
    expect(pass3.applicationStatus!.find((e) => e.application === "dev-1")).toMatchObject({ targetRevisions: ["r2"] });
  });

  it("does not attach a sync over an operation already requested on the Application", () => {
    const appSet = rollingAppSet(steps, { status: [entry("dev-1", "Pending", { lastTransitionTime: ts(5) })] });
    const current = [live("dev-1", { labels: { env: "dev" }, spec: liveSpec, liveOperation: true })];
    expect(planRollout(input({ appSet, current })).syncs).toEqual([]);
  });

  it("holds promotions and syncs while an Application lags behind the latest change, and refreshes it after the grace period", () => {
    const appSet = rollingAppSet(steps, {
      status: [
        entry("dev-1", "Pending", { lastTransitionTime: ts(5) }),
        entry("prod-1", "Waiting", { step: "2", message: M.PendingChangesRevision, lastTransitionTime: ts(8), targetRevisions: ["r2"] }),
      ],
    });
    const current = [
      live("dev-1", { labels: { env: "dev" }, spec: liveSpec, reconciledAt: 6 }),
      live("prod-1", { labels: { env: "prod" }, spec: liveSpec, reconciledAt: 8, revisions: ["r2"] }),
    ];
    const early = planRollout(input({ appSet, current, desired: desiredApps.slice(0, 2), now: at(20) }));
    expect(early).toMatchObject({ syncs: [], refresh: [], requeueAfterMs: 18_000, gate: { open: false, lagging: ["dev-1"] } });
    const late = planRollout(input({ appSet, current, desired: desiredApps.slice(0, 2), now: at(40) }));
    expect(late).toMatchObject({ syncs: [], refresh: ["dev-1"], requeueAfterMs: 30_000 });
  });

  it("reports the moves of the pass", () => {
    const d = planRollout(input());
    expect(d.moves).toEqual([
      { application: "dev-1", from: undefined, to: "Waiting", message: M.Defaulted },
      { application: "prod-1", from: undefined, to: "Waiting", message: M.Defaulted },
      { application: "prod-2", from: undefined, to: "Waiting", message: M.Defaulted },
      { application: "dev-1", from: "Waiting", to: "Pending", message: M.MovedToPending },
    ]);
  });

  it("drops the entries of Applications that no longer exist", () => {
    const appSet = rollingAppSet(steps, { status: [entry("gone", "Healthy")] });
    expect(planRollout(input({ appSet })).applicationStatus!.map((e) => e.application)).toEqual(["dev-1", "prod-1", "prod-2"]);
  });
});

describe("planRollout: zero-valued template blocks (one spec equivalence with the write path)", () => {
  const zeroBlocks = [
    // name; the source fields the template renders; what the write path stores for them
    { name: "directory {recurse: false}", source: { directory: { recurse: false } } },
    { name: "helm {passCredentials: false}", source: { helm: { passCredentials: false } } },
    { name: "kustomize {forceCommonLabels: false}", source: { kustomize: { forceCommonLabels: false } } },
    {
      name: "helm {skipCrds: false, valueFiles}",
      source: { helm: { skipCrds: false, valueFiles: ["values.yaml"] } },
      stored: { helm: { valueFiles: ["values.yaml"] } },
    },
    {
      name: "helm parameters[].forceString: false",
      source: { helm: { parameters: [{ name: "a", value: "1", forceString: false }] } },
      stored: { helm: { parameters: [{ name: "a", value: "1" }] } },
    },
  ];

  it.each(zeroBlocks)(
    "a Synced, Healthy, reconciled Application whose template has $name stays Healthy and the pass is a fixed point",
    ({ source, stored }) => {
      const base = spec().source as Record<string, unknown>;
      const want = spec({ source: { ...base, ...source }, syncPolicy: { automated: { prune: true } } });
      const storedSpec = spec({ source: { ...base, ...(stored ?? {}) }, syncPolicy: { automated: { prune: true, enabled: false } } });
      const one = [envStep(["dev"])];
      const appSet = rollingAppSet(one, {
        status: [entry("dev-1", "Healthy", { message: M.WaitingToHealthy, lastTransitionTime: ts(1) })],
      });
      const current = [live("dev-1", { labels: { env: "dev" }, spec: storedSpec, sync: "Synced", reconciledAt: 5 })];
      const d = planRollout(input({ appSet, desired: [desired("dev-1", { env: "dev" }, want)], current, now: at(30) }));
      expect(d.moves).toEqual([]);
      expect(d.applicationStatus).toEqual(appSet.status!.applicationStatus);
      expect(d.syncs).toEqual([]);
    },
  );
});

describe("planRollout: step membership from every generated Application", () => {
  it("holds the next step while an Application of the current step failed validation, as Argo CD does", () => {
    const appSet = rollingAppSet(steps, { status: [entry("dev-1", "Healthy"), entry("prod-1", "Waiting", { step: "2" })] });
    const valid = [desiredApps[0]!, desiredApps[1]!];
    const invalidDev = desired("dev-2", { env: "dev" }, autoSpec);
    const current = valid.map((d) =>
      live(d.metadata.name, {
        labels: d.metadata.labels,
        spec: liveSpec,
        reconciledAt: 0,
        sync: d.metadata.name === "dev-1" ? "Synced" : "OutOfSync",
      }),
    );
    const held = planRollout(input({ appSet, desired: valid, generated: [...valid, invalidDev], current }));
    expect(held.syncs).toEqual([]);
    expect(held.assignment!.stepApps.map((names) => [...names])).toEqual([["dev-1", "dev-2"], ["prod-1"]]);
    const without = planRollout(input({ appSet, desired: valid, current }));
    expect(without.syncs.map((s) => s.application)).toEqual(["prod-1"]);
  });
});
