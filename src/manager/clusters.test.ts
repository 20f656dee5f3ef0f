import { describe, expect, it } from "vitest";
import { encodeSecretData } from "../api/index.js";
import { FakeClock } from "../clock/index.js";
import type { KubeObject } from "../kube/index.js";
import { list, ScriptedSource, settle } from "../../test/support/scripted-informer.js";
import { SharedCache } from "./cache.js";
import { ClusterDirectory, clusterSecretsSpec } from "./clusters.js";

const secret = (name: string, server: string, rv: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, namespace: "argocd", resourceVersion: rv, uid: `uid-${name}`, labels: { "argocd.argoproj.io/secret-type": "cluster" } },
  data: encodeSecretData({ name, server, config: "{}" }),
});

describe("ClusterDirectory", () => {
  it("follows the cluster Secrets live: a cluster added, changed or deleted is seen by the next lookup", async () => {
    const source = new ScriptedSource();
    source.lists = [() => list("1", secret("east", "https://east:6443", "1"))];
    const cache = new SharedCache({ source, clock: new FakeClock() });
    const directory = new ClusterDirectory(cache.informer(clusterSecretsSpec("argocd")));
    cache.start();
    await directory.waitForSync();
    await settle();
    expect(directory.resolve({ name: "west" })).toEqual({ ok: false, error: "there are no clusters with this name: west" });
    source.current.emit({ type: "ADDED", object: secret("west", "https://west:6443", "2") });
    expect(directory.resolve({ name: "west" })).toMatchObject({ ok: true, server: "https://west:6443", cluster: { name: "west" } });
    source.current.emit({ type: "MODIFIED", object: secret("west", "https://west-2:6443", "3") });
    expect(directory.resolve({ name: "west" })).toMatchObject({ ok: true, server: "https://west-2:6443" });
    source.current.emit({ type: "DELETED", object: secret("west", "https://west-2:6443", "4") });
    expect(directory.resolve({ name: "west" }).ok).toBe(false);
    expect(directory.clusters().map((c) => c.name)).toEqual(["east"]);
    await cache.stop();
  });

  it("resolves the in-cluster server to the implicit cluster unless a Secret claims it", async () => {
    const source = new ScriptedSource();
    source.lists = [() => list("1")];
    const cache = new SharedCache({ source, clock: new FakeClock() });
    const directory = new ClusterDirectory(cache.informer(clusterSecretsSpec("argocd")));
    cache.start();
    await directory.waitForSync();
    expect(directory.resolve({ server: "https://kubernetes.default.svc" })).toEqual({
      ok: true,
      server: "https://kubernetes.default.svc",
      cluster: undefined,
    });
    expect(directory.resolve({ name: "in-cluster" })).toEqual({ ok: true, server: "https://kubernetes.default.svc", cluster: undefined });
    await cache.stop();
  });
});
