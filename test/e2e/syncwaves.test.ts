/**
 * The sync engine on the real control plane (KWOK runs the pods): an Application's resources are
 * applied in the documented order — observed from watches of the cluster, ordered by the etcd
 * revision of each creation — hooks run and gate the phases, and a failing PreSync hook fails the
 * sync and runs the SyncFail hooks.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Application } from "../../src/api/index.js";
import { SystemClock } from "../../src/clock/index.js";
import { Discovery, KubeApiClient, resources, type KubeObject, type ResourceDescriptor } from "../../src/kube/index.js";
import { silentLogger } from "../../src/log/logger.js";
import { SyncEngine } from "../../src/syncwaves/engine.js";
import { StaticManifestSource } from "../../src/syncwaves/manifests.js";
import { createNamespace, deleteNamespace, sharedKubeConfig } from "./support/namespace.js";

const clock = new SystemClock();
const kc = sharedKubeConfig();
const client = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
const discovery = new Discovery(client.transport);
const resolve = (o: KubeObject): Promise<ResourceDescriptor> => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? "");
const source = new StaticManifestSource();
let appNs = "";
let engine: SyncEngine;
const cleanup: string[] = [];

/** A creation seen by a watch: kind/name and the etcd revision it was written at. */
interface Created {
  readonly name: string;
  readonly rv: number;
}

/** Watches kinds in one namespace (and Namespaces) and records each first ADDED. */
function watchCreations(ns: string): { created: Created[]; stop: () => void } {
  const created: Created[] = [];
  const seen = new Set<string>();
  const controllers: AbortController[] = [];
  const kinds: [ResourceDescriptor, string | undefined][] = [
    [resources.Namespaces, undefined],
    [resources.ConfigMaps, ns],
    [{ group: "", version: "v1", plural: "services", kind: "Service", namespaced: true }, ns],
    [{ group: "apps", version: "v1", plural: "deployments", kind: "Deployment", namespaced: true }, ns],
    [{ group: "batch", version: "v1", plural: "jobs", kind: "Job", namespaced: true }, ns],
  ];
  for (const [resource, namespace] of kinds) {
    const ac = new AbortController();
    controllers.push(ac);
    void client
      .watch(resource, { ...(namespace ? { namespace } : {}), resourceVersion: "0", signal: ac.signal }, (e) => {
        const key = `${e.object.kind ?? resource.kind}/${e.object.metadata?.name ?? ""}`;
        if (e.type !== "ADDED" || seen.has(key)) return;
        if (resource.kind === "Namespace" && e.object.metadata?.name !== ns) return;
        // created by kube-controller-manager in every namespace, not by the sync
        if (key === "ConfigMap/kube-root-ca.crt") return;
        seen.add(key);
        created.push({ name: key, rv: Number(e.object.metadata?.resourceVersion ?? "0") });
      })
      .catch(() => undefined);
  }
  return { created, stop: () => controllers.forEach((c) => c.abort()) };
}

const hookJob = (name: string, hook: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, annotations: { "argocd.argoproj.io/hook": hook } },
    spec: {
      backoffLimit: 0,
      template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }], ...extra } },
    },
  });

function manifests(ns: string): { path: string; content: string }[] {
  return [
    { path: "ns.yaml", content: `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n` },
    {
      path: "app.yaml",
      content: [
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  k: v",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: c\n        image: nginx",
      ].join("\n---\n"),
    },
    { path: "pre.json", content: hookJob("migrate", "PreSync") },
    { path: "post.json", content: hookJob("smoke", "PostSync") },
  ];
}

async function createApp(name: string, ns: string, path: string, syncOptions?: string[]): Promise<void> {
  const app: Application = {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: appNs },
    spec: {
      project: "default",
      destination: { server: "https://kubernetes.default.svc", namespace: ns },
      source: { repoURL: "https://example.com/repo.git", path, targetRevision: "HEAD" },
    },
    operation: { sync: { prune: true, ...(syncOptions ? { syncOptions } : {}) }, initiatedBy: { username: "e2e" } },
  };
  await client.create(resources.Applications, app);
}

