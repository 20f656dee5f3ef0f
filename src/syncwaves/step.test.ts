import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { obj, wave } from "../../test/unit/syncwaves/builders.js";
import { simulate, World } from "../../test/unit/syncwaves/world.js";
import type { KubeObject } from "../kube/index.js";

const hook = (kind: string, name: string, type: string, extra: Record<string, string> = {}): KubeObject =>
  obj(kind, name, { namespace: "ns", annotations: { "argocd.argoproj.io/hook": type, ...extra } });

const app = (): KubeObject[] => [
  obj("Deployment", "web", { namespace: "ns", spec: { replicas: 1 } }),
  obj("Service", "web", { namespace: "ns" }),
  obj("ConfigMap", "cfg", { namespace: "ns" }),
  obj("Namespace", "ns"),
  hook("Job", "migrate", "PreSync"),
  hook("Job", "smoke", "PostSync"),
];

const applies = (w: World): string[] => w.log.filter((l) => l.startsWith("apply ")).map((l) => l.slice(6));

describe("a sync operation, step by step", () => {
  it("applies Namespace, PreSync hook, ConfigMap, Service, Deployment, PostSync hook in that order and succeeds", async () => {
    const w = new World();
    const out = await simulate(w, app());
    expect(applies(w)).toEqual(["Namespace/ns", "Job/migrate", "ConfigMap/cfg", "Service/web", "Deployment/web", "Job/smoke"]);
    expect(out.phase).toBe("Succeeded");
    expect(out.message).toBe("successfully synced (no more tasks)");
  });

  it("waits for the PreSync hook to complete before applying Sync resources", async () => {
    const w = new World();
    w.outcome.set("Job/migrate", "never");
    const out = await simulate(w, app(), { maxSteps: 6 });
    expect(out.phase).toBe("Running");
    expect(out.message).toBe("waiting for completion of hook batch/Job/migrate");
    expect(applies(w)).toEqual(["Namespace/ns", "Job/migrate"]);
  });

  it("fails the sync when a PreSync hook fails, runs the SyncFail hooks, and applies nothing else", async () => {
    const w = new World();
    w.outcome.set("Job/migrate", "fail");
    const out = await simulate(w, [...app(), hook("Job", "cleanup", "SyncFail")]);
    expect(out.phase).toBe("Failed");
    expect(out.message).toBe("one or more synchronization tasks completed unsuccessfully");
    expect(applies(w)).toEqual(["Namespace/ns", "Job/migrate", "Job/cleanup"]);
  });

  it("stops at the dry run when a target is invalid, applying nothing", async () => {
    const w = new World();
    w.failApply.add("ConfigMap/b");
    const out = await simulate(w, [
      obj("ConfigMap", "a", { namespace: "ns" }),
      obj("ConfigMap", "b", { namespace: "ns", annotations: wave(1) }),
    ]);
    expect(out.phase).toBe("Failed");
    expect(out.message).toBe("one or more objects failed to apply (dry run)");
    expect(applies(w)).toEqual([]);
  });

  it("deletes and re-creates a named SyncFail hook an earlier operation left, so it runs again", async () => {
    const w = new World();
    w.seed({
      ...hook("Job", "cleanup", "SyncFail"),
      status: { succeeded: 1, conditions: [{ type: "Complete", status: "True" }] },
    });
    w.outcome.set("Job/migrate", "fail");
    const out = await simulate(w, [...app(), hook("Job", "cleanup", "SyncFail")]);
    expect(out.phase).toBe("Failed");
    const log = w.log.filter((l) => l.endsWith("Job/cleanup"));
    expect(log).toEqual(["delete Job/cleanup", "apply Job/cleanup"]);
  });

  it("reports apply errors and failed SyncFail hooks in the final message", async () => {
    const w = new World();
    w.failWetApply.add("ConfigMap/b");
    w.failWetApply.add("Job/cleanup");
    const targets = [
      obj("ConfigMap", "a", { namespace: "ns" }),
      obj("ConfigMap", "b", { namespace: "ns", annotations: wave(1) }),
      hook("Job", "cleanup", "SyncFail"),
    ];
    const out = await simulate(w, targets);
    expect(out.phase).toBe("Failed");
    expect(out.message).toBe(
      "one or more synchronization tasks completed unsuccessfully, reason: ConfigMap/b is invalid\none or more SyncFail hooks failed, reason: Job/cleanup is invalid",
    );
    expect(applies(w)).toEqual(["ConfigMap/a"]);
  });

  it("succeeds right after applying a single wave without waiting for health", async () => {
    const w = new World();
    w.outcome.set("Deployment/web", "never");
    const out = await simulate(w, [obj("Deployment", "web", { namespace: "ns" }), obj("ConfigMap", "cfg", { namespace: "ns" })]);
    expect(out.steps).toHaveLength(1);
    expect(out.phase).toBe("Succeeded");
    expect(out.message).toBe("successfully synced (all tasks run)");
  });

  it("fails when a resource of a waited wave becomes Degraded, and keeps later waves unapplied", async () => {
    const w = new World();
    w.outcome.set("Deployment/web", "fail");
    const out = await simulate(w, [
      obj("Deployment", "web", { namespace: "ns" }),
      obj("ConfigMap", "late", { namespace: "ns", annotations: wave(1) }),
    ]);
    expect(out.phase).toBe("Failed");
    expect(applies(w)).toEqual(["Deployment/web"]);
  });

  it("prunes in reverse wave order, waiting between waves, when the operation prunes", async () => {
    const w = new World();
    const first = await simulate(
      w,
      [1, 2, 3].map((n) => obj("ConfigMap", `c${String(n)}`, { namespace: "ns", annotations: wave(n) })),
    );
    expect(first.phase).toBe("Succeeded");
    w.log.length = 0;
    const out = await simulate(w, [obj("ConfigMap", "keep", { namespace: "ns" })], { prune: true });
    expect(out.phase).toBe("Succeeded");
    expect(w.log.filter((l) => l.startsWith("delete"))).toEqual(["delete ConfigMap/c3", "delete ConfigMap/c2", "delete ConfigMap/c1"]);
  });

  it("skips pruning without the prune flag and records why", async () => {
    const w = new World();
    await simulate(w, [obj("ConfigMap", "old", { namespace: "ns" })]);
    const out = await simulate(w, [], {});
    expect(out.phase).toBe("Succeeded");
    expect(out.results.find((r) => r.name === "old")).toMatchObject({ status: "PruneSkipped", message: "ignored (requires pruning)" });
    expect(w.objects.size).toBe(1);
  });

  it("honours Prune=false on the live object", async () => {
    const w = new World();
    await simulate(w, [obj("ConfigMap", "old", { namespace: "ns", annotations: { "argocd.argoproj.io/sync-options": "Prune=false" } })]);
    const out = await simulate(w, [], { prune: true });
    expect(out.results.find((r) => r.name === "old")).toMatchObject({ status: "PruneSkipped", message: "ignored (no prune)" });
  });

  it("prunes PruneLast resources after every other wave", async () => {
    const w = new World();
    await simulate(w, [obj("ConfigMap", "old", { namespace: "ns", annotations: { "argocd.argoproj.io/sync-options": "PruneLast=true" } })]);
    w.log.length = 0;
    await simulate(w, [obj("ConfigMap", "a", { namespace: "ns", annotations: wave(2) })], { prune: true });
    expect(w.log).toEqual(["apply ConfigMap/a", "delete ConfigMap/old"]);
  });

  it("with ApplyOutOfSyncOnly, ends at once after the last changed resource, as all tasks run", async () => {
    const w = new World();
    const cms = ["a", "b", "c"].map((n) => obj("ConfigMap", n, { namespace: "ns" }));
    await simulate(w, cms);
    w.log.length = 0;
    const out = await simulate(w, cms, { appOptions: ["ApplyOutOfSyncOnly=true"], unmodified: ["ConfigMap/a", "ConfigMap/c"] });
    expect(applies(w)).toEqual(["ConfigMap/b"]);
    expect(out.message).toBe("successfully synced (all tasks run)");
    expect(out.results.map((r) => `${r.name} ${r.hookPhase ?? ""}`)).toEqual(["b Running"]);
  });
});

