/**
 * The apiserver's server-side sharded list and watch (Kubernetes 1.36, alpha, the
 * `ShardedListAndWatch` feature gate) as docs/adr/0010-client-side-shard-filtering.md records it,
 * on a kube-apiserver with the gate on: a `shardSelector` of UID hash ranges selects the objects
 * whose 64-bit FNV-1a hash of `metadata.uid` (src/shard/assign.ts's `fnv1a64`) falls in a range, in
 * lists of built-in and custom resources and in watches; a built-in list echoes the selector in
 * `metadata.shardInfo`, a custom resource's list does not. When that last fact changes, this test
 * fails, and the decision is due for another look.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeApiClient, resources, type KubeObject } from "../../../src/kube/index.js";
import { fnv1a64 } from "../../../src/shard/assign.js";
import { startControlPlane, type ControlPlane } from "../../cluster/control-plane.js";

const NS = "sharded";
const LOWER_HALF = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
let cp: ControlPlane;
let client: KubeApiClient;

interface ListBody {
  metadata: { resourceVersion: string; shardInfo?: { selector: string } };
  items: KubeObject[];
}

const inLowerHalf = (o: KubeObject): boolean => fnv1a64(o.metadata?.uid ?? "") < 1n << 63n;
const names = (items: readonly KubeObject[]): string[] => items.map((o) => o.metadata?.name ?? "").sort();

/** Retries `fn` while the apiserver says a new custom resource's storage is still initialising (429). */
async function whenServed<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 100) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function list(path: string, query: Record<string, string>): Promise<ListBody> {
  return client.transport.request({ method: "GET", path, query }) as Promise<ListBody>;
}

beforeAll(async () => {
  cp = await startControlPlane({ components: ["etcd", "apiserver"], apiServerFlags: ["--feature-gates=ShardedListAndWatch=true"] });
  client = KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath });
  await client.create(resources.Namespaces, { metadata: { name: NS } });
  for (let i = 0; i < 16; i++) await client.create(resources.ConfigMaps, { metadata: { name: `cm-${String(i)}`, namespace: NS } });
  for (let i = 0; i < 16; i++)
    await whenServed(() =>
      client.create(resources.ApplicationSets, {
        apiVersion: "argoproj.io/v1alpha1",
        kind: "ApplicationSet",
        metadata: { name: `set-${String(i)}`, namespace: NS },
        spec: { generators: [], template: { metadata: {}, spec: { project: "default", destination: {} } } },
      }),
    );
}, 120_000);

afterAll(async () => {
  await client?.transport.close();
  await cp?.stop();
});

describe("server-side sharded list and watch (ShardedListAndWatch on)", () => {
  it("lists the ConfigMaps whose UID hashes into the range, and says so in metadata.shardInfo", async () => {
    const all = await list(`/api/v1/namespaces/${NS}/configmaps`, {});
    const some = await list(`/api/v1/namespaces/${NS}/configmaps`, { shardSelector: LOWER_HALF });
    expect(names(some.items)).toEqual(names(all.items.filter(inLowerHalf)));
    expect(some.items.length).toBeLessThan(all.items.length);
    expect(some.metadata.shardInfo).toEqual({ selector: LOWER_HALF });
    expect(all.metadata.shardInfo).toBeUndefined();
  });

  it("lists the ApplicationSets whose UID hashes into the ranges, without metadata.shardInfo", async () => {
    const path = `/apis/argoproj.io/v1alpha1/namespaces/${NS}/applicationsets`;
    const all = await whenServed(() => list(path, {}));
    const upperQuarters =
      "shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000') || shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')";
    const lower = await whenServed(() => list(path, { shardSelector: LOWER_HALF }));
    const upper = await whenServed(() => list(path, { shardSelector: upperQuarters }));
    expect(names(lower.items)).toEqual(names(all.items.filter(inLowerHalf)));
    expect(names(upper.items)).toEqual(names(all.items.filter((o) => !inLowerHalf(o))));
    expect(lower.items.length + upper.items.length).toBe(16);
    expect(lower.metadata.shardInfo).toBeUndefined();
  });

  it("watches only the ConfigMaps whose UID hashes into the range", async () => {
    const start = await list(`/api/v1/namespaces/${NS}/configmaps`, {});
    const stop = new AbortController();
    const seen: KubeObject[] = [];
    const watching = client.transport
      .stream(
        {
          method: "GET",
          path: `/api/v1/namespaces/${NS}/configmaps`,
          query: { watch: "true", shardSelector: LOWER_HALF, resourceVersion: start.metadata.resourceVersion },
          signal: stop.signal,
        },
        (line) => seen.push((JSON.parse(line) as { object: KubeObject }).object),
      )
      .catch(() => undefined);
    const created: KubeObject[] = [];
    for (let i = 0; i < 16; i++)
      created.push(await client.create(resources.ConfigMaps, { metadata: { name: `later-${String(i)}`, namespace: NS } }));
    const want = names(created.filter(inLowerHalf));
    for (let i = 0; i < 100 && names(seen).length < want.length; i++) await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    await watching;
    expect(names(seen)).toEqual(want);
  });
});
