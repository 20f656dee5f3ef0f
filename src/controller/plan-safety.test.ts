import { describe, expect, it } from "vitest";
import type { Application, ApplicationSet, ApplicationSetApplicationStatus, RolloutPolicy, RolloutRun } from "../api/index.js";
import { rollbackMarker, runName, runStatus, RunPhase, StepPhase, type RunState } from "../progressivesync/safety/index.js";
import { planAppSet } from "./plan.js";
import type { Plan } from "./plan-types.js";
import { appSet, appSpec, generated, live, rendered, settings, snapshot } from "../../test/support/controller-builders.js";

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const EARLIER = "2026-01-02T03:00:00Z";
const ENVS = ["dev", "prod"] as const;
const name = (env: string): string => `guestbook-${env}`;
const steps = ENVS.map((env) => ({ matchExpressions: [{ key: "env", operator: "In", values: [env] }] }));
const spec = { syncPolicy: { automated: { prune: true } } };
const writtenSpec = { syncPolicy: { automated: { prune: true, enabled: false } } };
const renderedApps = ENVS.map((env) => rendered(name(env), { metadata: { labels: { env } }, spec }));

function rolling(status: ApplicationSetApplicationStatus[]): ApplicationSet {
  return appSet("guestbook", {
    spec: { strategy: { type: "RollingSync", rollingSync: { steps } } },
    metadata: { uid: "uid-1" },
    status: { applicationStatus: status },
  });
}

const entries = ENVS.map((env, i) => ({
  application: name(env),
  status: "Waiting",
  message: "",
  step: String(i + 1),
  targetRevisions: ["r2"],
  lastTransitionTime: EARLIER,
}));

function liveApp(owner: ApplicationSet, env: string, over: Partial<Application> = {}): Application {
  const s = appSpec(writtenSpec);
  return {
    ...live(name(env), owner, {
      spec: writtenSpec,
      metadata: { labels: { env } },
      status: {
        sync: { status: "OutOfSync", revision: "r2", comparedTo: { source: s["source"], destination: s["destination"] } as never },
        health: { status: "Healthy" },
        reconciledAt: EARLIER,
      },
    }),
    ...over,
  };
}

const policy: RolloutPolicy = {
  metadata: { name: "careful", namespace: "argocd" },
  spec: { applicationSets: { names: ["guestbook"] }, defaults: { progressDeadline: "10m" }, rollback: { enabled: true } },
};

/** A stored run of the two Applications to `revision`. */
function run(revision: string, edit: (r: RunState) => RunState): RolloutRun {
  const targets = Object.fromEntries(ENVS.map((env) => [name(env), [revision]]));
  const id = runName("guestbook", targets);
  const base: RunState = {
    id,
    phase: RunPhase.Running,
    targetRevisions: targets,
    steps: ENVS.map((env, index) => ({
      index,
      phase: StepPhase.Waiting,
      applications: [name(env)],
      counts: { total: 1, ready: 0, failed: 0, pending: 1 },
      toleratedFailures: [],
      soakRestarts: 0,
      why: "",
    })),
    currentStep: 0,
    startedAt: NOW - 3_600_000,
  };
  return {
    metadata: {
      name: id,
      namespace: "argocd",
      resourceVersion: "5",
      labels: { "progressivesync.appset.dev/application-set": "guestbook" },
    },
    spec: { applicationSet: "guestbook", targetRevisions: ENVS.map((env) => ({ application: name(env), revisions: [revision] })) },
    status: runStatus(edit(base), { observedRequests: 0, requests: [] }),
  };
}

function plan(runs: RolloutRun[], policies = [policy], over: { ops?: Partial<Record<string, Application["operation"]>> } = {}): Plan {
  const owner = rolling(entries);
  const owned = ENVS.map((env) => liveApp(owner, env, over.ops?.[env] ? { operation: over.ops[env] } : {}));
  const s = { ...snapshot({ appSet: owner, owned, generation: generated(renderedApps) }), rollout: { policies, runs } };
  return planAppSet(s, NOW, settings({ progressiveSyncs: true }));
}