describe("hook delete policies", () => {
  it("deletes an existing hook before creating it again (BeforeHookCreation, the default)", async () => {
    const w = new World();
    const targets = [hook("Job", "pre", "PreSync"), obj("ConfigMap", "cfg", { namespace: "ns" })];
    await simulate(w, targets);
    w.log.length = 0;
    const out = await simulate(w, targets);
    expect(out.phase).toBe("Succeeded");
    expect(w.log).toEqual(["delete Job/pre", "apply Job/pre", "apply ConfigMap/cfg"]);
  });

  it("deletes HookSucceeded hooks once the whole operation succeeds", async () => {
    const w = new World();
    const out = await simulate(w, [
      hook("Job", "post", "PostSync", { "argocd.argoproj.io/hook-delete-policy": "HookSucceeded" }),
      obj("ConfigMap", "cfg", { namespace: "ns" }),
    ]);
    expect(out.phase).toBe("Succeeded");
    expect(w.log).toEqual(["apply ConfigMap/cfg", "apply Job/post", "delete Job/post"]);
  });

  it("keeps a HookSucceeded hook when the operation fails, and deletes HookFailed hooks", async () => {
    const w = new World();
    w.outcome.set("Job/b", "fail");
    const out = await simulate(w, [
      hook("Job", "a", "PreSync", { "argocd.argoproj.io/hook-delete-policy": "HookFailed" }),
      hook("Job", "b", "PreSync", { "argocd.argoproj.io/hook-delete-policy": "HookSucceeded" }),
    ]);
    expect(out.phase).toBe("Failed");
    expect(w.log.filter((l) => l.startsWith("delete"))).toEqual(["delete Job/a"]);
    expect(w.objects.has("batch/Job/ns/b")).toBe(true);
  });

  it("names generated hooks from revision, phase and start time, identically on every step", async () => {
    const w = new World();
    const gen = obj("Job", "", { namespace: "ns", generateName: "notify-", annotations: { "argocd.argoproj.io/hook": "PostSync" } });
    const out = await simulate(w, [gen, obj("ConfigMap", "cfg", { namespace: "ns" })]);
    expect(out.phase).toBe("Succeeded");
    expect(applies(w)).toEqual(["ConfigMap/cfg", "Job/notify-0123456-postsync-1700000000"]);
  });
});

