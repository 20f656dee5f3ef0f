import { describe, expect, it } from "vitest";
import { obj, task } from "../../test/unit/syncwaves/builders.js";
import type { KubeObject } from "../kube/index.js";
import { planTerminate } from "./terminate.js";

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
