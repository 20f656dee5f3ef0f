import { describe, expect, it } from "vitest";
import type { Application, ApplicationSet, RolloutPolicy, RolloutRun } from "../../api/index.js";
import { rfc3339 } from "../../clock/index.js";
import type { AppStatusEntry } from "../machine.js";
import type { ObservedApp } from "../observe.js";
import { govern, rollbackMarker, type Governance, type GovernInput } from "./governor.js";
import { resolvePolicy } from "./policy.js";
import { runName, runStatus } from "./resource.js";
import { RunPhase, StepPhase, type RunState } from "./types.js";

const NOW = Date.UTC(2026, 11, 6, 12);
const NEW = "9b8c7d6e5f40";
const OLD = "3f2a1c9d8e7b";
const APPS = { a1: 0, a2: 0, b1: 1 } as const;

const appSet = {
  apiVersion: "argoproj.io/v1alpha1",
  kind: "ApplicationSet",
  metadata: { name: "guestbook", namespace: "argocd", uid: "uid-1", labels: { tier: "prod" } },
  spec: { generators: [], template: { metadata: {}, spec: {} } },
} as unknown as ApplicationSet;

function policy(name: string, spec: Partial<RolloutPolicy["spec"]> = {}): RolloutPolicy {
  return { metadata: { name, namespace: "argocd" }, spec: { applicationSets: { names: ["guestbook"] }, ...spec } };
}

type Look = "ready" | "outOfSync" | "degraded";

function observed(name: string, look: Look, revision = NEW): ObservedApp {
  const synced = look !== "outOfSync";
  return {
    name,
    syncStatus: synced ? "Synced" : "OutOfSync",
    healthStatus: look === "degraded" ? "Degraded" : "Healthy",
    revisions: [revision],
    reconciledAt: NOW - 2_000,
    operation: undefined,
    hasErrorCondition: false,
    reconciled: true,
    specChanged: false,
    refreshRequested: false,
    terminating: false,
  };
}

function entries(revision = NEW): AppStatusEntry[] {
  return Object.entries(APPS).map(([application, step]) => ({
    application,
    status: "Waiting",
    message: "",
    step: String(step + 1),
    targetRevisions: [revision],
  }));
}

function input(over: Partial<GovernInput> & { looks?: Partial<Record<keyof typeof APPS, Look>> } = {}): GovernInput {
  const looks = { a1: "outOfSync", a2: "outOfSync", b1: "outOfSync", ...over.looks } as Record<string, Look>;
  return {
    appSet,
    policies: [resolvePolicy(policy("careful", { defaults: { progressDeadline: "10m" }, rollback: { enabled: true } }))],
    runs: [],
    appStep: new Map(Object.entries(APPS)),
    stepCount: 2,
    entries: entries(),
    observed: Object.keys(APPS).map((n) => observed(n, looks[n]!)),
    live: new Map(),
    now: NOW,
    ...over,
  };
}

function governed(g: Governance): Extract<Governance, { kind: "governed" }> {
  if (g.kind !== "governed") throw new Error(`expected governed, got ${g.kind}`);
  return g;
}

/** A stored run of the ApplicationSet to `revision`, in the state `run` describes. */
function stored(revision: string, edit: (r: RunState) => RunState, requests: RolloutRun["spec"]["requests"] = []): RolloutRun {
  const targets = { a1: [revision], a2: [revision], b1: [revision] };
  const name = runName("guestbook", targets);
  const base: RunState = {
    id: name,
    phase: RunPhase.Running,
    targetRevisions: targets,
    steps: [
      {
        index: 0,
        phase: StepPhase.Waiting,
        applications: ["a1", "a2"],
        counts: { total: 2, ready: 0, failed: 0, pending: 2 },
        toleratedFailures: [],
        soakRestarts: 0,
        why: "",
      },
      {
        index: 1,
        phase: StepPhase.Waiting,
        applications: ["b1"],
        counts: { total: 1, ready: 0, failed: 0, pending: 1 },
        toleratedFailures: [],
        soakRestarts: 0,
        why: "",
      },
    ],
    currentStep: 0,
    startedAt: NOW - 600_000,
  };
  const run = edit(base);
  return {
    metadata: { name, namespace: "argocd", resourceVersion: "7", labels: { "progressivesync.appset.dev/application-set": "guestbook" } },
    spec: {
      applicationSet: "guestbook",
      targetRevisions: Object.keys(targets).map((application) => ({ application, revisions: [revision] })),
      requests,
    },
    status: runStatus(run, { observedRequests: 0, requests: [] }),
  };
}

