import { describe, expect, it } from "vitest";
import { parseApplication, type Application } from "../api/index.js";
import { FakeClock } from "../clock/index.js";
import { Informer, resources } from "../kube/index.js";
import { list, ScriptedSource, settle } from "../../test/support/scripted-informer.js";
import { informerWriteThrough } from "./apply-cache.js";
import { appSet, live } from "../../test/support/controller-builders.js";

async function cached(app: Application): Promise<Informer<Application>> {
  const source = new ScriptedSource();
  source.lists = [() => list("10", app)];
  const apps = new Informer<Application>({
    source,
    resource: resources.Applications,
    clock: new FakeClock(),
    idleTimeoutMs: 600_000,
    parse: (raw) => {
      const r = parseApplication(raw);
      if (!r.ok) throw r.error;
      return r.value;
    },
  });
  apps.start();
  await apps.waitForSync();
  await settle();
  return apps;
}

describe("informerWriteThrough", () => {
  it.each([
    // name; the cached Application's finalizers; what the cache calls; whether it is still cached
    { name: "a delete of an Application without finalizers evicts it", finalizers: [], act: "deleted", kept: false },
    {
      name: "a delete that leaves the Application terminating keeps it",
      finalizers: ["resources-finalizer.argocd.argoproj.io"],
      act: "deleted",
      kept: true,
    },
    {
      name: "a NotFound evicts even an Application with finalizers",
      finalizers: ["resources-finalizer.argocd.argoproj.io"],
      act: "gone",
      kept: false,
    },
  ] as const)("$name", async ({ finalizers, act, kept }) => {
    const apps = await cached(live("a", appSet(), { metadata: { finalizers: [...finalizers], resourceVersion: "9" } }));
    informerWriteThrough(apps)[act]("argocd", "a");
    expect(apps.get("argocd", "a") !== undefined).toBe(kept);
    await apps.stop();
  });

  it("stores what a write returned at once", async () => {
    const apps = await cached(live("a", appSet(), { metadata: { resourceVersion: "9" } }));
    informerWriteThrough(apps).written(live("a", appSet(), { spec: { project: "new" }, metadata: { resourceVersion: "12" } }));
    expect([apps.get("argocd", "a")?.spec.project, apps.get("argocd", "a")?.metadata.resourceVersion]).toEqual(["new", "12"]);
    await apps.stop();
  });
});
