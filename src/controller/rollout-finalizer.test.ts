import { describe, expect, it } from "vitest";
import type { ApplicationSet } from "../api/index.js";
import { FakeClock } from "../clock/index.js";
import { resources } from "../kube/index.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { silentLogger } from "../log/logger.js";
import { PlanExecutor } from "./apply.js";
import { MemoryEventSink } from "./events.js";
import { AppSetReconciler, type ControllerCaches, type GenerateFn } from "./reconciler.js";
import { appSet, generated, rendered, settings } from "../../test/support/controller-builders.js";

const FINALIZER = "resources-finalizer.argocd.argoproj.io";
const steps = [{ matchExpressions: [{ key: "env", operator: "In", values: ["dev"] }] }];

function reverseSet(o: { deleting?: boolean; order?: string } = {}): ApplicationSet {
  return appSet("guestbook", {
    spec: { strategy: { type: "RollingSync", deletionOrder: o.order ?? "Reverse", rollingSync: { steps } } },
    metadata: { resourceVersion: "7", ...(o.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["other"] } : {}) },
  });
}

/** Reconciles `set` once; returns the client's writes as seen when the generators ran, and after the pass. */
async function reconcileOnce(set: ApplicationSet, progressiveSyncs: boolean) {
  const client = new FakeKubeClient();
  client.seed(resources.ApplicationSets, set);
  const caches: ControllerCaches = {
    appSet: () => set,
    ownedApps: () => [],
    app: () => undefined,
    projectNames: () => new Set(["default"]),
    clusters: () => [],
  };
  const verbs = (): string[] => client.actions.map((a) => `${a.verb} ${a.resource}`);
  let atGeneration: string[] | undefined;
  const generate: GenerateFn = () => {
    atGeneration = verbs();
    return Promise.resolve(generated([rendered("dev-1", { metadata: { labels: { env: "dev" } } })]));
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
  const reconciler = new AppSetReconciler({ caches, generate, executor, settings: settings({ progressiveSyncs }), clock });
  await reconciler.reconcile("argocd/guestbook", {
    reconcileId: "r",
    logger: silentLogger(),
    signal: new AbortController().signal,
    stopping: new AbortController().signal,
  });
  const stored = client.peek(resources.ApplicationSets, { namespace: "argocd", name: "guestbook" }) as ApplicationSet | undefined;
  return { atGeneration: atGeneration ?? [], after: verbs(), finalizers: stored?.metadata.finalizers ?? [] };
}

describe("the Reverse deletion finalizer", () => {
  it.each([
    {
      name: "is added before generating when progressive syncs are on and deletion is Reverse",
      set: reverseSet(),
      ps: true,
      atGeneration: ["patch applicationsets"],
      finalizers: [FINALIZER],
    },
    { name: "is not added with progressive syncs off", set: reverseSet(), ps: false, atGeneration: [], finalizers: [] },
    {
      name: "is not added when deletion is AllAtOnce",
      set: reverseSet({ order: "AllAtOnce" }),
      ps: true,
      atGeneration: [],
      finalizers: [],
    },
  ])("$name", async ({ set, ps, atGeneration, finalizers }) => {
    const r = await reconcileOnce(set, ps);
    expect(r.atGeneration).toEqual(atGeneration);
    expect(r.finalizers).toEqual(finalizers);
    expect(r.after.filter((v) => v === "patch applicationsets")).toHaveLength(atGeneration.length);
  });

  it("is never added to an ApplicationSet being deleted", async () => {
    const r = await reconcileOnce(reverseSet({ deleting: true }), true);
    expect(r.after).not.toContain("patch applicationsets");
  });
});