describe("resuming and limits", () => {
  it("resumes from stored results after a restart without re-running finished hooks", async () => {
    const w = new World();
    const partial = await simulate(w, app(), { stopAfter: 3 });
    expect(partial.phase).toBe("Running");
    const before = applies(w).length;
    expect(applies(w)).toContain("Job/migrate");
    const out = await simulate(w, app(), { results: partial.results });
    expect(out.phase).toBe("Succeeded");
    const after = applies(w).slice(before);
    expect(after).not.toContain("Job/migrate");
    expect([...applies(w).slice(0, before), ...after]).toEqual([
      "Namespace/ns",
      "Job/migrate",
      "ConfigMap/cfg",
      "Service/web",
      "Deployment/web",
      "Job/smoke",
    ]);
  });

  it("fails with a clear message when the per-sync deadline passes", async () => {
    const w = new World();
    w.outcome.set("Job/migrate", "never");
    const out = await simulate(w, app(), { deadlineMs: 5000, stepMs: 1000 });
    expect(out.phase).toBe("Failed");
    expect(out.message).toBe("sync deadline of 5s exceeded; waiting for completion of hook batch/Job/migrate");
    expect(w.log).toContain("delete Job/migrate");
  });

  it("applies nothing in a dry-run operation and succeeds", async () => {
    const w = new World();
    const out = await simulate(w, app(), { dryRun: true });
    expect(out.phase).toBe("Succeeded");
    expect(w.log).toEqual([]);
  });

  it("checks every phase and wave of a dry-run operation in one step, ending with no more tasks", async () => {
    const w = new World();
    const out = await simulate(w, [...app(), obj("ConfigMap", "late", { namespace: "ns", annotations: wave(3) })], { dryRun: true });
    expect(out.steps).toHaveLength(1);
    expect(out.message).toBe("successfully synced (no more tasks)");
    expect(out.results.map((r) => r.name).sort()).toEqual(["cfg", "late", "migrate", "ns", "smoke", "web", "web"]);
    expect(out.results.every((r) => r.status === "Synced")).toBe(true);
  });

  it("applies resources in non-decreasing (phase, wave) order for any set of waves", async () => {
    const phaseRank: Record<string, number> = { PreSync: 0, Sync: 1, PostSync: 2 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ w: fc.integer({ min: -2, max: 2 }), phase: fc.constantFrom("Sync", "PreSync", "PostSync") }), {
          minLength: 1,
          maxLength: 8,
        }),
        async (specs) => {
          const w = new World();
          const targets = specs.map((s, i) =>
            s.phase === "Sync"
              ? obj("ConfigMap", `r${String(i)}`, { namespace: "ns", annotations: wave(s.w) })
              : hook("Job", `h${String(i)}`, s.phase, wave(s.w)),
          );
          const out = await simulate(w, targets);
          expect(out.phase).toBe("Succeeded");
          const order = applies(w).map((n) => {
            const i = Number(n.split("/")[1]!.slice(1));
            return [phaseRank[specs[i]!.phase]!, specs[i]!.w] as const;
          });
          for (let i = 1; i < order.length; i++) {
            const [p0, w0] = order[i - 1]!;
            const [p1, w1] = order[i]!;
            expect(p0 < p1 || (p0 === p1 && w0 <= w1)).toBe(true);
          }
          expect(order).toHaveLength(specs.length);
        },
      ),
      { numRuns: 100 },
    );
  });
});
