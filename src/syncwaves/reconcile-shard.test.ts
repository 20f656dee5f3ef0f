/**
 * The sync engine's reconciler in a sharded replica (docs/sharding.md#the-sync-engine): nothing for
 * an Application another replica owns, and the fence before a step's writes and before each write
 * of the Application.
 */
import { describe, expect, it } from "vitest";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { application } from "../../test/unit/syncwaves/builders.js";
import type { Application } from "../api/index.js";
import { FakeClock } from "../clock/index.js";
import { resources, type KubeObject } from "../kube/index.js";
import { silentLogger } from "../log/logger.js";
import type { ReconcileContext } from "../manager/worker.js";
import { AppReconciler } from "./reconcile.js";

const NOW = Date.parse("2030-01-01T12:00:00Z");
const KEY = "argocd/shop";
const SYNC = { sync: { revision: "abc123" }, initiatedBy: { username: "admin" } };

const ctx = (): ReconcileContext => ({
  reconcileId: "r",
  logger: silentLogger(),
  signal: new AbortController().signal,
  stopping: new AbortController().signal,
});

const configMap: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "web" }, data: { a: "1" } };

/** A reconciler over a fake cluster holding `shop` with a sync operation; `owns` answers in turn from `answers` (the last one repeats). */
function setup(answers: boolean[]): { client: FakeKubeClient; reconciler: AppReconciler; asked: () => number } {
  const client = new FakeKubeClient();
  client.seed(resources.Applications, application({ operation: SYNC }));
  let asked = 0;
  const reconciler = new AppReconciler({
    client,
    resolve: () => Promise.resolve(resources.ConfigMaps),
    source: { read: () => Promise.resolve({ revision: "abc123", objects: [structuredClone(configMap)] }) },
    clock: new FakeClock(NOW),
    log: silentLogger(),
    owns: (key) => {
      expect(key).toBe(KEY);
      return answers[Math.min(asked++, answers.length - 1)]!;
    },
  });
  return { client, reconciler, asked: () => asked };
}

const writes = (client: FakeKubeClient): string[] =>
  client.actions.filter((a) => a.verb !== "get" && a.verb !== "list").map((a) => `${a.verb} ${a.resource} ${a.name ?? ""}`);

describe("the sync engine's reconciler in a sharded replica", () => {
  it("runs a sync step and writes the Application while this replica owns it", async () => {
    const { client, reconciler } = setup([true]);
    expect(await reconciler.reconcile(KEY, ctx())).toEqual({ requeue: true });
    expect(writes(client)).toEqual(["patch configmaps settings", "update applications shop"]);
    // Application has no status subresource: the reconciler writes its status with an update.
    const written = client.actions.find((a) => a.verb === "update")?.object as Application;
    expect(written.status?.operationState?.phase).toBe("Succeeded");
  });

  it("reads and writes nothing for an Application another replica owns", async () => {
    const { client, reconciler, asked } = setup([false]);
    expect(await reconciler.reconcile(KEY, ctx())).toEqual({});
    expect(client.actions).toEqual([]);
    expect(asked()).toBe(1);
  });

  it("stops before the step's applies when ownership moved while it read, writing no condition", async () => {
    // Owned when the reconcile starts; no longer at the fence where the step's writes begin.
    const { client, reconciler } = setup([true, false]);
    expect(await reconciler.reconcile(KEY, ctx())).toEqual({});
    expect(writes(client)).toEqual([]);
  });

  it("applies the step but does not record it when ownership moved during the step: the new owner runs it again", async () => {
    const { client, reconciler } = setup([true, true, false]);
    expect(await reconciler.reconcile(KEY, ctx())).toEqual({});
    expect(writes(client)).toEqual(["patch configmaps settings"]);
  });

  it("does not write the status of a failed comparison once another replica owns the Application", async () => {
    const { client } = setup([true]);
    const failing = new AppReconciler({
      client,
      resolve: () => Promise.resolve(resources.ConfigMaps),
      source: { read: () => Promise.reject(new Error("repository unreachable")) },
      clock: new FakeClock(NOW),
      log: silentLogger(),
      owns: (() => {
        let n = 0;
        return () => n++ === 0;
      })(),
    });
    expect(await failing.reconcile(KEY, ctx())).toEqual({});
    expect(writes(client)).toEqual([]);
  });
});