async function waitForOperation(name: string, timeoutMs = 90_000): Promise<Application> {
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    const app = await client.get<Application>(resources.Applications, { namespace: appNs, name });
    const phase = app.status?.operationState?.phase;
    if (app.operation === undefined && phase !== undefined && phase !== "Running") return app;
    if (clock.now() > deadline) throw new Error(`operation of ${name} did not finish: ${JSON.stringify(app.status?.operationState)}`);
    await clock.sleep(250);
  }
}

beforeAll(async () => {
  appNs = await createNamespace(kc, "sw-apps");
  engine = new SyncEngine({
    watch: client,
    namespace: appNs,
    client,
    resolve,
    source,
    clock,
    log: silentLogger(),
    waveDelayMs: 0,
    pollMs: 500,
  });
  engine.start();
});

afterAll(async () => {
  await engine.stop();
  for (const ns of [appNs, ...cleanup]) await deleteNamespace(kc, ns).catch(() => undefined);
});

describe("sync engine on a real control plane", () => {
  it("applies Namespace, PreSync Job, ConfigMap, Service, Deployment, then the PostSync Job, in that order", async () => {
    const ns = `sw-order-${randomBytes(3).toString("hex")}`;
    cleanup.push(ns);
    source.set("https://example.com/repo.git", "order", manifests(ns));
    const watch = watchCreations(ns);
    await clock.sleep(500);
    await createApp("order", ns, "order");
    const app = await waitForOperation("order");
    watch.stop();
    expect(app.status?.operationState?.message).toBe("successfully synced (no more tasks)");
    expect(app.status?.operationState?.phase).toBe("Succeeded");
    const order = [...watch.created].sort((a, b) => a.rv - b.rv).map((c) => c.name);
    expect(order).toEqual([`Namespace/${ns}`, "Job/migrate", "ConfigMap/cfg", "Service/web", "Deployment/web", "Job/smoke"]);
    expect(app.status?.history?.map((h) => h.id)).toEqual([0]);
    expect(app.status?.sync?.status).toBe("Synced");
  });

  it("fails the sync when a PreSync Job fails, runs the SyncFail hook and applies no Sync resource", async () => {
    const ns = await createNamespace(kc, "sw-fail");
    cleanup.push(ns);
    // The Job's pod can never be scheduled (no node matches), so its deadline fails the Job for real.
    const failing = hookJob("gate", "PreSync", { nodeSelector: { "example.com/none": "true" } });
    const withDeadline = JSON.parse(failing) as { spec: Record<string, unknown> };
    withDeadline.spec.activeDeadlineSeconds = 2;
    source.set("https://example.com/repo.git", "fail", [
      { path: "pre.json", content: JSON.stringify(withDeadline) },
      { path: "cm.yaml", content: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: never\n" },
      { path: "fail.json", content: hookJob("cleanup", "SyncFail") },
    ]);
    await createApp("fail", ns, "fail");
    const app = await waitForOperation("fail");
    expect(app.status?.operationState?.phase).toBe("Failed");
    expect(app.status?.operationState?.message).toBe("one or more synchronization tasks completed unsuccessfully");
    const jobs = await client.list({ group: "batch", version: "v1", plural: "jobs", kind: "Job", namespaced: true }, { namespace: ns });
    expect(jobs.items.map((j) => j.metadata?.name).sort()).toEqual(["cleanup", "gate"]);
    await expect(client.get(resources.ConfigMaps, { namespace: ns, name: "never" })).rejects.toMatchObject({ reason: "NotFound" });
  });

  it("creates the missing destination namespace first with CreateNamespace=true, then applies into it", async () => {
    const ns = `sw-createns-${randomBytes(3).toString("hex")}`;
    cleanup.push(ns);
    source.set("https://example.com/repo.git", "createns", [
      { path: "cm.yaml", content: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  k: v\n" },
    ]);
    const watch = watchCreations(ns);
    await clock.sleep(500);
    await createApp("createns", ns, "createns", ["CreateNamespace=true"]);
    const app = await waitForOperation("createns");
    watch.stop();
    expect(app.status?.operationState?.phase).toBe("Succeeded");
    expect([...watch.created].sort((a, b) => a.rv - b.rv).map((c) => c.name)).toEqual([`Namespace/${ns}`, "ConfigMap/cfg"]);
    expect(app.status?.sync?.status).toBe("Synced");
  });
});
