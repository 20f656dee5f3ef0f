import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KubeApiError, KubeReason, resources, type KubeObject, type ResourceDescriptor } from "../kube/index.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { LIST_THRESHOLD, readLive, type Candidate } from "./live.js";

const KINDS: Record<string, ResourceDescriptor> = {
  ConfigMap: resources.ConfigMaps,
  Secret: resources.Secrets,
  Namespace: resources.Namespaces,
};
const resolve = (o: KubeObject): Promise<ResourceDescriptor> => {
  const r = KINDS[o.kind ?? ""];
  return r
    ? Promise.resolve(r)
    : Promise.reject(new KubeApiError({ status: 404, reason: KubeReason.NotFound, message: `no kind ${o.kind ?? ""}` }));
};
const cm = (name: string, namespace = "web"): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace } });
const want = (kind: string, name: string, namespace?: string): Candidate => ({
  apiVersion: "v1",
  kind,
  name,
  ...(namespace ? { namespace } : {}),
});

function cluster(): FakeKubeClient {
  const fake = new FakeKubeClient();
  fake.seed(resources.ConfigMaps, cm("a"), cm("b"), cm("c"), cm("d"), cm("other"), cm("a", "elsewhere"));
  fake.seed(resources.Secrets, { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "web" } });
  fake.seed(resources.Namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: "web" } });
  return fake;
}

const names = (objs: KubeObject[]): string[] =>
  objs.map((o) => `${o.kind ?? ""}/${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`).sort();

describe("reading the live objects of an Application", () => {
  const many = ["a", "b", "c", "d", "missing"].map((n) => want("ConfigMap", n, "web"));
  it.each([
    {
      name: "many objects of one kind and namespace are read with one LIST, the others with GETs",
      candidates: [...many, want("Secret", "s", "web"), want("Namespace", "web"), want("Widget", "w", "web")],
      found: ["ConfigMap/web/a", "ConfigMap/web/b", "ConfigMap/web/c", "ConfigMap/web/d", "Namespace//web", "Secret/web/s"],
      calls: ["get secrets web/s", "get namespaces /web", "list configmaps web/"],
    },
    {
      name: "a few objects of one kind are read with GETs",
      candidates: many.slice(0, LIST_THRESHOLD - 1),
      found: ["ConfigMap/web/a", "ConfigMap/web/b", "ConfigMap/web/c"],
      calls: ["get configmaps web/a", "get configmaps web/b", "get configmaps web/c"],
    },
  ])("$name", async ({ candidates, found, calls }) => {
    const fake = cluster();
    expect(names(await readLive({ client: fake, resolve }, candidates))).toEqual(found);
    expect(fake.actions.map((a) => `${a.verb} ${a.resource} ${a.namespace ?? ""}/${a.name ?? ""}`).sort()).toEqual([...calls].sort());
  });

  it("falls back to GETs when the LIST is forbidden", async () => {
    const fake = cluster();
    fake.interceptors.list = () => Promise.reject(new KubeApiError({ status: 403, reason: KubeReason.Forbidden, message: "forbidden" }));
    expect(names(await readLive({ client: fake, resolve }, many))).toEqual([
      "ConfigMap/web/a",
      "ConfigMap/web/b",
      "ConfigMap/web/c",
      "ConfigMap/web/d",
    ]);
    expect(fake.actions.filter((a) => a.verb === "get")).toHaveLength(many.length);
  });

  it("finds exactly the existing candidates, however they group", async () => {
    const existing = ["a", "b", "c", "d", "other"];
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...existing, "x", "y", "z"), { maxLength: 8 }),
        fc.boolean(),
        async (picked, elsewhere) => {
          const candidates = [
            ...picked.map((n) => want("ConfigMap", n, "web")),
            ...(elsewhere ? [want("ConfigMap", "a", "elsewhere")] : []),
          ];
          const got = names(await readLive({ client: cluster(), resolve }, candidates));
          const expected = [
            ...picked.filter((n) => existing.includes(n)).map((n) => `ConfigMap/web/${n}`),
            ...(elsewhere ? ["ConfigMap/elsewhere/a"] : []),
          ].sort();
          expect(got).toEqual(expected);
        },
      ),
    );
  });
});
