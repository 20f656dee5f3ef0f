import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { obj, wave } from "../../test/unit/syncwaves/builders.js";
import type { KubeObject } from "../kube/index.js";
import { hookFinalizers, planAppDeletion, type AppDeletionInput, type AppDeletionStep } from "./app-deletion.js";

const PRE = "pre-delete-finalizer.argocd.argoproj.io";
const POST = "post-delete-finalizer.argocd.argoproj.io";
const CASCADE = "resources-finalizer.argocd.argoproj.io";

const app = (finalizers: string[], annotations: Record<string, string> = {}): AppDeletionInput["app"] => ({
  metadata: { name: "app", namespace: "argocd", finalizers, deletionTimestamp: "2030-01-01T00:00:00Z", annotations },
});

const job = (name: string, status: Record<string, unknown> | undefined, annotations: Record<string, string> = {}): KubeObject =>
  obj("Job", name, { namespace: "ns", annotations, ...(status ? { status } : {}) });
const complete = { conditions: [{ type: "Complete", status: "True" }] };
const failedStatus = { conditions: [{ type: "Failed", status: "True", message: "boom" }] };

function plan(partial: Partial<AppDeletionInput> & { finalizers: string[] }): AppDeletionStep {
  return planAppDeletion({ app: app(partial.finalizers), preHooks: [], postHooks: [], live: [], appOptions: [], ...partial });
}

const names = (objects: readonly KubeObject[]): string[] => objects.map((o) => `${o.kind ?? ""}/${o.metadata?.name ?? ""}`);