const completed = (r: RunState): RunState => ({
  ...r,
  phase: RunPhase.Completed,
  currentStep: 2,
  endedAt: NOW - 300_000,
  steps: r.steps.map((s) => ({ ...s, phase: StepPhase.Completed })),
});

describe("before every Application of the steps has target revisions", () => {
  it("no run starts and nothing is promoted while one has no entry or no revisions; the condition names them", () => {
    const noEntry = govern(input({ entries: [] }));
    expect(noEntry).toMatchObject({ kind: "held", policies: ["careful"], logs: [] });
    expect(noEntry.kind === "held" && noEntry.condition).toMatchObject({
      status: "True",
      reason: "RolloutAwaitingRevisions",
      message: "RolloutPolicy careful: waiting for the target revisions of a1, a2, b1 before a rollout starts",
    });
    const partial = entries().map((e) => (e.application === "b1" ? { ...e, targetRevisions: [] } : e));
    const held = govern(input({ entries: partial }));
    expect(held.kind === "held" && held.condition.message).toBe(
      "RolloutPolicy careful: waiting for the target revisions of b1 before a rollout starts",
    );
  });

  it("the run of the whole set starts once the last one is known, the same run as if all were known at once", () => {
    const g = governed(govern(input()));
    expect(g.writes.create?.metadata.name).toBe(runName("guestbook", { a1: [NEW], a2: [NEW], b1: [NEW] }));
    expect(g.writes.create?.spec.targetRevisions?.map((t) => t.application)).toEqual(["a1", "a2", "b1"]);
  });
});

describe("which policy governs an ApplicationSet", () => {
  it("none: Argo CD's rule stays", () => {
    expect(govern(input({ policies: [resolvePolicy(policy("other", { applicationSets: { names: ["x"] } }))] })).kind).toBe("ungoverned");
    expect(govern(input({ policies: [] })).kind).toBe("ungoverned");
  });

  it("two: the rollout is held and the condition names both", () => {
    const g = govern(
      input({
        policies: [
          resolvePolicy(policy("b")),
          resolvePolicy(policy("a", { applicationSets: { selector: { matchLabels: { tier: "prod" } } } })),
        ],
      }),
    );
    expect(g).toMatchObject({ kind: "held", policies: ["a", "b"] });
    expect(g.kind === "held" && g.condition).toMatchObject({
      type: "RolloutProgressing",
      status: "True",
      reason: "RolloutPolicyConflict",
      message: "ApplicationSet is selected by several RolloutPolicies (a, b): no step starts until exactly one selects it",
    });
  });

  it("an invalid one: the rollout is held and the condition says what to fix", () => {
    const g = govern(input({ policies: [resolvePolicy(policy("careful", { defaults: { soak: "soon" } }))] }));
    expect(g.kind === "held" && g.condition.message).toBe(
      'RolloutPolicy careful is invalid: spec.defaults.soak: time: invalid duration "soon"; no step starts until it is fixed',
    );
  });
});

