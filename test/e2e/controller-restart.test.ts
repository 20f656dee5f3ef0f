/**
 * The controller across an apiserver restart, on a private control plane: a restart in the middle of
 * a large reconcile loses no Application (the failed writes are retried and every Application ends up
 * whole), and changes made after the restart are picked up through the re-established watches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeApiClient, resources } from "../../src/kube/index.js";
import { CountingClient, inProcessController } from "../../bench/controller-client.js";
import { startControlPlane, type ControlPlane } from "../cluster/control-plane.js";
import { applications, conditionRows, controllerNamespace, eventually, listAppSet, readAppSet } from "./support/controller.js";

let cp: ControlPlane;
let client: KubeApiClient;

beforeAll(async () => {
  cp = await startControlPlane({ components: ["etcd", "apiserver"] });
  client = KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath });
});

afterAll(async () => {
  await client.transport.close();
  await cp.stop();
});

const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `app-${String(i).padStart(3, "0")}`);

describe("the controller across an apiserver restart", () => {
  it("loses no Application when the apiserver restarts mid-reconcile, and follows changes made afterwards", async () => {
    const ns = await controllerNamespace(client, "ctl-restart");
    const counting = new CountingClient(KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath }));
    const controller = inProcessController(counting, { namespace: ns, concurrentApplicationUpdates: 2 });
    await controller.start();
    try {
      const want = names(300);
      await client.create(resources.ApplicationSets, listAppSet("big", ns, want));
      await eventually("the first Applications", async () => ((await applications(client, ns)).size >= 20 ? true : undefined));
      await cp.restartApiServer();
      await eventually(
        "every Application",
        async () => ((await applications(client, ns)).size === want.length ? true : undefined),
        120_000,
      );
      await eventually(
        "ResourcesUpToDate",
        async () =>
          conditionRows(await readAppSet(client, ns, "big")).some((r) => r[0] === "ResourcesUpToDate" && r[1] === "True")
            ? true
            : undefined,
        60_000,
      );
      for (const app of (await applications(client, ns)).values()) expect(app.metadata.ownerReferences?.[0]?.name).toBe("big");

      await client.patch(
        resources.ApplicationSets,
        { namespace: ns, name: "big" },
        { type: "merge", body: { spec: { generators: [{ list: { elements: [...want, "extra"].map((n) => ({ name: n })) } }] } } },
      );
      await eventually(
        "the Application added after the restart",
        async () => ((await applications(client, ns)).has("extra") ? true : undefined),
        60_000,
      );
    } finally {
      await controller.stop(5_000);
      await counting.inner.transport.close();
    }
  });
});