const operations = (p: Plan) =>
  p.writes.flatMap((w) =>
    w.desired.operation ? [[w.name, (w.desired.operation["sync"] as { revision?: string }).revision, w.desired.operation["info"]]] : [],
  );

/** A completed run on r1, and a run on r2 halted with guestbook-dev rolled back to r1. */
function rolledBackRuns(): { done: RolloutRun; halted: RolloutRun } {
  const done = run("r1", (r) => ({
    ...r,
    phase: RunPhase.Completed,
    currentStep: 2,
    steps: r.steps.map((s) => ({ ...s, phase: StepPhase.Completed })),
  }));
  const halted = run("r2", (r) => ({
    ...r,
    phase: RunPhase.Halted,
    haltReason: "ProgressDeadlineExceeded",
    steps: [{ ...r.steps[0]!, phase: StepPhase.RolledBack, startedAt: NOW - 900_000 }, r.steps[1]!],
    rollback: { at: NOW - 1_000, applications: [{ name: "guestbook-dev", from: ["r2"], to: ["r1"] }], skipped: [] },
  }));
  return { done, halted };
}

describe("RollingSync under a RolloutPolicy", () => {
  it("without a policy selecting it, plans as Argo CD does: no RolloutRun", () => {
    const p = plan([], [{ ...policy, spec: { ...policy.spec, applicationSets: { names: ["other"] } } }]);
    expect(p.rolloutRuns).toBeUndefined();
    expect(p.applicationStatus?.map((e) => [e.application, e.status])).toEqual([
      ["guestbook-dev", "Pending"],
      ["guestbook-prod", "Waiting"],
    ]);
  });

  it("starts a run: creates the RolloutRun before any Application, and promotes step 1 only", () => {
    const p = plan([]);
    expect(p.rolloutRuns?.create?.metadata.name).toBe(runName("guestbook", { "guestbook-dev": ["r2"], "guestbook-prod": ["r2"] }));
    expect(p.rolloutRuns?.status?.status.phase).toBe("Running");
    expect(p.applicationStatus?.map((e) => [e.application, e.status])).toEqual([
      ["guestbook-dev", "Pending"],
      ["guestbook-prod", "Waiting"],
    ]);
    expect(p.rolloutEvents?.map((e) => e.reason)).toEqual(["RolloutStarted", "RolloutStepProgressing"]);
    const progressing = p.status?.conditions?.find((c) => c.type === "RolloutProgressing");
    expect(progressing?.message).toContain("ApplicationSet Rollout is updating step 1 (rollout guestbook-");
    expect(p.requeueAfterMs).toBeLessThanOrEqual(601_000);
  });

  it("promotes nothing while the run is halted, where Argo CD's rule would promote step 1", () => {
    const halted = run("r2", (r) => ({
      ...r,
      phase: RunPhase.Halted,
      haltReason: "Aborted",
      steps: [{ ...r.steps[0]!, phase: StepPhase.Halted }, r.steps[1]!],
    }));
    const p = plan([halted]);
    expect(p.applicationStatus).toBeUndefined();
    expect(operations(p)).toEqual([]);
    expect(p.status?.conditions?.find((c) => c.type === "RolloutProgressing")).toMatchObject({ status: "True", reason: "RolloutHalted" });
  });

  it("writes the rollback sync, pinned to the last completed revision and marked with the run, on an Application with no operation", () => {
    const { done, halted } = rolledBackRuns();
    const p = plan([done, halted]);
    expect(operations(p)).toEqual([["guestbook-dev", "r1", [{ name: "Reason", value: rollbackMarker(halted.metadata.name!) }]]]);
    const op = p.writes.find((w) => w.name === "guestbook-dev")?.desired.operation;
    expect(op?.["sync"]).toEqual({ revision: "r1", prune: true });
  });

  it("waits to roll back an Application whose operation is still running, and looks again in 10 s", () => {
    const { done, halted } = rolledBackRuns();
    const p = plan([done, halted], [policy], { ops: { dev: { sync: { revision: "r2" } } } });
    expect(
      operations(p)
        .filter(([n]) => n === "guestbook-dev")
        .map(([, rev]) => rev),
    ).not.toContain("r1");
    expect(p.requeueAfterMs).toBe(10_000);
  });
});