describe("a governed pass", () => {
  it("starts a run for new revisions: creates the RolloutRun, owned and labelled, and lets step 1 sync", () => {
    const g = governed(govern(input()));
    const name = runName("guestbook", { a1: [NEW], a2: [NEW], b1: [NEW] });
    expect(g.writes.create?.metadata).toEqual({
      name,
      namespace: "argocd",
      labels: { "progressivesync.appset.dev/application-set": "guestbook" },
      ownerReferences: [
        {
          apiVersion: "argoproj.io/v1alpha1",
          kind: "ApplicationSet",
          name: "guestbook",
          uid: "uid-1",
          blockOwnerDeletion: true,
          controller: true,
        },
      ],
    });
    expect(g.writes.create?.spec).toEqual({
      applicationSet: "guestbook",
      policy: "careful",
      sequence: 1,
      targetRevisions: [
        { application: "a1", revisions: [NEW] },
        { application: "a2", revisions: [NEW] },
        { application: "b1", revisions: [NEW] },
      ],
    });
    expect(g.writes.status?.status).toMatchObject({ phase: "Running", currentStep: 1, startedAt: rfc3339(NOW) });
    expect(g.writes.status?.status.steps?.[0]).toMatchObject({ step: 1, phase: "Progressing", deadline: rfc3339(NOW + 600_000) });
    expect([...g.eligible].sort()).toEqual(["a1", "a2"]);
    expect(g.reset.size).toBe(0);
    expect(g.events.map((e) => e.reason)).toEqual(["RolloutStarted", "RolloutStepProgressing"]);
    expect(g.logs[0]).toMatch(/^rollout guestbook-[0-9a-f]{10} started for 3 Applications in 2 steps$/);
    expect(g.logs.slice(1)).toEqual(g.events.map((e) => e.message));
    expect(g.logs.at(-1)).toContain("step 1 Progressing: a1: OutOfSync at 9b8c7d6");
    expect(g.condition).toMatchObject({ status: "True", reason: "ApplicationSetModified" });
    expect(g.condition.message).toMatch(
      /^ApplicationSet Rollout is updating step 1 \(rollout guestbook-[0-9a-f]{10}, Progressing\): a1: OutOfSync at 9b8c7d6, last reconciled 2 s ago; a2: /,
    );
    expect(g.requeueAfterMs).toBe(601_000);
  });

  it("writes no status when nothing changed", () => {
    const first = governed(govern(input()));
    const run: RolloutRun = {
      ...first.writes.create!,
      metadata: { ...first.writes.create!.metadata, resourceVersion: "1" },
      status: first.writes.status!.status,
    };
    const again = governed(govern(input({ runs: [run] })));
    expect(again.writes.create).toBeUndefined();
    expect(again.writes.status).toBeUndefined();
    expect(again.events).toEqual([]);
  });

  it("applies a pause request once, records it, and stops every promotion", () => {
    const run = stored(
      NEW,
      (r) => ({ ...r, steps: [{ ...r.steps[0]!, phase: StepPhase.Progressing, startedAt: NOW - 60_000 }, r.steps[1]!] }),
      [
        { action: "pause", by: "alice" },
        { action: "approve", step: 9 },
      ],
    );
    const g = governed(govern(input({ runs: [run] })));
    expect(g.run.phase).toBe(RunPhase.Paused);
    expect(g.eligible.size).toBe(0);
    expect(g.writes.status?.resource).toBe(run);
    expect(g.writes.status?.status).toMatchObject({
      observedRequests: 2,
      requests: [
        { index: 0, applied: true, message: "pause applied" },
        { index: 1, applied: false, message: "no step 9" },
      ],
    });
    expect(g.events.map((e) => e.reason)).toEqual(["RolloutPaused"]);
    expect(g.condition).toMatchObject({ status: "True", reason: "RolloutPaused" });
  });

  it("supersedes a running run when the revisions change, and starts the new one", () => {
    const old = stored(OLD, (r) => r);
    const g = governed(govern(input({ runs: [old] })));
    expect(g.writes.supersede?.name).toBe(old.metadata.name);
    expect(g.writes.supersede?.status).toMatchObject({ phase: "Aborted", haltReason: "Superseded", endedAt: rfc3339(NOW) });
    expect(g.writes.create?.metadata.name).toBe(runName("guestbook", { a1: [NEW], a2: [NEW], b1: [NEW] }));
    expect(g.run.phase).toBe(RunPhase.Running);
  });

  it("supersedes the running run even when a run it superseded started in the same second and sorts first", () => {
    const at = (r: RunState): RunState => ({ ...r, startedAt: NOW - 1_000 });
    const [x, y] = [stored(OLD, at), stored("5e4d3c2b1a09", at)].sort((a, b) => (a.metadata.name! < b.metadata.name! ? 1 : -1));
    const aborted = stored(x!.spec.targetRevisions![0]!.revisions[0]!, (r) => ({
      ...at(r),
      phase: RunPhase.Aborted,
      haltReason: "Superseded",
      endedAt: NOW - 1_000,
    }));
    const g = governed(govern(input({ runs: [aborted, y!] })));
    expect(g.writes.supersede?.name).toBe(y!.metadata.name);
    expect(g.writes.supersede?.status).toMatchObject({ phase: "Aborted", haltReason: "Superseded" });
    expect(g.run.phase).toBe(RunPhase.Running);
  });

  it("starts the next run paused after a halt even when a run the halted one superseded started in the same second and sorts first", () => {
    const at = (r: RunState): RunState => ({ ...r, startedAt: NOW - 1_000 });
    const [x, y] = [stored(OLD, at), stored("5e4d3c2b1a09", at)].sort((a, b) => (a.metadata.name! < b.metadata.name! ? 1 : -1));
    const superseded = stored(x!.spec.targetRevisions![0]!.revisions[0]!, (r) => ({
      ...at(r),
      phase: RunPhase.Aborted,
      haltReason: "Superseded",
      endedAt: NOW - 1_000,
    }));
    const halted = stored(y!.spec.targetRevisions![0]!.revisions[0]!, (r) => ({
      ...at(r),
      phase: RunPhase.Halted,
      haltReason: "ProgressDeadlineExceeded",
      steps: [{ ...r.steps[0]!, phase: StepPhase.Halted }, r.steps[1]!],
    }));
    const g = governed(govern(input({ runs: [superseded, halted] })));
    expect(g.run.phase).toBe(RunPhase.Paused);
    expect(g.eligible.size).toBe(0);
  });

  it("starts the next run paused after a halt even when the completed run before it started in the same second and sorts first by name", () => {
    const at = (r: RunState): RunState => ({ ...r, startedAt: NOW - 1_000 });
    const withSequence = (r: RolloutRun, sequence: number): RolloutRun => ({ ...r, spec: { ...r.spec, sequence } });
    const [x, y] = [stored(OLD, at), stored("5e4d3c2b1a09", at)].sort((a, b) => (a.metadata.name! < b.metadata.name! ? 1 : -1));
    const done = withSequence(
      stored(x!.spec.targetRevisions![0]!.revisions[0]!, (r) => completed(at(r))),
      1,
    );
    const halted = withSequence(
      stored(y!.spec.targetRevisions![0]!.revisions[0]!, (r) => ({
        ...at(r),
        phase: RunPhase.Halted,
        haltReason: "FailureBudgetExceeded",
        steps: [{ ...r.steps[0]!, phase: StepPhase.Halted }, r.steps[1]!],
      })),
      2,
    );
    const g = governed(govern(input({ runs: [done, halted] })));
    expect(g.run.phase).toBe(RunPhase.Paused);
    expect(g.eligible.size).toBe(0);
    expect(g.writes.create?.spec.sequence).toBe(3);
    expect(g.logs.join("\n")).toContain(`the previous rollout ${halted.metadata.name!} is Halted`);
  });

  it("supersedes a run created without its status (its status write failed) as a running one", () => {
    const { status: _, ...bare } = stored(OLD, (r) => r);
    const g = governed(govern(input({ runs: [bare] })));
    expect(g.writes.supersede?.name).toBe(bare.metadata.name);
    expect(g.writes.supersede?.status).toMatchObject({ phase: "Aborted", haltReason: "Superseded" });
  });

  it("starts the next run paused when the last one halted: a halt stays until someone resumes", () => {
    const halted = stored(OLD, (r) => ({
      ...r,
      phase: RunPhase.Halted,
      haltReason: "ProgressDeadlineExceeded",
      steps: [{ ...r.steps[0]!, phase: StepPhase.Halted }, r.steps[1]!],
    }));
    const g = governed(govern(input({ runs: [halted] })));
    expect(g.writes.supersede).toBeUndefined();
    expect(g.run.phase).toBe(RunPhase.Paused);
    expect(g.eligible.size).toBe(0);
    expect(g.logs.join("\n")).toContain("is Halted; resume to roll out these revisions");
  });

  it("supersedes a paused run when the revisions change, and starts the new one paused: the pause carries over", () => {
    const paused = stored(OLD, (r) => ({ ...r, phase: RunPhase.Paused, pausedAt: NOW - 5_000 }));
    const g = governed(govern(input({ runs: [paused] })));
    expect(g.writes.supersede?.name).toBe(paused.metadata.name);
    expect(g.writes.supersede?.status).toMatchObject({ phase: "Aborted", haltReason: "Superseded", endedAt: rfc3339(NOW) });
    expect(g.run.phase).toBe(RunPhase.Paused);
    expect(g.eligible.size).toBe(0);
    expect(g.logs.join("\n")).toContain("is Paused; resume to roll out these revisions");
  });

  it("rolls back a halted step to the last completed run's revisions, once, and holds the run", () => {
    const done = stored(OLD, completed);
    const running = stored(NEW, (r) => ({
      ...r,
      steps: [{ ...r.steps[0]!, phase: StepPhase.Progressing, startedAt: NOW - 700_000, deadline: NOW - 100_000 }, r.steps[1]!],
    }));
    const busy = { metadata: { name: "a2" }, operation: { sync: {} } } as unknown as Application;
    const g = governed(
      govern(
        input({
          runs: [done, running],
          looks: { a1: "degraded" },
          live: new Map([
            ["a1", { metadata: { name: "a1" } } as Application],
            ["a2", busy],
          ]),
        }),
      ),
    );
    expect(g.run.phase).toBe(RunPhase.Halted);
    expect(g.run.rollback?.applications.map((a) => [a.name, a.to])).toEqual([
      ["a1", [OLD]],
      ["a2", [OLD]],
    ]);
    expect(g.rollbacks).toEqual([{ application: "a1", revisions: [OLD], marker: rollbackMarker(running.metadata.name!) }]);
    expect([...g.reset].sort()).toEqual(["a1", "a2"]);
    expect(g.eligible.size).toBe(0);
    expect(g.requeueAfterMs).toBe(10_000);
    expect(g.events.map((e) => e.reason)).toEqual(["RolloutStepRolledBack", "RolloutHalted", "RolloutRolledBack"]);
    expect(g.report).toEqual({
      stepEnds: [{ step: "1", phase: "RolledBack", seconds: 700 }],
      halts: ["FailureBudgetExceeded"],
      failed: [
        { step: "1", count: 1 },
        { step: "2", count: 0 },
      ],
    });
    expect(g.condition).toMatchObject({ status: "True", reason: "RolloutHalted" });
  });

  it("does not send a rollback again once the Application ran it", () => {
    const done = stored(OLD, completed);
    const halted = stored(NEW, (r) => ({
      ...r,
      phase: RunPhase.Halted,
      haltReason: "ProgressDeadlineExceeded",
      steps: [{ ...r.steps[0]!, phase: StepPhase.RolledBack, startedAt: NOW - 700_000 }, r.steps[1]!],
      rollback: { at: NOW - 60_000, applications: [{ name: "a1", from: [NEW], to: [OLD] }], skipped: [] },
    }));
    const marker = rollbackMarker(halted.metadata.name!);
    const ran = {
      metadata: { name: "a1" },
      status: { operationState: { operation: { info: [{ name: "Reason", value: marker }] } } },
    } as unknown as Application;
    const g = governed(govern(input({ runs: [done, halted], live: new Map([["a1", ran]]) })));
    expect(g.rollbacks).toEqual([]);
    expect(g.requeueAfterMs).toBeUndefined();
  });

  it("starting a new run, syncs again an Application an earlier run left Progressing, but not a Healthy one", () => {
    const e = entries().map((x) =>
      x.application === "a1" ? { ...x, status: "Progressing" } : x.application === "a2" ? { ...x, status: "Healthy" } : x,
    );
    const g = governed(govern(input({ entries: e })));
    expect([...g.reset]).toEqual(["a1"]);
  });

  it("on resume, sends the restarted step's Applications back to Waiting so they sync again", () => {
    const halted = stored(
      NEW,
      (r) => ({
        ...r,
        phase: RunPhase.Halted,
        haltReason: "FailureBudgetExceeded",
        steps: [{ ...r.steps[0]!, phase: StepPhase.Halted, startedAt: NOW - 700_000 }, r.steps[1]!],
      }),
      [{ action: "resume" }],
    );
    const g = governed(govern(input({ runs: [halted] })));
    expect(g.run.phase).toBe(RunPhase.Running);
    expect([...g.reset].sort()).toEqual(["a1", "a2"]);
    expect([...g.eligible].sort()).toEqual(["a1", "a2"]);
  });

  it("keeps historyLimit runs, the current one included, and deletes the oldest others", () => {
    const olds = ["1111111111aa", "2222222222bb", "3333333333cc"].map((rev, i) => {
      const r = stored(rev, completed);
      return { ...r, status: { ...r.status, startedAt: rfc3339(NOW - (i + 1) * 3_600_000) } };
    });
    const g = governed(govern(input({ runs: olds, policies: [resolvePolicy(policy("careful", { historyLimit: 2 }))] })));
    expect(g.writes.delete).toEqual([olds[2]!.metadata.name, olds[1]!.metadata.name]);
  });
});
