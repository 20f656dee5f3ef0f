/**
 * A custom resource whose health only a Lua check from `argocd-cm` knows, on the real control plane:
 * a Rollout-like resource in wave 0 holds back wave 1 while its script says Progressing, and the
 * sync goes on once its status makes the script say Healthy. The engine follows the ConfigMap of
 * its Argo CD namespace, as Argo CD's application controller does.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Application } from "../../src/api/index.js";
import { SystemClock } from "../../src/clock/index.js";
import { Discovery, KubeApiClient, resources, type KubeObject, type ResourceDescriptor } from "../../src/kube/index.js";
import { silentLogger } from "../../src/log/logger.js";
import { SyncEngine } from "../../src/syncwaves/engine.js";
import { StaticManifestSource } from "../../src/syncwaves/manifests.js";
import { eventually } from "./support/controller.js";
import { createNamespace, deleteNamespace, sharedKubeConfig } from "./support/namespace.js";

const clock = new SystemClock();
const kc = sharedKubeConfig();
const client = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
const discovery = new Discovery(client.transport);
const resolve = (o: KubeObject): Promise<ResourceDescriptor> => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? "");
const source = new StaticManifestSource();
const group = `e2e${randomBytes(3).toString("hex")}.example.com`;
const Crds: ResourceDescriptor = {
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
};
const Rollouts: ResourceDescriptor = { group, version: "v1", plural: "rollouts", kind: "Rollout", namespaced: true };
let ns = "";
let engine: SyncEngine;

/** Healthy once `status.phase` is Ready, as a user would write it for their own rollout kind. */
const HEALTH_LUA = [
  "hs = {}",
  "if obj.status ~= nil and obj.status.phase == 'Ready' then",
  "  hs.status = 'Healthy'",
  "  hs.message = 'replicas ' .. obj.status.readyReplicas .. ' ready'",
  "  return hs",
  "end",
  "hs.status = 'Progressing'",
  "hs.message = 'waiting for the rollout'",
  "return hs",
].join("\n");

beforeAll(async () => {
  ns = await createNamespace(kc, "sw-health");
  await client.create(Crds, {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `rollouts.${group}` },
    spec: {
      group,
      names: { kind: "Rollout", plural: "rollouts", singular: "rollout" },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  });
  await eventually(
    "the CRD served",
    async () => (await discovery.resourceFor(`${group}/v1`, "Rollout").catch(() => undefined)) ?? undefined,
  );
  await client.create(resources.ConfigMaps, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "argocd-cm", namespace: ns, labels: { "app.kubernetes.io/part-of": "argocd" } },
    data: { [`resource.customizations.health.${group}_Rollout`]: HEALTH_LUA },
  });
  engine = new SyncEngine({
    watch: client,
    namespace: ns,
    client,
    resolve,
    source,
    clock,
    log: silentLogger(),
    waveDelayMs: 0,
    pollMs: 500,
    argoCdNamespace: ns,
  });
  engine.start();
});

afterAll(async () => {
  await engine.stop();
  await deleteNamespace(kc, ns).catch(() => undefined);
  await client.delete(Crds, { name: `rollouts.${group}` }).catch(() => undefined);
});

const app = (): Application => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "Application",
  metadata: { name: "rollout", namespace: ns },
  spec: {
    project: "default",
    destination: { server: "https://kubernetes.default.svc", namespace: ns },
    source: { repoURL: "https://example.com/health.git", path: "app", targetRevision: "HEAD" },
  },
  operation: { sync: {}, initiatedBy: { username: "e2e" } },
});

const getApp = (): Promise<Application> => client.get<Application>(resources.Applications, { namespace: ns, name: "rollout" });
const rolloutHealth = (a: Application) => a.status?.resources?.find((r) => r.kind === "Rollout")?.health;

describe("custom health from argocd-cm", () => {
  it("holds the next wave while the Lua check says Progressing, and lets it go once it says Healthy", async () => {
    source.set("https://example.com/health.git", "app", [
      {
        path: "rollout.yaml",
        content: `apiVersion: ${group}/v1\nkind: Rollout\nmetadata:\n  name: web\n  annotations:\n    argocd.argoproj.io/sync-wave: "0"\nspec:\n  replicas: 2\n`,
      },
      {
        path: "after.yaml",
        content: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after\n  annotations:\n    argocd.argoproj.io/sync-wave: "1"\ndata:\n  k: v\n`,
      },
    ]);
    await client.create(resources.Applications, app());

    // The Rollout is applied; the script sees no status and says Progressing, so wave 1 waits.
    await eventually("the Rollout applied", () => client.get(Rollouts, { namespace: ns, name: "web" }).catch(() => undefined));
    const waiting = await eventually("the operation waiting on the Rollout", async () => {
      const a = await getApp();
      return a.status?.operationState?.phase === "Running" && rolloutHealth(a)?.status === "Progressing" ? a : undefined;
    });
    expect(rolloutHealth(waiting)).toEqual({ status: "Progressing", message: "waiting for the rollout" });
    await clock.sleep(2_000);
    await expect(client.get(resources.ConfigMaps, { namespace: ns, name: "after" })).rejects.toMatchObject({ status: 404 });
    expect((await getApp()).status?.operationState?.phase).toBe("Running");

    // The rollout's controller reports it ready: the script says Healthy and the sync goes on.
    await client.patchStatus(
      Rollouts,
      { namespace: ns, name: "web" },
      { type: "merge", body: { status: { phase: "Ready", readyReplicas: 2 } } },
    );
    const done = await eventually(
      "the sync Succeeded",
      async () => {
        const a = await getApp();
        return a.status?.operationState?.phase === "Succeeded" ? a : undefined;
      },
      60_000,
    );
    expect(rolloutHealth(done)).toEqual({ status: "Healthy", message: "replicas 2 ready" });
    expect((await client.get(resources.ConfigMaps, { namespace: ns, name: "after" }))["data"]).toEqual({ k: "v" });
    expect(done.status?.health?.status).toBe("Healthy");
  });
});
