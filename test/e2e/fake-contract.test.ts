/**
 * The fake client's deletion rules held to the real API server's: the same script runs against
 * both and must observe the same. An object with finalizers is only marked (deletionTimestamp set,
 * still readable); it goes once its last finalizer is removed; one without finalizers goes at once.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { FakeKubeClient, KubeApiClient, resources, type KubeClient } from "../../src/kube/index.js";

let real: KubeApiClient;
let ns: string;

beforeAll(async () => {
  real = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
  ns = `fake-contract-${randomBytes(3).toString("hex")}`;
  await real.create(resources.Namespaces, { metadata: { name: ns } });
});

afterAll(async () => {
  await real.delete(resources.Namespaces, { name: ns });
  await real.transport.close();
});

/** What a client shows along the script: whether the object exists and is marked, after each step. */
async function script(client: KubeClient, namespace: string): Promise<string[]> {
  const seen: string[] = [];
  const look = async (name: string): Promise<void> => {
    const o = await client.get(resources.ConfigMaps, { namespace, name }).catch(() => undefined);
    seen.push(o === undefined ? `${name}: gone` : `${name}: ${o.metadata?.deletionTimestamp == null ? "live" : "marked"} ${JSON.stringify(o.metadata?.finalizers ?? [])}`);
  };
  await client.create(resources.ConfigMaps, { metadata: { name: "plain", namespace } });
  await client.create(resources.ConfigMaps, { metadata: { name: "held", namespace, finalizers: ["example.com/a", "example.com/b"] } });
  await client.delete(resources.ConfigMaps, { namespace, name: "plain" });
  await look("plain");
  await client.delete(resources.ConfigMaps, { namespace, name: "held" });
  await look("held");
  await client.patch(resources.ConfigMaps, { namespace, name: "held" }, { type: "json", ops: [{ op: "remove", path: "/metadata/finalizers/0" }] });
  await look("held");
  await client.patch(resources.ConfigMaps, { namespace, name: "held" }, { type: "merge", body: { metadata: { finalizers: null } } });
  await look("held");
  return seen;
}

describe("the fake client deletes as the API server does", () => {
  it("marks an object with finalizers and removes it with its last finalizer", async () => {
    const want = ["plain: gone", 'held: marked ["example.com/a","example.com/b"]', 'held: marked ["example.com/b"]', "held: gone"];
    expect(await script(real, ns)).toEqual(want);
    expect(await script(new FakeKubeClient(), ns)).toEqual(want);
  });
});
