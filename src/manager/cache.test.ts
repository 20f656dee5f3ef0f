import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { resources, type KubeObject } from "../kube/index.js";
import { cm, list, ScriptedSource, settle } from "../../test/support/scripted-informer.js";
import { parseSecret } from "../api/index.js";
import { applicationsSpec, informerKey, parserOf, SharedCache, withoutManagedFieldsEntries, type InformerSpec } from "./cache.js";
import { clusterSecretsSpec } from "./clusters.js";
import { repoSecretsSpec } from "./credentials.js";

const raw = (o: KubeObject): KubeObject => o;
const spec = (over: Partial<InformerSpec<KubeObject>> = {}): InformerSpec<KubeObject> => ({
  resource: resources.ConfigMaps,
  namespace: "ns",
  parse: raw,
  ...over,
});

describe("SharedCache", () => {
  it.each([
    { name: "the same resource, scope and selector", a: spec(), b: spec(), same: true },
    { name: "another namespace", a: spec(), b: spec({ namespace: "other" }), same: false },
    { name: "every namespace against one", a: spec(), b: spec({ namespace: undefined }), same: false },
    { name: "another label selector", a: spec({ labelSelector: "a=b" }), b: spec({ labelSelector: "a=c" }), same: false },
    { name: "another resource", a: spec(), b: spec({ resource: resources.Secrets }), same: false },
    {
      name: "another field selector",
      a: spec({ fieldSelector: "metadata.name=a" }),
      b: spec({ fieldSelector: "metadata.name=b" }),
      same: false,
    },
    {
      name: "the Applications of the controller and of the engine",
      a: applicationsSpec("argocd"),
      b: applicationsSpec("argocd"),
      same: true,
    },
    { name: "cluster Secrets against repository Secrets", a: clusterSecretsSpec("argocd"), b: repoSecretsSpec("argocd"), same: false },
  ])("hands one informer to every caller of $name (same: $same)", ({ a, b, same }) => {
    const cache = new SharedCache({ source: new ScriptedSource(), clock: new FakeClock() });
    const first = cache.informer(a);
    const second = cache.informer(b);
    expect(first === second).toBe(same);
    expect(cache.size).toBe(same ? 1 : 2);
    expect(informerKey(a) === informerKey(b)).toBe(same);
  });

  it("starts every informer, one asked for after the start too, and syncs them all", async () => {
    const source = new ScriptedSource();
    source.lists = [() => list("5", cm("a", "5"))];
    const cache = new SharedCache({ source, clock: new FakeClock() });
    const early = cache.informer(spec());
    cache.start();
    const late = cache.informer(spec({ labelSelector: "x=y" }));
    await cache.waitForSync();
    expect(cache.hasSynced()).toBe(true);
    expect(early.list().map((o) => o.metadata?.name)).toEqual(["a"]);
    expect(late.hasSynced()).toBe(true);
    expect(source.listCalls.map((c) => c.labelSelector ?? "")).toEqual(["", "x=y"]);
    await settle();
    expect(source.sessions).toHaveLength(2);
    await cache.stop();
  });

  it("stops every informer: their watches are aborted", async () => {
    const source = new ScriptedSource();
    source.lists = [() => list("1")];
    const cache = new SharedCache({ source, clock: new FakeClock() });
    cache.informer(spec());
    cache.informer(spec({ namespace: "b" }));
    cache.start();
    await cache.waitForSync();
    await settle();
    await cache.stop();
    expect(source.sessions.every((s) => s.options.signal?.aborted === true)).toBe(true);
  });
});

describe("managed fields", () => {
  const entry = { manager: "argocd-applicationset-controller", operation: "Update", fieldsType: "FieldsV1", fieldsV1: { "f:data": {} } };
  const secret: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s", namespace: "ns", labels: { a: "b" }, resourceVersion: "7", managedFields: [entry] },
    data: { k: "dg==" },
  };

  it("are dropped on receipt, every other field kept, the object received left as it was", () => {
    const parsed = parserOf(parseSecret)(secret);
    expect(parsed.metadata).not.toHaveProperty("managedFields");
    expect(parsed).toMatchObject({
      metadata: { name: "s", namespace: "ns", labels: { a: "b" }, resourceVersion: "7" },
      data: { k: "dg==" },
    });
    expect(secret.metadata?.managedFields).toEqual([entry]);
  });

  it("leave an object without them as it is", () => {
    const { managedFields: _m, ...meta } = secret.metadata!;
    const bare = { ...secret, metadata: meta };
    expect(withoutManagedFieldsEntries(bare)).toBe(bare);
  });
});
