/**
 * Rollout safety on the real control plane with KWOK and the sync engine
 * (docs/progressive-syncs.md#rollout-safety): the RolloutPolicy and RolloutRun CRDs are installed
 * before `appset controller --enable-progressive-syncs --enable-sync-engine` starts, a RolloutPolicy
 * selects a two-step RollingSync ApplicationSet, and what the controller does is checked from the
 * RolloutRun, the ApplicationSet's `RolloutProgressing` condition and a recorder of every
 * Application change: a progress deadline that halts, approval and run control from `appset
 * rollout`, a soak, the failure budget (a sync the apiserver refuses; a failing PreSync hook in one
 * of ten Applications), and a rollback, then the fix rolled out once `appset rollout resume` says so.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient, type KubeObject, type ResourceDescriptor } from "../../src/kube/index.js";
import type { Application, RolloutRun } from "../../src/api/index.js";
import { controllerNamespace, eventually } from "./support/controller.js";
import { envSettled, operationsWritten, rolloutController, settledAt } from "./support/guestbook-rollout.js";
import { RolloutRecorder } from "./support/rollout-recorder.js";
import {
  appsetRollout,
  rolloutStatusScreen,
  installRolloutCrds,
  latestRun,
  removeRolloutCrds,
  runsOf,
  rolloutPolicy,
  safetyAppSet,
  safetyRepo,
  stepLabel,
  stepPhase,
  waitForProgressing,
  waitForRun,
  type Layout,
  type Manifest,
} from "./support/rollout-safety.js";
import { e2eSuite } from "./support/suite.js";

const { temp, procs, namespaces, client: suiteClient } = e2eSuite();
let client: KubeApiClient;
let installed: string[] = [];

beforeAll(async () => {
  client = suiteClient();
  installed = await installRolloutCrds(client);
});

afterAll(async () => {
  await removeRolloutCrds(suiteClient(), installed);
});

const APPSET = "shop";
const JOBS: ResourceDescriptor = { group: "batch", version: "v1", plural: "jobs", kind: "Job", namespaced: true };

/** A namespace, a recorder over it, the policy, a controller with rollout safety on, then the ApplicationSet. */
async function rollout(prefix: string, layout: Layout, policy: Record<string, unknown>) {
  const ns = await controllerNamespace(client, prefix);
  namespaces.push(ns);
  const repo = safetyRepo(temp, layout);
  const rec = await RolloutRecorder.start(client, ns);
  await client.create(resources.RolloutPolicies, rolloutPolicy(ns, APPSET, policy));
  const proc = rolloutController(ns);
  procs.push(proc);
  await proc.waitForLog("rollout safety on: RolloutPolicies and RolloutRuns are read");
  await proc.waitForLog("caches synced, starting workers");
  await client.create(resources.ApplicationSets, safetyAppSet(ns, APPSET, repo, layout));
  return { ns, repo, rec, proc };
}

/** The operations written on the Applications of a step. */
const opsOn = (rec: RolloutRecorder, step: number) => operationsWritten(rec).filter((o) => o.env === stepLabel(step));

/** Waits until step 2 settles and the run completes; asserts step 1 completed without `failed`. */
async function completedWithout(ns: string, rec: RolloutRecorder, revision: string, failed: string): Promise<void> {
  await envSettled(rec, stepLabel(2), 1, revision);
  const run = await waitForRun(client, ns, APPSET, "Completed", (r) => r.status?.phase === "Completed");
  const step1 = run.status?.steps?.find((s) => s.step === 1);
  expect(step1?.phase).toBe("Completed");
  expect(step1?.toleratedFailures).toEqual([failed]);
}

/** Runs `body` with the recorder's timeline printed when ROLLOUT_TRACE is set, and the recorder stopped. */
async function traced(rec: RolloutRecorder, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } finally {
    if (process.env["ROLLOUT_TRACE"]) console.log(rec.timeline());
    rec.stop();
  }
}

