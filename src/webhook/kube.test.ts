import { describe, expect, it } from "vitest";
import { parseApplicationSet, type ApplicationSet } from "../api/index.js";
import { KubeApiError, resources, type KubeObject } from "../kube/index.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { annotationRefresher, appSetLister, argoSettingsReader } from "./kube.js";

function raw(name: string, namespace: string): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name, namespace },
    spec: {
      generators: [{ list: { elements: [] } }],
      template: { metadata: { name: "x" }, spec: { project: "default", destination: {} } },
    },
  };
}

function typed(name: string, namespace: string): ApplicationSet {
  const r = parseApplicationSet(raw(name, namespace));
  if (!r.ok) throw r.error;
  return r.value;
}

const names = (list: readonly ApplicationSet[]): string[] =>
  list.map((a) => `${a.metadata.namespace ?? ""}/${a.metadata.name ?? ""}`).sort();

describe("appSetLister", () => {
  it("lists from the synced informer, keeping only allowed namespaces, without calling the API", async () => {
    const client = new FakeKubeClient();
    const informer = { hasSynced: () => true, list: () => [typed("a", "argocd"), typed("b", "team-x")] };
    const list = appSetLister({ client, informer, scope: undefined, allowed: (ns) => ns === "argocd" });
    expect(names(await list())).toEqual(["argocd/a"]);
    expect(client.actions).toEqual([]);
  });

  it("lists the scope from the API while the informer has not synced, skipping what does not parse", async () => {
    const client = new FakeKubeClient();
    client.seed(
      resources.ApplicationSets,
      raw("a", "argocd"),
      { ...raw("broken", "argocd"), spec: { generators: "no" } },
      raw("c", "other"),
    );
    const informer = { hasSynced: () => false, list: () => [] };
    const list = appSetLister({ client, informer, scope: "argocd", allowed: () => true });
    expect(names(await list())).toEqual(["argocd/a"]);
    expect(client.actions.map((a) => [a.verb, a.namespace])).toEqual([["list", "argocd"]]);
  });
});

describe("annotationRefresher", () => {
  it("merge-patches Argo CD's refresh annotation, with dryRun when asked", async () => {
    const client = new FakeKubeClient();
    client.seed(resources.ApplicationSets, raw("a", "argocd"));
    await annotationRefresher(client, true)(typed("a", "argocd"));
    expect(client.actions[0]).toMatchObject({
      verb: "patch",
      namespace: "argocd",
      name: "a",
      patch: { type: "merge", body: { metadata: { annotations: { "argocd.argoproj.io/application-set-refresh": "true" } } } },
      options: { dryRun: true },
    });
  });

  it.each([
    { name: "skips an ApplicationSet deleted meanwhile", reason: "NotFound" as const, rejects: false },
    { name: "fails on any other error", reason: "Forbidden" as const, rejects: true },
  ])("$name", async ({ reason, rejects }) => {
    const client = new FakeKubeClient();
    client.interceptors.patch = () => Promise.reject(new KubeApiError({ status: 0, reason, message: reason }));
    const run = annotationRefresher(client, false)(typed("a", "argocd"));
    if (rejects) await expect(run).rejects.toThrow(reason);
    else await expect(run).resolves.toBeUndefined();
  });
});

describe("argoSettingsReader", () => {
  it("reads argocd-secret and argocd-cm, each undefined when absent", async () => {
    const client = new FakeKubeClient();
    const read = argoSettingsReader(client, "argocd");
    expect(await read()).toEqual({ secret: undefined, configMapData: undefined });
    client.seed(resources.ConfigMaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "argocd-cm", namespace: "argocd" },
      data: { "webhook.maxPayloadSizeMB": "3" },
    });
    client.seed(resources.Secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "argocd-secret", namespace: "argocd" },
      data: { k: "dg==" },
    });
    const got = await read();
    expect(got.configMapData).toEqual({ "webhook.maxPayloadSizeMB": "3" });
    expect(got.secret?.metadata.name).toBe("argocd-secret");
  });
});
