import { describe, expect, it } from "vitest";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { obj, task } from "../../test/unit/syncwaves/builders.js";
import { fromStatus, type KubeObject, type ResourceDescriptor } from "../kube/index.js";
import { SyncExecutor } from "./executor.js";
import { completedHooksToRelease, NO_ACTIONS, planStep } from "./plan.js";
import { planTerminate } from "./terminate.js";
import type { SyncTask, TaskState } from "./types.js";

const HOOK_FINALIZER = "argocd.argoproj.io/hook-finalizer";
const JOBS: ResourceDescriptor = { group: "batch", version: "v1", plural: "jobs", kind: "Job", namespaced: true };
const succeeded: TaskState = { status: "Synced", hookPhase: "Succeeded" };
const running: TaskState = { status: "Synced", hookPhase: "Running" };

/** A PreSync Job hook named `name`, holding the given finalizers. */
const hookJob = (name: string, finalizers?: string[]): KubeObject =>
  obj("Job", name, {
    namespace: "ns",
    annotations: { "argocd.argoproj.io/hook": "PreSync" },
    ...(finalizers !== undefined ? { finalizers } : {}),
  });
const hookTask = (state: TaskState, live?: KubeObject): SyncTask =>
  task(hookJob("migrate"), { phase: "PreSync", hook: true, state, ...(live ? { live } : {}) });

describe("completed hooks that lose the hook finalizer", () => {
  it.each([
    {
      name: "a completed hook whose live object holds the finalizer",
      // the task
      t: hookTask(succeeded, hookJob("migrate", [HOOK_FINALIZER])),
      // whether it is released
      want: true,
    },
    {
      name: "a completed hook read without a live object (looked up again by the executor)",
      t: hookTask(succeeded),
      want: true,
    },
    { name: "a completed hook whose live object no longer holds it", t: hookTask(succeeded, hookJob("migrate", ["other"])), want: false },
    { name: "a running hook", t: hookTask(running), want: false },
    {
      name: "a completed resource that is not a hook",
      t: task(obj("ConfigMap", "c", { namespace: "ns" }), { state: succeeded }),
      want: false,
    },
  ])("$name: $want", ({ t, want }) => {
    expect(completedHooksToRelease([t])).toEqual(want ? [t] : []);
  });

  it("are released when the operation finishes, and when it is terminated", () => {
    const gone = hookTask(succeeded);
    const step = planStep({
      tasks: [gone],
      started: true,
      validated: true,
      dryRun: false,
      prune: false,
      appOptions: [],
      startedAtMs: 0,
      nowMs: 0,
    });
    expect(step).toMatchObject({ kind: "finish", phase: "Succeeded" });
    expect(step.actions.removeFinalizers).toEqual([gone]);
    expect(planTerminate([gone]).removeFinalizers).toEqual([gone]);
  });
});

describe("the executor releasing a completed hook the task has no live object for", () => {
  const setup = (seeded: KubeObject[], resolve?: () => Promise<ResourceDescriptor>) => {
    const client = new FakeKubeClient();
    if (seeded.length > 0) client.seed(JOBS, ...seeded);
    const exec = new SyncExecutor({ client, resolve: resolve ?? (() => Promise.resolve(JOBS)) });
    const t = hookTask(succeeded);
    const run = () => exec.execute({ ...NO_ACTIONS, removeFinalizers: [t] }, [t], { dryRun: false, propagation: "Foreground" });
    return { client, run };
  };

  it("reads the hook from the apiserver and removes the hook finalizer, keeping the others", async () => {
    const { client, run } = setup([hookJob("migrate", ["example.com/keep", HOOK_FINALIZER])]);
    const report = await run();
    expect(client.peek(JOBS, { namespace: "ns", name: "migrate" })?.metadata?.finalizers).toEqual(["example.com/keep"]);
    expect(client.actions.map((a) => a.verb)).toEqual(["get", "patch"]);
    expect(report.tasks[0]?.state).toEqual(succeeded);
  });

  it.each([
    { name: "a hook gone from the cluster", seeded: [] as KubeObject[], resolve: undefined, verbs: ["get"] },
    { name: "a hook without the finalizer", seeded: [hookJob("migrate", ["other"])], resolve: undefined, verbs: ["get"] },
    {
      name: "a hook whose kind the cluster no longer serves",
      seeded: [],
      resolve: () => Promise.reject(fromStatus(404, undefined)),
      verbs: [],
    },
  ])("leaves $name as it is, with no error", async ({ seeded, resolve, verbs }) => {
    const { client, run } = setup(seeded, resolve);
    const report = await run();
    expect(client.actions.map((a) => a.verb)).toEqual(verbs);
    expect(report.tasks[0]?.state).toEqual(succeeded);
  });

  it("records a failed read on the task as an error", async () => {
    const { client, run } = setup([hookJob("migrate", [HOOK_FINALIZER])]);
    client.interceptors.get = () => Promise.reject(fromStatus(403, { message: "jobs is forbidden" }));
    const report = await run();
    expect(report.tasks[0]?.state.hookPhase).toBe("Error");
  });
});