describe("rollout safety with the sync engine", () => {
  it("halts a step that misses its progress deadline and never starts the next step", async () => {
    const layout: Layout = [{ "web-1": "unschedulable" }, { "web-2": "ok" }];
    const { ns, rec } = await rollout("rs-deadline", layout, { steps: [{ step: 1, progressDeadline: "4s" }] });
    await traced(rec, async () => {
      // web-1's Deployment is applied, but its pod stays Pending: the Application stays Progressing.
      await rec.waitFor("web-1 synced and Progressing", () => {
        const a = rec.current.get("web-1");
        return a?.opPhase === "Succeeded" && a.health === "Progressing" ? true : undefined;
      });
      const run = await waitForRun(client, ns, APPSET, "Halted", (r) => r.status?.phase === "Halted");
      expect(run.status?.haltReason).toBe("ProgressDeadlineExceeded");
      expect(stepPhase(run, 1)).toBe("Halted");
      expect(run.status?.steps?.find((s) => s.step === 1)?.applications).toEqual(["web-1"]);
      const cond = await waitForProgressing(client, ns, APPSET, "RolloutHalted");
      expect(cond).toMatchObject({ status: "True", reason: "RolloutHalted" });
      expect(cond?.message).toContain("web-1");

      // More passes of the controller (its resync, the Application's own changes) change nothing.
      await sleep(6_000);
      expect(opsOn(rec, 2)).toEqual([]);
      expect(rec.current.get("web-2")?.opPhase).toBeUndefined();
      const after = await latestRun(client, ns, APPSET);
      expect(after?.metadata.name).toBe(run.metadata.name);
      expect(after?.status?.phase).toBe("Halted");
      expect(stepPhase(after!, 2)).toBe("Waiting");
      expect(opsOn(rec, 1).map((o) => o.name)).toEqual(["web-1"]);
      // One run for the one set of revisions, none for the Applications seen first.
      expect((await runsOf(client, ns, APPSET)).map((r) => r.metadata.name)).toEqual([run.metadata.name]);
      // appset rollout status says so, and exits 1 for a halted run.
      const screen = await rolloutStatusScreen(ns, APPSET);
      if (process.env["ROLLOUT_TRACE"]) process.stdout.write(screen.out);
      expect(screen.code).toBe(1);
      expect(screen.out).toContain("Halted, ProgressDeadlineExceeded");
      expect(screen.out).toContain("web-1");
    });
  }, 120_000);

  it("waits for approval of step 2, holds while paused, and completes once approved and resumed, as appset rollout reports", async () => {
    const layout: Layout = [{ "api-1": "ok" }, { "api-2a": "ok", "api-2b": "ok" }];
    const { ns, repo, rec } = await rollout("rs-approve", layout, { steps: [{ step: 2, requireApproval: true }] });
    await traced(rec, async () => {
      await envSettled(rec, stepLabel(1), 1, repo.first);
      const waiting = await waitForRun(client, ns, APPSET, "awaiting approval of step 2", (r) => stepPhase(r, 2) === "AwaitingApproval");
      expect(waiting.status?.phase).toBe("Running");
      expect(stepPhase(waiting, 1)).toBe("Completed");
      expect(opsOn(rec, 2)).toEqual([]);

      const look = await appsetRollout(ns, "status", APPSET);
      expect(look).toMatchObject({ code: 0, err: "" });
      expect(look.out).toContain("AwaitingApproval");
      // A watch that ends before the run does exits 2.
      expect((await appsetRollout(ns, "status", APPSET, "--watch", "--timeout", "2s")).code).toBe(2);

      // Paused, the approval is taken but nothing is promoted.
      expect((await appsetRollout(ns, "pause", APPSET)).code).toBe(0);
      await waitForRun(client, ns, APPSET, "Paused", (r) => r.status?.phase === "Paused");
      expect((await appsetRollout(ns, "approve", APPSET)).code).toBe(0);
      await waitForRun(client, ns, APPSET, "having seen both requests", (r) => (r.status?.observedRequests ?? 0) >= 2);
      await sleep(5_000);
      expect(opsOn(rec, 2)).toEqual([]);
      expect((await latestRun(client, ns, APPSET))?.status?.phase).toBe("Paused");

      const watching = appsetRollout(ns, "status", APPSET, "--watch", "--timeout", "90s");
      expect((await appsetRollout(ns, "resume", APPSET)).code).toBe(0);
      await envSettled(rec, stepLabel(2), 2, repo.first);
      const done = await waitForRun(client, ns, APPSET, "Completed", (r) => r.status?.phase === "Completed");
      expect(done.status?.requests?.map((r) => [r.index, r.applied])).toEqual([
        [0, true],
        [1, true],
        [2, true],
      ]);
      expect(done.spec.requests?.map((r) => r.action)).toEqual(["pause", "approve", "resume"]);
      expect((await watching).code).toBe(0);
      expect((await appsetRollout(ns, "status", APPSET)).code).toBe(0);
      expect((await runsOf(client, ns, APPSET)).map((r) => r.metadata.name)).toEqual([done.metadata.name]);
      expect(opsOn(rec, 2).map((o) => [o.name, o.by, o.revision])).toEqual([
        ["api-2a", "applicationset-controller", repo.first],
        ["api-2b", "applicationset-controller", repo.first],
      ]);
    });
  }, 150_000);

  it("promotes a step out of a long soak, then aborts the run for good, from appset rollout", async () => {
    const layout: Layout = [{ "tea-1": "ok" }, { "tea-2": "ok" }, { "tea-3": "ok" }];
    const { ns, repo, rec } = await rollout("rs-promote", layout, { defaults: { soak: "1h" } });
    await traced(rec, async () => {
      await envSettled(rec, stepLabel(1), 1, repo.first);
      await waitForRun(client, ns, APPSET, "step 1 soaking", (r) => stepPhase(r, 1) === "Soaking");
      expect(opsOn(rec, 2)).toEqual([]);

      // promote skips the rest of the hour: step 2 starts at once.
      expect((await appsetRollout(ns, "promote", APPSET)).code).toBe(0);
      await envSettled(rec, stepLabel(2), 1, repo.first);
      const soaking2 = await waitForRun(client, ns, APPSET, "step 2 soaking", (r) => stepPhase(r, 2) === "Soaking");
      expect(stepPhase(soaking2, 1)).toBe("Completed");

      // abort ends the run for good: step 3 never syncs, and a resume is refused by the run.
      expect((await appsetRollout(ns, "abort", APPSET)).code).toBe(0);
      const aborted = await waitForRun(client, ns, APPSET, "Aborted", (r) => r.status?.phase === "Aborted");
      expect(aborted.status?.haltReason).toBe("Aborted");
      expect(stepPhase(aborted, 2)).toBe("Halted");
      const refused = await appsetRollout(ns, "resume", APPSET);
      expect(refused.code).toBe(3);
      await sleep(3_000);
      expect(opsOn(rec, 3)).toEqual([]);
      expect((await appsetRollout(ns, "status", APPSET)).code).toBe(1);
      expect(aborted.status?.requests?.map((r) => [r.index, r.applied])).toEqual([
        [0, true],
        [1, true],
      ]);
    });
  }, 150_000);

  it("soaks step 1 for 10 s after its Applications are Healthy and Synced before step 2 starts", async () => {
    const layout: Layout = [{ "cart-1a": "ok", "cart-1b": "ok" }, { "cart-2": "ok" }];
    const { ns, repo, rec } = await rollout("rs-soak", layout, { steps: [{ step: 1, soak: "10s" }] });
    await traced(rec, async () => {
      await envSettled(rec, stepLabel(2), 1, repo.first, 60_000);
      const run = await waitForRun(client, ns, APPSET, "Completed", (r) => r.status?.phase === "Completed");
      expect(stepPhase(run, 1)).toBe("Completed");
      expect(rec.sets.some((e) => e.progressing?.includes(`rollout ${run.metadata.name ?? ""}, Soaking`))).toBe(true);
      // The first moment every step 1 Application was seen Healthy and Synced at the revision.
      const names = ["cart-1a", "cart-1b"];
      const latest = new Map<string, (typeof rec.apps)[number]>();
      let readyAt: number | undefined;
      for (const e of rec.apps) {
        latest.set(e.name, e);
        if (names.every((n) => settledAt(latest.get(n), repo.first))) {
          readyAt = e.t;
          break;
        }
      }
      const firstOp = opsOn(rec, 2)[0];
      expect(readyAt).toBeDefined();
      expect(firstOp).toBeDefined();
      expect(firstOp!.t - readyAt!).toBeGreaterThanOrEqual(10_000);
    });
  }, 120_000);

  describe("the failure budget of a step of three, one of whose syncs the apiserver refuses", () => {
    const layout: Layout = [{ "pay-1a": "ok", "pay-1b": "ok", "pay-1c": "refused" }, { "pay-2": "ok" }];

    it("maxFailures 1: the step completes without it and the run completes", async () => {
      const { ns, repo, rec } = await rollout("rs-budget1", layout, { steps: [{ step: 1, maxFailures: 1 }] });
      await traced(rec, async () => {
        await completedWithout(ns, rec, repo.first, "pay-1c");
        expect(rec.current.get("pay-1c")?.opPhase).toMatch(/^(Failed|Error)$/);
        expect(settledAt(rec.current.get("pay-1a"), repo.first) && settledAt(rec.current.get("pay-1b"), repo.first)).toBe(true);
      });
    }, 120_000);

    it("maxFailures 0: the run halts with FailureBudgetExceeded and step 2 never syncs", async () => {
      const { ns, rec } = await rollout("rs-budget0", layout, { steps: [{ step: 1, maxFailures: 0 }] });
      await traced(rec, async () => {
        const run = await waitForRun(client, ns, APPSET, "Halted", (r) => r.status?.phase === "Halted");
        expect(run.status?.haltReason).toBe("FailureBudgetExceeded");
        expect(stepPhase(run, 1)).toBe("Halted");
        expect(rec.current.get("pay-1c")?.opPhase).toMatch(/^(Failed|Error)$/);
        const cond = await waitForProgressing(client, ns, APPSET, "RolloutHalted");
        expect(cond).toMatchObject({ status: "True", reason: "RolloutHalted" });
        expect(cond?.message).toContain("pay-1c");
        await sleep(3_000);
        expect(opsOn(rec, 2)).toEqual([]);
      });
    }, 120_000);
  });

  it("tolerates a PreSync hook that fails in one of ten Applications within a budget of one, and completes the run", async () => {
    const step1: Record<string, Manifest> = {};
    for (const letter of "abcdefghij") step1[`svc-1${letter}`] = letter === "g" ? "failing-presync" : "ok";
    const layout: Layout = [step1, { "svc-2": "ok" }];
    const { ns, repo, rec } = await rollout("rs-budget-hook", layout, { steps: [{ step: 1, maxFailures: 1 }] });
    await traced(rec, async () => {
      await completedWithout(ns, rec, repo.first, "svc-1g");
      const failed = await client.get<Application>(resources.Applications, { namespace: ns, name: "svc-1g" });
      expect(failed.status?.operationState?.phase).toBe("Failed");
      expect(failed.status?.operationState?.message).toBe("one or more synchronization tasks completed unsuccessfully");
      // The hook ran and failed; the ConfigMap behind it was never applied.
      const job = await client.get<KubeObject & { status?: { failed?: number } }>(JOBS, { namespace: ns, name: "svc-1g-presync" });
      expect(job.status?.failed).toBe(1);
      await expect(client.get(resources.ConfigMaps, { namespace: ns, name: "svc-1g" })).rejects.toMatchObject({ reason: "NotFound" });
      for (const name of Object.keys(step1).filter((n) => n !== "svc-1g"))
        expect(settledAt(rec.current.get(name), repo.first), name).toBe(true);
      expect(opsOn(rec, 2).map((o) => [o.name, o.revision])).toEqual([["svc-2", repo.first]]);
    });
  }, 180_000);

  it("rolls step 1 back to the last completed rollout's revision when the next rollout halts there, and rolls the fix out once resumed", async () => {
    const layout: Layout = [{ "ui-1": "ok" }, { "ui-2": "ok" }];
    const { ns, repo, rec } = await rollout("rs-rollback", layout, { rollback: { enabled: true } });
    await traced(rec, async () => {
      const a = repo.first;
      await envSettled(rec, stepLabel(2), 1, a);
      const first = await waitForRun(client, ns, APPSET, "Completed", (r) => r.status?.phase === "Completed");

      const b = repo.push("2", [{ "ui-1": "refused" }, { "ui-2": "ok" }]);
      const body = { metadata: { annotations: { "argocd.argoproj.io/refresh": "normal" } } };
      for (const name of ["ui-1", "ui-2"]) await client.patch(resources.Applications, { namespace: ns, name }, { type: "merge", body });

      // The newest run need not be the halted one: a run started after the halt starts Paused.
      const halted = await waitForRun(
        client,
        ns,
        APPSET,
        "of revision B Halted",
        (r) => r.metadata.name !== first.metadata.name && r.status?.phase === "Halted",
        90_000,
        "any",
      );
      expect(halted.status?.haltReason).toBe("FailureBudgetExceeded");
      expect(halted.spec.targetRevisions?.find((t) => t.application === "ui-1")?.revisions).toEqual([b]);

      // ui-1 synced to B (refused), then back to A by the rollback.
      const back = await rec.waitFor(
        "ui-1 synced back to A",
        () => {
          const s = rec.current.get("ui-1");
          return s?.opPhase === "Succeeded" && s.opRevision === a && s.operation === undefined ? s : undefined;
        },
        60_000,
      );
      expect(back.health).toBe("Healthy");
      const app = await client.get<Application>(resources.Applications, { namespace: ns, name: "ui-1" });
      expect(app.status?.operationState?.syncResult?.revision).toBe(a);
      expect(app.status?.operationState?.operation?.info?.map((i) => i.value).join("\n")).toContain(
        `RolloutRun ${halted.metadata.name ?? ""} rolled this Application back`,
      );
      const ops = opsOn(rec, 1).map((o) => o.revision);
      expect(ops).toEqual([a, b, a]);

      const after = await eventually("the halted run's rollback record", async () => {
        const r = (await runsOf(client, ns, APPSET)).find((x) => x.metadata.name === halted.metadata.name);
        return r?.status?.rollback !== undefined ? r : undefined;
      });
      expect(after.metadata.name).toBe(halted.metadata.name);
      expect(after.status?.phase).toBe("Halted");
      expect(after.status?.rollback?.applications).toEqual([{ application: "ui-1", from: [b], to: [a] }]);
      expect(stepPhase(after, 1)).toBe("RolledBack");
      // Applications refresh one by one after a commit, so other runs may exist: one started before
      // the halt was superseded; one started after it (the revisions of an Application refreshed
      // later) starts Paused, since a halt holds until someone resumes.
      // A run is created, then its status written: wait for the newest to have its status.
      const latest = await eventually("the newest run's status", async () => {
        const l = await latestRun(client, ns, APPSET);
        return l?.status?.phase !== undefined ? l : undefined;
      });
      // Runs may still start while this reads: wait until each one read has its status.
      const others = await eventually("every other run's status", async () => {
        const rs = (await runsOf(client, ns, APPSET)).filter((r) => ![first.metadata.name, halted.metadata.name].includes(r.metadata.name));
        return rs.every((r) => r.status?.phase !== undefined) ? rs : undefined;
      });
      // None of them runs past the halt: each was superseded, or waits, paused, for a resume.
      for (const r of others) expect(["Aborted", "Paused"], r.metadata.name).toContain(r.status?.phase);
      // The newest run is the halted one, or one that started Paused after it.
      if (latest.metadata.name !== halted.metadata.name) expect(latest.status?.phase).toBe("Paused");
      // Step 2 stays on A: the halted run never promoted it.
      expect(opsOn(rec, 2).map((o) => o.revision)).toEqual([a]);

      // `appset rollout status` shows the rollback: of the halted run, or of the run a Paused one waits behind.
      const screen = await rolloutStatusScreen(ns, APPSET);
      if (process.env["ROLLOUT_TRACE"]) process.stdout.write(screen.out);
      // Runs may still start as the Applications refresh, so read which run the screen shows.
      const shownHalted = screen.out.includes(`Run:            ${halted.metadata.name ?? ""} `);
      expect(screen.code).toBe(shownHalted ? 1 : 0);
      expect(screen.out).toContain(
        shownHalted ? "RolledBack" : `Held behind:    ${halted.metadata.name ?? ""} (Halted, FailureBudgetExceeded`,
      );
      expect(screen.out).toContain(`ui-1: ${b} -> ${a}`);

      // The fix lands: its run starts Paused behind the halt, and rolls out once someone resumes.
      const c = repo.push("3", [{ "ui-1": "ok" }, { "ui-2": "ok" }]);
      for (const name of ["ui-1", "ui-2"]) await client.patch(resources.Applications, { namespace: ns, name }, { type: "merge", body });
      const onC = (r: RolloutRun) => r.spec.targetRevisions?.every((t) => t.revisions.length === 1 && t.revisions[0] === c) === true;
      const runOnC = (phase: string, ms: number) =>
        waitForRun(client, ns, APPSET, `of revision C ${phase}`, (r) => onC(r) && r.status?.phase === phase, ms, "any");
      const paused = await runOnC("Paused", 60_000);
      await sleep(3_000);
      expect(opsOn(rec, 1).map((o) => o.revision)).toEqual([a, b, a]);
      expect((await appsetRollout(ns, "resume", APPSET)).code).toBe(0);
      const done = await runOnC("Completed", 90_000);
      expect(done.metadata.name).toBe(paused.metadata.name);
      expect(done.spec.requests?.map((r) => r.action)).toEqual(["resume"]);
      await envSettled(rec, stepLabel(2), 1, c);
      expect(opsOn(rec, 1).map((o) => o.revision)).toEqual([a, b, a, c]);
      expect(opsOn(rec, 2).map((o) => o.revision)).toEqual([a, c]);
    });
  }, 240_000);
});
