import { describe, expect, it } from "vitest";
import type { Application, ApplicationSet } from "../api/index.js";
import { FakeClock } from "../clock/index.js";
import { resources } from "../kube/index.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { silentLogger } from "../log/logger.js";
import { PlanExecutor } from "./apply.js";
import { MemoryEventSink } from "./events.js";
import { AppSetReconciler, type ControllerCaches, type GenerateFn } from "./reconciler.js";
import type { Generation } from "./snapshot.js";
import { appSet, generated, live, rendered, settings } from "../../test/support/controller-builders.js";

function setup(
  sets: ApplicationSet[],
  apps: Application[],
  generation: Generation,
  stored: ApplicationSet[] = sets,
  owns?: (key: string) => boolean,
) {
  const client = new FakeKubeClient();
  client.seed(resources.ApplicationSets, ...stored);
  client.seed(resources.Applications, ...apps);
  const caches: ControllerCaches = {
    appSet: (ns, name) => sets.find((s) => s.metadata.namespace === ns && s.metadata.name === name),
    ownedApps: (_ns, name) => apps.filter((a) => a.metadata.ownerReferences?.some((r) => r.name === name)),
    app: (_ns, name) => apps.find((a) => a.metadata.name === name),
    projectNames: () => new Set(["default"]),
    clusters: () => [],
  };
  const generated = { calls: 0 };
  const generate: GenerateFn = () => {
    generated.calls++;
    return Promise.resolve(generation);
  };
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const executor = new PlanExecutor({
    client,
    events: new MemoryEventSink(),
    clock,
    logger: silentLogger(),
    concurrency: 2,
    dryRun: false,
  });
  const reconciler = new AppSetReconciler({ caches, generate, executor, settings: settings(), clock, ...(owns ? { owns } : {}) });
  const ctx = { reconcileId: "r1", logger: silentLogger(), signal: new AbortController().signal, stopping: new AbortController().signal };
  return { client, reconciler, ctx, generated };
}

describe("AppSetReconciler", () => {
  it("does nothing for an ApplicationSet that is not in the cache", async () => {
    const { client, reconciler, ctx } = setup([], [], generated([]));
    expect(await reconciler.reconcile("argocd/missing", ctx)).toEqual({});
    expect(client.actions).toEqual([]);
  });

  it("on a generator failure writes only the status and asks to come back in 3 minutes", async () => {
    const set = appSet();
    const { client, reconciler, ctx } = setup([set], [live("a", set)], {
      ok: false,
      reason: "ApplicationGenerationFromParamsError",
      message: "git fetch failed",
    });
    expect(await reconciler.reconcile("argocd/guestbook", ctx)).toEqual({ requeueAfterMs: 180_000 });
    expect(client.actions.map((a) => `${a.verb} ${a.resource}`)).toEqual(["patchStatus applicationsets"]);
  });

  it("creates what is missing and returns the generators' requeue", async () => {
    const set = appSet();
    const { client, reconciler, ctx } = setup([set], [], generated([rendered("a")], 60_000));
    expect(await reconciler.reconcile("argocd/guestbook", ctx)).toEqual({ requeueAfterMs: 60_000 });
    expect(client.peek(resources.Applications, { namespace: "argocd", name: "a" })).toBeDefined();
  });

  it("plans again from a fresh read when the cached ApplicationSet is older than the stored one, generating once", async () => {
    const stored = appSet("guestbook", { metadata: { labels: { edited: "later" } } });
    const cached = appSet("guestbook", { metadata: { resourceVersion: "9", generation: 1 } });
    const { client, reconciler, ctx, generated: gen } = setup([cached], [], generated([rendered("a")]), [stored]);
    await reconciler.reconcile("argocd/guestbook", ctx);
    const writes = client.actions.filter((a) => a.resource === "applicationsets").map((a) => a.verb);
    expect({ writes, generations: gen.calls }).toEqual({ writes: ["patchStatus", "get", "patchStatus"], generations: 1 });
    expect(client.peek(resources.Applications, { namespace: "argocd", name: "a" })).toBeDefined();
  });

  describe("with sharded replicas", () => {
    const three = [generated(["a", "b", "c"].map((n) => rendered(n)))][0]!;

    it("does nothing for an ApplicationSet another replica owns, not even reading it", async () => {
      const set = appSet();
      const asked: string[] = [];
      const {
        client,
        reconciler,
        ctx,
        generated: gen,
      } = setup([set], [], three, [set], (key) => {
        asked.push(key);
        return false;
      });
      expect(await reconciler.reconcile("argocd/guestbook", ctx)).toEqual({});
      expect({ actions: client.actions, generated: gen.calls, asked }).toEqual({ actions: [], generated: 0, asked: ["argocd/guestbook"] });
    });

    it("writes nothing more once another replica owns the ApplicationSet mid-pass, and ends the pass without an error", async () => {
      const set = appSet();
      // Owned for the check at the start and the first two writes, then lost.
      let checks = 0;
      const { client, reconciler, ctx } = setup([set], [], three, [set], () => ++checks <= 3);
      expect(await reconciler.reconcile("argocd/guestbook", ctx)).toEqual({});
      const writes = client.actions.filter((a) => a.verb !== "get" && a.verb !== "list");
      expect(writes.length).toBeLessThan(3);
      expect(writes.every((a) => a.resource === "applications")).toBe(true);
    });

    it("runs as before while it owns the ApplicationSet", async () => {
      const set = appSet();
      const { client, reconciler, ctx } = setup([set], [], three, [set], () => true);
      await reconciler.reconcile("argocd/guestbook", ctx);
      expect(client.actions.filter((a) => a.verb === "create").map((a) => a.name)).toEqual(["a", "b", "c"]);
    });
  });
});