describe("planning an Application's deletion", () => {
  it.each([
    { name: "creates PreDelete hooks that do not exist yet", live: [], want: { kind: "createHooks", objects: ["Job/pre"] } },
    {
      name: "waits while a PreDelete hook runs",
      live: [job("pre", {})],
      want: { kind: "wait", message: "waiting for completion of PreDelete hook batch/Job/pre" },
    },
    {
      name: "drops the PreDelete finalizer once every hook completed",
      live: [job("pre", complete)],
      want: { kind: "removeFinalizers", finalizers: [PRE] },
    },
    {
      name: "deletes a failed PreDelete hook and reports the failure",
      live: [job("pre", failedStatus)],
      want: { kind: "hooksFailed", objects: ["Job/pre"], message: "PreDelete hook batch/Job/pre failed" },
    },
  ])("$name", ({ live, want }) => {
    const step = plan({ finalizers: [PRE, CASCADE], preHooks: [job("pre", undefined)], live });
    expect(step.kind).toBe(want.kind);
    if (step.kind === "createHooks") expect(names(step.hooks)).toEqual(want.objects);
    if (step.kind === "hooksFailed")
      expect({ objects: names(step.remove), message: step.message }).toEqual({ objects: want.objects, message: want.message });
    if (step.kind === "wait") expect(step.message).toBe(want.message);
    if (step.kind === "removeFinalizers") expect(step.finalizers).toEqual(want.finalizers);
  });

  it("runs no resource deletion while the PreDelete finalizer is present", () => {
    const step = plan({
      finalizers: [CASCADE, PRE],
      preHooks: [job("pre", undefined)],
      live: [obj("ConfigMap", "a", { namespace: "ns" })],
    });
    expect(step.kind).toBe("createHooks");
  });

  it("deletes the highest wave first, one wave per pass", () => {
    const live = [0, 2, 1, 2].map((w, i) => obj("ConfigMap", `cm${String(i)}-w${String(w)}`, { namespace: "ns", annotations: wave(w) }));
    const step = plan({ finalizers: [CASCADE], live });
    expect(step).toMatchObject({ kind: "delete", propagation: "Foreground" });
    if (step.kind === "delete") expect(names(step.objects)).toEqual(["ConfigMap/cm1-w2", "ConfigMap/cm3-w2"]);
  });

  it("waits while any object it deletes is still being deleted", () => {
    const live = [
      obj("ConfigMap", "a", { namespace: "ns", deletionTimestamp: "2030-01-01T00:00:00Z" }),
      obj("ConfigMap", "b", { namespace: "ns" }),
    ];
    expect(plan({ finalizers: [CASCADE], live })).toEqual({ kind: "wait", message: "waiting for deletion of /ConfigMap/a" });
  });

  it("takes the hook finalizer off a sync hook that is being deleted instead of waiting on it forever", () => {
    const held = obj("Job", "old-hook", {
      namespace: "ns",
      deletionTimestamp: "2030-01-01T00:00:00Z",
      finalizers: ["argocd.argoproj.io/hook-finalizer"],
    });
    const step = plan({ finalizers: [CASCADE], live: [held, obj("ConfigMap", "b", { namespace: "ns" })] });
    expect(step.kind).toBe("delete");
    if (step.kind === "delete") expect(names(step.objects)).toEqual(["Job/old-hook"]);
  });

  it.each([
    { name: "the plain finalizer deletes in the foreground", finalizer: CASCADE, want: "Foreground" },
    { name: "/foreground deletes in the foreground", finalizer: `${CASCADE}/foreground`, want: "Foreground" },
    { name: "/background deletes in the background", finalizer: `${CASCADE}/background`, want: "Background" },
  ])("$name", ({ finalizer, want }) => {
    expect(plan({ finalizers: [finalizer], live: [obj("ConfigMap", "a", { namespace: "ns" })] })).toMatchObject({
      kind: "delete",
      propagation: want,
    });
  });

  it.each([
    { name: "a CRD", o: obj("CustomResourceDefinition", "x.example.com") },
    {
      name: "a Delete=false resource",
      o: obj("ConfigMap", "k", { namespace: "ns", annotations: { "argocd.argoproj.io/sync-options": "Delete=false" } }),
    },
    { name: "a helm keep resource", o: obj("ConfigMap", "k", { namespace: "ns", annotations: { "helm.sh/resource-policy": "keep" } }) },
    { name: "the Application itself", o: obj("Application", "app", { apiVersion: "argoproj.io/v1alpha1", namespace: "argocd" }) },
  ])("keeps $name and then drops the cascade finalizer", ({ o }) => {
    expect(plan({ finalizers: [CASCADE, "other"], live: [o] })).toEqual({ kind: "removeFinalizers", finalizers: [CASCADE] });
  });

  it("waits for approval of a Delete=confirm resource, and deletes it once approved after the deletion", () => {
    const live = [obj("ConfigMap", "c", { namespace: "ns", annotations: { "argocd.argoproj.io/sync-options": "Delete=confirm" } })];
    const base = { preHooks: [], postHooks: [], live, appOptions: [] };
    expect(planAppDeletion({ ...base, app: app([CASCADE]) })).toEqual({
      kind: "wait",
      message: "waiting for deletion confirmation of /ConfigMap/c",
    });
    const approved = app([CASCADE], { "argocd.argoproj.io/deletion-approved": "2030-01-01T00:00:05Z" });
    expect(planAppDeletion({ ...base, app: approved }).kind).toBe("delete");
  });

  it("runs PostDelete hooks only after the cascade finalizer is gone", () => {
    const post = [job("post", undefined)];
    const live = [obj("ConfigMap", "a", { namespace: "ns" })];
    expect(plan({ finalizers: [CASCADE, POST], postHooks: post, live }).kind).toBe("delete");
    expect(plan({ finalizers: [POST], postHooks: post, live: [] })).toMatchObject({ kind: "createHooks", stage: "PostDelete" });
  });

  it.each([
    { name: "HookSucceeded hooks are deleted when all succeeded", status: complete, policy: "HookSucceeded", want: "deleteHooks" },
    { name: "HookFailed hooks are kept when all succeeded", status: complete, policy: "HookFailed", want: "removeFinalizers" },
    { name: "HookFailed hooks are deleted when one failed", status: failedStatus, policy: "HookFailed", want: "deleteHooks" },
    { name: "default-policy hooks are kept", status: complete, policy: undefined, want: "removeFinalizers" },
  ])("cleanup: $name", ({ status, policy, want }) => {
    const annotations: Record<string, string> = policy ? { "argocd.argoproj.io/hook-delete-policy": policy } : {};
    const hook = job("post", status, annotations);
    const step = plan({ finalizers: [`${POST}/cleanup`], postHooks: [job("post", undefined, annotations)], live: [hook] });
    expect(step.kind).toBe(want);
  });

  it("is done when none of its finalizers is present", () => {
    expect(plan({ finalizers: ["example.com/other"], live: [obj("ConfigMap", "a", { namespace: "ns" })] })).toEqual({ kind: "done" });
  });

  it("never deletes a wave below one that still has objects to delete", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 1, maxLength: 12 }), (waves) => {
        const live = waves.map((w, i) => obj("ConfigMap", `c${String(i)}`, { namespace: "ns", annotations: wave(w) }));
        const step = plan({ finalizers: [CASCADE], live });
        if (step.kind !== "delete") return false;
        const deleted = new Set(step.objects.map((o) => o.metadata?.annotations?.["argocd.argoproj.io/sync-wave"]));
        return deleted.size === 1 && deleted.has(String(Math.max(...waves)));
      }),
    );
  });
});

describe("deletion-hook finalizers of a live Application", () => {
  it.each([
    {
      name: "adds both PreDelete finalizers when PreDelete hooks appear",
      current: ["x"],
      pre: true,
      post: false,
      want: ["x", PRE, `${PRE}/cleanup`],
    },
    {
      name: "removes the PostDelete pair when the hooks are gone",
      current: [POST, "x", `${POST}/cleanup`],
      pre: false,
      post: false,
      want: ["x"],
    },
    {
      name: "keeps what is already right",
      current: [CASCADE, POST, `${POST}/cleanup`],
      pre: false,
      post: true,
      want: [CASCADE, POST, `${POST}/cleanup`],
    },
  ])("$name", ({ current, pre, post, want }) => {
    expect(hookFinalizers(current, pre, post)).toEqual(want);
  });
});
