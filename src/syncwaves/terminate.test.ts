import { describe, expect, it } from "vitest";
import { obj, task } from "../../test/unit/syncwaves/builders.js";
import type { KubeObject } from "../kube/index.js";
import type { OperationState } from "../api/index.js";
import type { StepExecutor } from "./step.js";
import { resultKey, withState } from "./tasks.js";
import { planTerminate, terminate } from "./terminate.js";
import type { SyncTask, TaskState } from "./types.js";

const FIN = ["argocd.argoproj.io/hook-finalizer"];
const running = { status: "Synced", hookPhase: "Running" } as const;
const hookJob = (name: string, status?: Record<string, unknown>, policy?: string): KubeObject =>
  obj("Job", name, {
    namespace: "ns",
    finalizers: FIN,
    annotations: { "argocd.argoproj.io/hook": "PreSync", ...(policy ? { "argocd.argoproj.io/hook-delete-policy": policy } : {}) },
    ...(status ? { status } : {}),
  });

describe("terminating a running operation", () => {
  it.each([
    {
      name: "a still running hook is deleted and fails as Terminated",
      live: hookJob("a", {}),
      want: { deleted: true, finalizer: false, phase: "Failed", message: "Terminated" },
    },
    {
      name: "a hook that completed meanwhile keeps its real outcome and loses its finalizer",
      live: hookJob("a", { conditions: [{ type: "Complete", status: "True" }] }),
      want: { deleted: false, finalizer: true, phase: "Succeeded", message: "" },
    },
    {
      name: "a completed HookFailed hook is deleted",
      live: hookJob("a", { conditions: [{ type: "Complete", status: "True" }] }, "HookFailed"),
      policy: "HookFailed",
      want: { deleted: true, finalizer: false, phase: "Succeeded", message: "" },
    },
    {
      name: "a hook whose object is gone succeeds as Terminated",
      live: undefined,
      want: { deleted: false, finalizer: false, phase: "Succeeded", message: "Terminated" },
    },
  ])("$name", ({ live, want, ...row }) => {
    const policy = "policy" in row ? row.policy : undefined;
    const t = { ...task(hookJob("a", undefined, policy), { phase: "PreSync", hook: true, state: running }), ...(live ? { live } : {}) };
    const plan = planTerminate([t]);
    expect({
      deleted: plan.deleteHooks.length === 1,
      finalizer: plan.removeFinalizers.length === 1,
      phase: plan.tasks[0]?.state.hookPhase,
      message: plan.tasks[0]?.state.message,
    }).toEqual(want);
  });

  it("leaves running non-hook resources alone", () => {
    const deployment = obj("Deployment", "web", { namespace: "ns" });
    const plan = planTerminate([task(deployment, { state: running, live: deployment })]);
    expect(plan).toMatchObject({ deleteHooks: [], removeFinalizers: [] });
    expect(plan.tasks[0]?.state.hookPhase).toBe("Running");
  });
});

describe("the outcome of a termination", () => {
  /** An executor whose finalizer removals and deletions all fail. */
  const failing: StepExecutor = {
    execute: (actions, tasks) => {
      const broken = new Set([...actions.removeFinalizers, ...actions.deleteHooks].map(resultKey));
      const out = tasks.map((t) => (broken.has(resultKey(t)) ? withState(t, { ...t.state, hookPhase: "Error", message: "forbidden" }) : t));
      return Promise.resolve({ tasks: out, waitingForDeletion: false });
    },
    validate: () => Promise.resolve([]),
    apply: (t) => Promise.resolve(t),
  };
  const state: OperationState = { operation: { sync: {} }, phase: "Terminating", startedAt: "2030-01-01T00:00:00Z" };
  const hook = (hookState: TaskState, live?: KubeObject): SyncTask => ({
    ...task(hookJob("a"), { phase: "PreSync", hook: true, state: hookState }),
    ...(live ? { live } : {}),
  });

  it.each([
    {
      name: "a completed hook that keeps its finalizer shows the error on its result only",
      t: hook({ status: "Synced", hookPhase: "Succeeded" }),
      want: { phase: "Failed", message: "Operation terminated" },
    },
    {
      name: "a running hook that cannot be deleted makes the termination an error",
      t: hook(running, hookJob("a", {})),
      want: { phase: "Error", message: "Operation termination had errors" },
    },
  ])("$name", async ({ t, want }) => {
    const done = await terminate(state, [t], failing, { nowMs: 0, options: { dryRun: false, propagation: "Foreground" } });
    expect(done).toMatchObject(want);
  });
});
