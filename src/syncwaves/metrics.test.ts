import { describe, expect, it } from "vitest";
import type { Application } from "../api/index.js";
import { KubeApiError, KubeReason, resources, type KubeObject } from "../kube/index.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import type { ClusterAccess } from "./destinations.js";
import { accessFor, type K8sRequestLabels, type SyncMetrics } from "./metrics.js";

const app: Application = {
  metadata: { name: "web", namespace: "argocd" },
  spec: { project: "team", destination: { server: "https://kubernetes.default.svc", namespace: "web" } },
};
const cm = (name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "web" } });

function recorder(): SyncMetrics & { requests: K8sRequestLabels[] } {
  const requests: K8sRequestLabels[] = [];
  return { requests, reconciled: () => undefined, syncCompleted: () => undefined, k8sRequest: (l) => requests.push(l) };
}

function setup(id: string): { fake: FakeKubeClient; access: ClusterAccess } {
  const fake = new FakeKubeClient();
  fake.seed(resources.ConfigMaps, cm("a"));
  return { fake, access: { id, client: fake as unknown as ClusterAccess["client"], resolve: () => Promise.resolve(resources.ConfigMaps) } };
}

describe("counting an Application's requests to its destination", () => {
  it.each([
    {
      name: "a read of an existing object",
      call: (c: ClusterAccess["client"]) => c.get(resources.ConfigMaps, { namespace: "web", name: "a" }),
      verb: "Get",
      code: "200",
    },
    {
      name: "a read of a missing object",
      call: (c: ClusterAccess["client"]) => c.get(resources.ConfigMaps, { namespace: "web", name: "x" }),
      verb: "Get",
      code: "404",
    },
    { name: "a list", call: (c: ClusterAccess["client"]) => c.list(resources.ConfigMaps, { namespace: "web" }), verb: "List", code: "200" },
    { name: "a create", call: (c: ClusterAccess["client"]) => c.create(resources.ConfigMaps, cm("b")), verb: "Create", code: "200" },
    {
      name: "a delete",
      call: (c: ClusterAccess["client"]) => c.delete(resources.ConfigMaps, { namespace: "web", name: "a" }),
      verb: "Delete",
      code: "200",
    },
    {
      name: "a merge patch",
      call: (c: ClusterAccess["client"]) =>
        c.patch(resources.ConfigMaps, { namespace: "web", name: "a" }, { type: "merge", body: { data: { k: "v" } } }),
      verb: "Patch",
      code: "200",
    },
  ])("reports $name with its verb and response code", async ({ call, verb, code }) => {
    const { access } = setup("local");
    const metrics = recorder();
    await call(accessFor(access, app, metrics).client).catch(() => undefined);
    expect(metrics.requests).toEqual([
      {
        namespace: "argocd",
        name: "web",
        project: "team",
        server: "https://kubernetes.default.svc",
        verb,
        response_code: code,
        resource_kind: "configmaps",
        resource_namespace: "web",
      },
    ]);
  });

  it("reports a request that got no response with code 0 and still fails it", async () => {
    const { fake, access } = setup("https://10.0.0.1:6443");
    fake.interceptors.get = () =>
      Promise.reject(new KubeApiError({ status: 0, reason: KubeReason.Unknown, message: "connection refused" }));
    const metrics = recorder();
    await expect(accessFor(access, app, metrics).client.get(resources.ConfigMaps, { namespace: "web", name: "a" })).rejects.toThrow(
      "connection refused",
    );
    expect(metrics.requests.map((r) => [r.server, r.response_code])).toEqual([["https://10.0.0.1:6443", "0"]]);
  });

  it("leaves the access untouched when metrics are off", () => {
    const { access } = setup("local");
    expect(accessFor(access, app, undefined)).toBe(access);
  });
});
