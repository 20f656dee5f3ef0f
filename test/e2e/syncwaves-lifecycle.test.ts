/**
 * The sync engine's lifecycle on the real control plane (KWOK runs the pods), everything asserted
 * from what watches of the cluster saw: pruning in reverse wave order, the hook delete policies,
 * Application deletion (PreDelete hooks, cascade, PostDelete hooks), retry after a transient
 * failure, a destination described by a cluster Secret, and an engine killed mid-sync that resumes
 * without re-running finished hooks. The engine runs with slow polls, so progress comes from its
 * watches on the managed resources.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { encodeSecretData, type Application } from "../../src/api/index.js";
import { SystemClock } from "../../src/clock/index.js";
import { Discovery, KubeApiClient, resources, type KubeObject, type ResourceDescriptor } from "../../src/kube/index.js";
import { silentLogger } from "../../src/log/logger.js";
import { SharedCache } from "../../src/manager/cache.js";
import { ClusterDirectory, clusterSecretsSpec } from "../../src/manager/clusters.js";
import { ClusterSecretDestinations } from "../../src/syncwaves/destinations.js";
import { SyncEngine } from "../../src/syncwaves/engine.js";
import { GitManifestSource } from "../../src/syncwaves/git-source.js";
import { StaticManifestSource, type ManifestSource } from "../../src/syncwaves/manifests.js";
import { gitReader, makeRepo, TempDirs } from "../integration/support/git-repos.js";
import { createNamespace, deleteNamespace, sharedKubeConfig } from "./support/namespace.js";
import { application, configMap, hookJob, operationDone, R, record, waitFor } from "./syncwaves-support/cluster.js";

const clock = new SystemClock();
/** An operation's phase and message, and the messages of the resources that did not sync: a failure then says why. */
const outcome = (app: Application): unknown[] => [
  app.status?.operationState?.phase,
  app.status?.operationState?.message,
  (app.status?.operationState?.syncResult?.resources ?? [])
    .filter((r) => r.status !== "Synced")
    .map((r) => `${r.kind}/${r.name}: ${r.message ?? ""}`),
];
const SUCCEEDED = ["Succeeded", "successfully synced (all tasks run)", []];
const kc = sharedKubeConfig();
const kubeconfigPath = inject("kubeconfigPath");
const client = KubeApiClient.fromConfig({ kind: "file", path: kubeconfigPath });
const discovery = new Discovery(client.transport);
const resolve = (o: KubeObject): Promise<ResourceDescriptor> => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? "");
const local = { id: "local", client, resolve };
const source = new StaticManifestSource();
const REPO = "https://example.com/lifecycle.git";
const temp = new TempDirs();
const namespaces: string[] = [];
const engines: SyncEngine[] = [];
const caches: SharedCache[] = [];
let appNs = "";

/** An engine on `ns` whose polls are too slow to matter: only watches move it on. */
function startEngine(ns: string, manifests: ManifestSource): SyncEngine {
  // The process's shape: one cache for the engine's Applications and the cluster Secrets.
  const cache = new SharedCache({ source: client, clock });
  caches.push(cache);
  const clusters = new ClusterDirectory(cache.informer(clusterSecretsSpec(ns)));
  const engine = new SyncEngine({
    watch: client,
    cache,
    namespace: ns,
    client,
    resolve,
    source: manifests,
    destinations: new ClusterSecretDestinations({ local, clusters }),
    clock,
    log: silentLogger(),
    waveDelayMs: 0,
    pollMs: 120_000,
    operationPollMs: 120_000,
  });
  cache.start();
  engine.start();
  engines.push(engine);
  return engine;
}

async function newNamespace(prefix: string): Promise<string> {
  const ns = await createNamespace(kc, prefix);
  namespaces.push(ns);
  return ns;
}

async function requestSync(name: string, operation: NonNullable<Application["operation"]>): Promise<void> {
  await client.patch(resources.Applications, { namespace: appNs, name }, { type: "merge", body: { operation } });
}

beforeAll(async () => {
  appNs = await newNamespace("swl-apps");
  startEngine(appNs, source);
});

afterAll(async () => {
  await Promise.all(engines.map((e) => e.stop()));
  await Promise.all(caches.map((c) => c.stop()));
  for (const ns of namespaces) await deleteNamespace(kc, ns).catch(() => undefined);
  temp.cleanup();
});

describe("sync engine lifecycle on a real control plane", () => {
  it("prunes resources in reverse wave order, waiting for each deletion", async () => {
    const ns = await newNamespace("swl-prune");
    source.set(REPO, "prune", [
      { path: "all.yaml", content: [configMap("a", 0), configMap("b", 1), configMap("c", 2), configMap("keep")].join("---\n") },
    ]);
    await client.create(
      resources.Applications,
      application("prune", appNs, ns, { repoURL: REPO, path: "prune", operation: { sync: { prune: true } } }),
    );
    expect((await operationDone(client, appNs, "prune")).status?.operationState?.phase).toBe("Succeeded");
    source.set(REPO, "prune", [{ path: "all.yaml", content: configMap("keep") }]);
    const seen = record(client, ns, [R.ConfigMaps]);
    await requestSync("prune", { sync: { prune: true } });
    const app = await operationDone(client, appNs, "prune");
    // The engine reads the apiserver directly; the test's own watch may deliver the last DELETED a moment later.
    await waitFor(
      "three deletions seen by the watch",
      () => Promise.resolve(seen.ordered("DELETED").length >= 3 ? true : undefined),
      10_000,
    ).catch(() => undefined);
    seen.stop();
    expect(app.status?.operationState?.phase).toBe("Succeeded");
    expect(seen.ordered("DELETED")).toEqual(["ConfigMap/c", "ConfigMap/b", "ConfigMap/a"]);
  });

  it("deletes hooks by policy: HookSucceeded after success, BeforeHookCreation before re-creation, HookFailed after failure", async () => {
    const ns = await newNamespace("swl-policy");
    source.set(REPO, "policy", [
      { path: "hs.json", content: hookJob("hs", "PreSync", { "argocd.argoproj.io/hook-delete-policy": "HookSucceeded" }) },
      { path: "hf.json", content: hookJob("hf", "PreSync", { "argocd.argoproj.io/hook-delete-policy": "HookFailed" }) },
      { path: "bhc.json", content: hookJob("bhc", "PreSync") },
      { path: "cm.yaml", content: configMap("cfg") },
    ]);
    const seen = record(client, ns, [R.Jobs]);
    await client.create(
      resources.Applications,
      application("policy", appNs, ns, { repoURL: REPO, path: "policy", operation: { sync: {} } }),
    );
    expect(outcome(await operationDone(client, appNs, "policy"))).toEqual(SUCCEEDED);
    await waitFor("HookSucceeded hook deleted", () => Promise.resolve(seen.ordered("DELETED").includes("Job/hs") ? true : undefined));
    const jobs = await client.list(R.Jobs, { namespace: ns });
    expect(jobs.items.map((j) => j.metadata?.name).sort()).toEqual(["bhc", "hf"]);
    const firstBhc = jobs.items.find((j) => j.metadata?.name === "bhc")?.metadata?.uid;

    await requestSync("policy", { sync: {} });
    expect(outcome(await operationDone(client, appNs, "policy"))).toEqual(SUCCEEDED);
    const bhc = seen.events.filter((e) => e.name === "Job/bhc");
    expect(bhc.map((e) => e.type)).toContain("DELETED");
    expect(new Set(bhc.filter((e) => e.type === "ADDED").map((e) => e.uid)).size).toBe(2);
    const secondBhc = (await client.get(R.Jobs, { namespace: ns, name: "bhc" })).metadata?.uid;
    expect(secondBhc).not.toBe(firstBhc);

    // A failing PreSync hook with HookFailed: its pod can never be scheduled, the deadline fails it.
    const failing = hookJob("doomed", "PreSync", { "argocd.argoproj.io/hook-delete-policy": "HookFailed" }, { activeDeadlineSeconds: 2 });
    const spec = JSON.parse(failing) as { spec: { template: { spec: Record<string, unknown> } } };
    spec.spec.template.spec.nodeSelector = { "example.com/none": "true" };
    source.set(REPO, "policy-fail", [{ path: "doomed.json", content: JSON.stringify(spec) }]);
    await client.create(
      resources.Applications,
      application("policy-fail", appNs, ns, { repoURL: REPO, path: "policy-fail", operation: { sync: {} } }),
    );
    expect((await operationDone(client, appNs, "policy-fail")).status?.operationState?.phase).toBe("Failed");
    await waitFor("HookFailed hook deleted", () => Promise.resolve(seen.ordered("DELETED").includes("Job/doomed") ? true : undefined));
    seen.stop();
  });

  it("deletes an Application: PreDelete hook first, then resources from the highest wave down, then the PostDelete hook", async () => {
    const ns = await newNamespace("swl-delete");
    source.set(REPO, "delete", [
      { path: "cms.yaml", content: [configMap("first", 0), configMap("second", 1)].join("---\n") },
      { path: "pre.json", content: hookJob("pre-delete", "PreDelete") },
      { path: "post.json", content: hookJob("post-delete", "PostDelete") },
    ]);
    const finalizers = ["resources-finalizer.argocd.argoproj.io"];
    await client.create(
      resources.Applications,
      application("delete", appNs, ns, { repoURL: REPO, path: "delete", operation: { sync: {} }, finalizers }),
    );
    await operationDone(client, appNs, "delete");
    await waitFor("deletion-hook finalizers", async () => {
      const app = await client.get<Application>(resources.Applications, { namespace: appNs, name: "delete" });
      return app.metadata.finalizers?.includes("post-delete-finalizer.argocd.argoproj.io") ? app : undefined;
    });
    const seen = record(client, ns, [R.ConfigMaps, R.Jobs]);
    await clock.sleep(300);
    await client.delete(resources.Applications, { namespace: appNs, name: "delete" });
    await waitFor("the Application to be gone", async () => {
      try {
        await client.get(resources.Applications, { namespace: appNs, name: "delete" });
        return undefined;
      } catch {
        return true;
      }
    });
    seen.stop();
    const order = [...seen.events]
      .filter((e) => e.rv > 0 && (e.type === "DELETED" || (e.type === "ADDED" && e.name.startsWith("Job/"))))
      .sort((a, b) => a.rv - b.rv);
    const at = (type: string, name: string): number => order.findIndex((e) => e.type === type && e.name === name);
    expect(at("ADDED", "Job/pre-delete")).toBeGreaterThanOrEqual(0);
    expect(at("ADDED", "Job/pre-delete")).toBeLessThan(at("DELETED", "ConfigMap/second"));
    expect(at("DELETED", "ConfigMap/second")).toBeLessThan(at("DELETED", "ConfigMap/first"));
    expect(at("DELETED", "ConfigMap/first")).toBeLessThan(at("ADDED", "Job/post-delete"));
  });

  it("does not hang on a PreSync Job whose TTL deletes it as soon as it completes", async () => {
    const ns = await newNamespace("swl-ttl");
    source.set(REPO, "ttl", [
      { path: "pre.json", content: hookJob("ttl", "PreSync", {}, { ttlSecondsAfterFinished: 0 }) },
      { path: "cm.yaml", content: configMap("after") },
    ]);
    const seen = record(client, ns, [R.Jobs, R.ConfigMaps]);
    await client.create(resources.Applications, application("ttl", appNs, ns, { repoURL: REPO, path: "ttl", operation: { sync: {} } }));
    const app = await operationDone(client, appNs, "ttl", 30_000);
    expect(app.status?.operationState?.phase).toBe("Succeeded");
    // The hook finalizer is off, so the TTL controller (or anyone) can remove the completed Job.
    const job = await client.get(R.Jobs, { namespace: ns, name: "ttl" }).catch(() => undefined);
    expect(job?.metadata?.finalizers ?? []).not.toContain("argocd.argoproj.io/hook-finalizer");
    seen.stop();
    expect(seen.ordered("ADDED")).toEqual(["Job/ttl", "ConfigMap/after"]);
  });

  it("terminates a hung sync when its Application is deleted, deleting the running hook, then deletes the resources", async () => {
    const ns = await newNamespace("swl-term");
    source.set(REPO, "term", [
      { path: "cm.yaml", content: configMap("applied", 0) },
      { path: "gate.json", content: hookJob("stuck", "Sync", { "argocd.argoproj.io/sync-wave": "1" }, { suspend: true }) },
    ]);
    const finalizers = ["resources-finalizer.argocd.argoproj.io"];
    await client.create(
      resources.Applications,
      application("term", appNs, ns, { repoURL: REPO, path: "term", operation: { sync: {} }, finalizers }),
    );
    await waitFor("the sync to hang on the suspended hook", async () => {
      const app = await client.get<Application>(resources.Applications, { namespace: appNs, name: "term" });
      return app.status?.operationState?.message === "waiting for completion of hook batch/Job/stuck" ? app : undefined;
    });
    const seen = record(client, ns, [R.ConfigMaps, R.Jobs]);
    const phases: string[] = [];
    const ac = new AbortController();
    void client
      .watch(resources.Applications, { namespace: appNs, resourceVersion: "0", signal: ac.signal }, (e) => {
        const op = (e.object as Application).status?.operationState;
        if (e.object.metadata?.name === "term" && op) phases.push(`${op.phase}: ${op.message ?? ""}`);
      })
      .catch(() => undefined);
    await client.delete(resources.Applications, { namespace: appNs, name: "term" });
    await waitFor("the Application to be gone", () =>
      client.get(resources.Applications, { namespace: appNs, name: "term" }).then(
        () => undefined,
        () => true,
      ),
    );
    seen.stop();
    ac.abort();
    expect(phases).toContain("Failed: Operation terminated");
    expect(seen.ordered("DELETED")).toEqual(expect.arrayContaining(["Job/stuck", "ConfigMap/applied"]));
    expect((await client.list(R.ConfigMaps, { namespace: ns })).items.map((c) => c.metadata?.name)).not.toContain("applied");
  });

  it("retries a sync that failed transiently and succeeds once the cause is gone", async () => {
    const later = `swl-later-${randomBytes(3).toString("hex")}`;
    const ns = await newNamespace("swl-retry");
    source.set(REPO, "retry", [
      { path: "cm.yaml", content: configMap("elsewhere").replace("name: elsewhere", `name: elsewhere\n  namespace: ${later}`) },
    ]);
    const retry = { limit: 5, backoff: { duration: "1s", factor: 1 } };
    await client.create(
      resources.Applications,
      application("retry", appNs, ns, { repoURL: REPO, path: "retry", operation: { sync: {}, retry } }),
    );
    await waitFor("a first failed attempt", async () => {
      const app = await client.get<Application>(resources.Applications, { namespace: appNs, name: "retry" });
      return (app.status?.operationState?.retryCount ?? 0) >= 1 ? app : undefined;
    });
    await client.create(resources.Namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: later } });
    namespaces.push(later);
    const app = await operationDone(client, appNs, "retry");
    expect(app.status?.operationState?.phase).toBe("Succeeded");
    expect(app.status?.operationState?.retryCount).toBeGreaterThanOrEqual(1);
    await expect(client.get(R.ConfigMaps, { namespace: later, name: "elsewhere" })).resolves.toMatchObject({ data: { k: "v" } });
  });

  it("syncs automatically, heals drift as soon as a managed resource changes, and re-compares on refresh", async () => {
    const ns = await newNamespace("swl-auto");
    source.set(REPO, "auto", [{ path: "cm.yaml", content: configMap("healed") }]);
    const syncPolicy = { automated: { enabled: true, prune: true, selfHeal: true } };
    await client.create(resources.Applications, application("auto", appNs, ns, { repoURL: REPO, path: "auto", syncPolicy }));
    const first = await waitFor("the automated sync", () =>
      client.get(R.ConfigMaps, { namespace: ns, name: "healed" }).catch(() => undefined),
    );
    await waitFor("the Application to be Synced", async () => {
      const app = await client.get<Application>(resources.Applications, { namespace: appNs, name: "auto" });
      return app.status?.sync?.status === "Synced" && app.operation === undefined ? app : undefined;
    });
    // Polls are two minutes apart: only the watch on ConfigMaps can bring the deletion to the engine.
    await client.delete(R.ConfigMaps, { namespace: ns, name: "healed" });
    const healed = await waitFor(
      "self-heal",
      async () => {
        const cm = await client.get(R.ConfigMaps, { namespace: ns, name: "healed" }).catch(() => undefined);
        return cm !== undefined && cm.metadata?.uid !== first.metadata?.uid ? cm : undefined;
      },
      30_000,
    );
    expect(healed.data).toEqual({ k: "v" });

    await client.patch(
      resources.Applications,
      { namespace: appNs, name: "auto" },
      { type: "merge", body: { metadata: { annotations: { "argocd.argoproj.io/refresh": "normal" } } } },
    );
    const refreshed = await waitFor(
      "the refresh",
      async () => {
        const app = await client.get<Application>(resources.Applications, { namespace: appNs, name: "auto" });
        return app.metadata.annotations?.["argocd.argoproj.io/refresh"] === undefined ? app : undefined;
      },
      30_000,
    );
    expect(refreshed.status?.sync?.status).toBe("Synced");
  });

  /** The Application once a refresh is consumed and it reads `sync`. */
  async function refreshed(name: string, sync: string): Promise<Application> {
    await client.patch(
      resources.Applications,
      { namespace: appNs, name },
      { type: "merge", body: { metadata: { annotations: { "argocd.argoproj.io/refresh": "normal" } } } },
    );
    return waitFor(`${name} refreshed and ${sync}`, async () => {
      const app = await client.get<Application>(resources.Applications, { namespace: appNs, name });
      const done = app.metadata.annotations?.["argocd.argoproj.io/refresh"] === undefined && app.status?.sync?.status === sync;
      return done ? app : undefined;
    });
  }

  it("with prune off leaves a file deleted from Git OutOfSync instead of syncing again and again, self-heal or not", async () => {
    const ns = await newNamespace("swl-noprune");
    source.set(REPO, "noprune", [
      { path: "a.yaml", content: configMap("kept") },
      { path: "b.yaml", content: configMap("removed") },
    ]);
    const syncPolicy = { automated: { selfHeal: true } };
    await client.create(resources.Applications, application("noprune", appNs, ns, { repoURL: REPO, path: "noprune", syncPolicy }));
    const synced = await waitFor("the first automated sync", async () => {
      const app = await client.get<Application>(resources.Applications, { namespace: appNs, name: "noprune" });
      return app.status?.sync?.status === "Synced" && app.operation === undefined && (app.status.history ?? []).length === 1
        ? app
        : undefined;
    });
    source.set(REPO, "noprune", [{ path: "a.yaml", content: configMap("kept") }]);
    await refreshed("noprune", "OutOfSync");
    // Before, every completion started the next full sync at once: the history grew by one a pass.
    await new Promise((r) => setTimeout(r, 5_000));
    const after = await client.get<Application>(resources.Applications, { namespace: appNs, name: "noprune" });
    expect(after.status?.operationState?.startedAt).toBe(synced.status?.operationState?.startedAt);
    expect(after.status?.history?.length).toBe(1);
    expect(after.status?.resources?.find((r) => r.name === "removed")).toMatchObject({ status: "OutOfSync", requiresPruning: true });
    expect(await client.get(R.ConfigMaps, { namespace: ns, name: "removed" })).toBeDefined();
  });

  it("with prune on refuses an automated sync that would delete everything, with a SyncError, unless allowEmpty", async () => {
    const ns = await newNamespace("swl-empty");
    source.set(REPO, "empty", [{ path: "a.yaml", content: configMap("precious") }]);
    const syncPolicy = { automated: { prune: true } };
    await client.create(resources.Applications, application("empty", appNs, ns, { repoURL: REPO, path: "empty", syncPolicy }));
    await waitFor("the first automated sync", () => client.get(R.ConfigMaps, { namespace: ns, name: "precious" }).catch(() => undefined));
    // A new commit (another revision) that removes the last manifest.
    source.set(REPO, "empty", [], "1".repeat(40));
    const refused = await refreshed("empty", "OutOfSync");
    const error = await waitFor("the SyncError", async () => {
      const app = await client.get<Application>(resources.Applications, { namespace: appNs, name: "empty" });
      return app.status?.conditions?.find((c) => c.type === "SyncError");
    });
    expect(error.message).toBe(`Skipping sync attempt to [${refused.status?.sync?.revision ?? ""}]: auto-sync will wipe out all resources`);
    expect(await client.get(R.ConfigMaps, { namespace: ns, name: "precious" })).toBeDefined();

    await client.patch(
      resources.Applications,
      { namespace: appNs, name: "empty" },
      { type: "merge", body: { spec: { syncPolicy: { automated: { prune: true, allowEmpty: true } } } } },
    );
    await waitFor("the prune allowEmpty lets through", async () =>
      (await client.get(R.ConfigMaps, { namespace: ns, name: "precious" }).catch(() => undefined)) === undefined ? true : undefined,
    );
    const app = await waitFor("the SyncError cleared", async () => {
      const a = await client.get<Application>(resources.Applications, { namespace: appNs, name: "empty" });
      return a.status?.conditions?.some((c) => c.type === "SyncError") === true ? undefined : a;
    });
    expect(app.status?.sync?.status).toBe("Synced");
  });

  it("re-creates a completed named hook whose spec changed instead of failing the dry run on its immutable template", async () => {
    const ns = await newNamespace("swl-hookspec");
    const migrate = (image: string): string =>
      hookJob("migrate", "PreSync", {}, { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image }] } } });
    source.set(REPO, "hookspec", [
      { path: "job.json", content: migrate("busybox:1") },
      { path: "cm.yaml", content: configMap("cfg") },
    ]);
    await client.create(
      resources.Applications,
      application("hookspec", appNs, ns, { repoURL: REPO, path: "hookspec", operation: { sync: {} } }),
    );
    expect(outcome(await operationDone(client, appNs, "hookspec"))).toEqual(SUCCEEDED);
    const first = await client.get(R.Jobs, { namespace: ns, name: "migrate" });
    source.set(REPO, "hookspec", [
      { path: "job.json", content: migrate("busybox:2") },
      { path: "cm.yaml", content: configMap("cfg") },
    ]);
    await requestSync("hookspec", { sync: {} });
    expect(outcome(await operationDone(client, appNs, "hookspec"))).toEqual(SUCCEEDED);
    const second = await client.get<KubeObject>(R.Jobs, { namespace: ns, name: "migrate" });
    expect(second.metadata?.uid).not.toBe(first.metadata?.uid);
    expect(JSON.stringify(second.spec)).toContain("busybox:2");
  });

  // Server-side apply refuses undeclared fields whatever fieldValidation says, so Validate=false cannot
  // drop them as a client-side apply does (docs/sync-engine.md, the deviations table).
  it("refuses a field a custom resource's schema does not declare instead of dropping it, even with Validate=false", async () => {
    const ns = await newNamespace("swl-strict");
    const crds = {
      group: "apiextensions.k8s.io",
      version: "v1",
      plural: "customresourcedefinitions",
      kind: "CustomResourceDefinition",
      namespaced: false,
    };
    const schema = { type: "object", properties: { spec: { type: "object", properties: { size: { type: "integer" } } } } };
    await client
      .create(crds, {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "gadgets.strict.example.com" },
        spec: {
          group: "strict.example.com",
          scope: "Namespaced",
          names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
          versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema } }],
        },
      })
      .catch(() => undefined);
    const gadgets = { group: "strict.example.com", version: "v1", plural: "gadgets", kind: "Gadget", namespaced: true };
    await waitFor("the Gadget kind to be served", () => client.list(gadgets, { namespace: ns }).catch(() => undefined));
    const cr = "apiVersion: strict.example.com/v1\nkind: Gadget\nmetadata:\n  name: typo\nspec:\n  size: 1\n  sise: 2\n";
    source.set(REPO, "strict", [{ path: "cr.yaml", content: cr }]);
    await client.create(
      resources.Applications,
      application("strict", appNs, ns, { repoURL: REPO, path: "strict", operation: { sync: {} } }),
    );
    const failedOp = (await operationDone(client, appNs, "strict")).status?.operationState;
    expect(failedOp?.phase).toBe("Failed");
    expect(failedOp?.syncResult?.resources?.[0]?.message).toContain(".spec.sise: field not declared in schema");
    await requestSync("strict", { sync: { syncOptions: ["Validate=false"] } });
    const again = (await operationDone(client, appNs, "strict")).status?.operationState;
    expect(again?.phase).toBe("Failed");
    await expect(client.get(gadgets, { namespace: ns, name: "typo" })).rejects.toThrow();
  });

  it("with SkipDryRunOnMissingResource=true lets a custom resource whose CRD is not installed yet past the validation", async () => {
    const ns = await newNamespace("swl-skipdry");
    const cr = `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  annotations:\n    argocd.argoproj.io/sync-wave: "1"\n    argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true\n`;
    source.set(REPO, "skipdry", [
      { path: "cm.yaml", content: configMap("first", 0) },
      { path: "cr.yaml", content: cr },
    ]);
    await client.create(
      resources.Applications,
      application("skipdry", appNs, ns, { repoURL: REPO, path: "skipdry", operation: { sync: {} } }),
    );
    const state = (await operationDone(client, appNs, "skipdry")).status?.operationState;
    // Validation passed: wave 0 was applied; the Widget then fails to apply because nothing installed its CRD.
    expect(state?.message).not.toContain("one or more synchronization tasks are not valid");
    expect(await client.get(R.ConfigMaps, { namespace: ns, name: "first" })).toBeDefined();
    expect(state?.syncResult?.resources?.find((r) => r.kind === "Widget")?.status).toBe("SyncFailed");
  });

  it("with Replace=true and Force=true re-creates a Job whose immutable template changed", async () => {
    const ns = await newNamespace("swl-replace");
    const job = (image: string): string =>
      JSON.stringify({
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name: "batch", annotations: { "argocd.argoproj.io/sync-options": "Replace=true,Force=true" } },
        spec: { backoffLimit: 0, template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image }] } } },
      });
    source.set(REPO, "replace", [{ path: "job.json", content: job("busybox:1") }]);
    await client.create(
      resources.Applications,
      application("replace", appNs, ns, { repoURL: REPO, path: "replace", operation: { sync: {} } }),
    );
    expect(outcome(await operationDone(client, appNs, "replace"))).toEqual(SUCCEEDED);
    const first = await client.get(R.Jobs, { namespace: ns, name: "batch" });
    source.set(REPO, "replace", [{ path: "job.json", content: job("busybox:2") }]);
    await requestSync("replace", { sync: {} });
    expect(outcome(await operationDone(client, appNs, "replace"))).toEqual(SUCCEEDED);
    const second = await client.get<KubeObject>(R.Jobs, { namespace: ns, name: "batch" });
    expect(second.metadata?.uid).not.toBe(first.metadata?.uid);
    expect(JSON.stringify(second.spec)).toContain("busybox:2");
  });

  it("ends an operation whose manifests cannot be read in Error, retrying as its policy says, instead of running forever", async () => {
    const ns = await newNamespace("swl-unread");
    const operation = { sync: {}, retry: { limit: 1, backoff: { duration: "1s", factor: 1 } } };
    await client.create(resources.Applications, application("unread", appNs, ns, { repoURL: REPO, path: "nowhere", operation }));
    const app = await operationDone(client, appNs, "unread", 30_000);
    const state = app.status?.operationState;
    expect(state?.phase).toBe("Error");
    expect(state?.retryCount).toBe(1);
    const why = `Failed to load target state: failed to generate manifest for source 1 of 1: no manifests at ${REPO} nowhere`;
    expect(state?.message).toBe(`ComparisonError: ${why} (retried 1 times).`);
    expect(app.status?.conditions?.find((c) => c.type === "ComparisonError")?.message).toBe(why);
  });

  it.each([
    { writer: "kubectl", manager: "kubectl-client-side-apply" },
    { writer: "Argo CD's client-side apply", manager: "argocd-controller" },
  ])("hands the fields of an object $writer applied to the engine, so a field removed from Git is removed live", async ({ manager }) => {
    const ns = await newNamespace("swl-csa");
    const cm = (data: Record<string, string>): KubeObject => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "adopted", namespace: ns },
      data,
    });
    await client.create(R.ConfigMaps, cm({ keep: "1", dropped: "2" }), { fieldManager: manager });
    const app = `csa-${manager}`;
    source.set(REPO, app, [
      { path: "cm.yaml", content: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: adopted\ndata:\n  keep: "1"\n' },
    ]);
    await client.create(resources.Applications, application(app, appNs, ns, { repoURL: REPO, path: app, operation: { sync: {} } }));
    expect(outcome(await operationDone(client, appNs, app))).toEqual(SUCCEEDED);
    const live = await client.get<KubeObject>(R.ConfigMaps, { namespace: ns, name: "adopted" });
    expect(live.data).toEqual({ keep: "1" });
    const managers = (live.metadata?.managedFields as { manager?: string; operation?: string }[]).map(
      (m) => `${m.manager ?? ""}/${m.operation ?? ""}`,
    );
    expect(managers).toEqual(["argocd-controller/Apply"]);
  });

  it("deploys to a cluster described by a cluster Secret", async () => {
    const ns = await newNamespace("swl-remote");
    const token = kc.getCurrentUser()?.token ?? "";
    await client.create(resources.Secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "remote", namespace: appNs, labels: { "argocd.argoproj.io/secret-type": "cluster" } },
      data: encodeSecretData({
        name: "remote",
        server: client.transport.server,
        config: JSON.stringify({ bearerToken: token, tlsClientConfig: { insecure: true } }),
      }),
    });
    source.set(REPO, "remote", [{ path: "cm.yaml", content: configMap("over-there") }]);
    await client.create(
      resources.Applications,
      application("remote", appNs, ns, {
        repoURL: REPO,
        path: "remote",
        destination: { name: "remote", namespace: ns },
        operation: { sync: {} },
      }),
    );
    const app = await operationDone(client, appNs, "remote");
    expect(app.status?.operationState?.phase).toBe("Succeeded");
    const cm = await client.get(R.ConfigMaps, { namespace: ns, name: "over-there" });
    expect(cm.metadata?.annotations?.["argocd.argoproj.io/tracking-id"]).toBe(`remote:/ConfigMap:${ns}/over-there`);
  });

  it("waits out the wave delay before the next wave even though the watches report the first wave at once", async () => {
    const delayNs = await newNamespace("swl-delay-apps");
    const ns = await newNamespace("swl-delay");
    const delayed = new StaticManifestSource();
    delayed.set(REPO, "delay", [{ path: "cms.yaml", content: [configMap("w0", 0), configMap("w1", 1)].join("---\n") }]);
    const engine = new SyncEngine({
      watch: client,
      namespace: delayNs,
      client,
      resolve,
      source: delayed,
      clock,
      log: silentLogger(),
      waveDelayMs: 1500,
      pollMs: 120_000,
    });
    engine.start();
    engines.push(engine);
    const added = new Map<string, number>();
    const ac = new AbortController();
    void client
      .watch(R.ConfigMaps, { namespace: ns, resourceVersion: "0", signal: ac.signal }, (e) => {
        if (e.type === "ADDED") added.set(e.object.metadata?.name ?? "", clock.now());
      })
      .catch(() => undefined);
    await client.create(
      resources.Applications,
      application("delay", delayNs, ns, { repoURL: REPO, path: "delay", operation: { sync: {} } }),
    );
    expect((await operationDone(client, delayNs, "delay")).status?.operationState?.phase).toBe("Succeeded");
    ac.abort();
    expect((added.get("w1") ?? 0) - (added.get("w0") ?? 0)).toBeGreaterThanOrEqual(1400);
  });

  it("resumes a sync after the engine is killed between waves, without re-running finished hooks", async () => {
    const killNs = await newNamespace("swl-kill-apps");
    const ns = await newNamespace("swl-kill");
    const repo = makeRepo(temp, {
      "pre.json": hookJob("pre", "PreSync"),
      "cm.yaml": configMap("cfg", 0),
      "gate.json": hookJob("gate", "Sync", { "argocd.argoproj.io/sync-wave": "1" }, { suspend: true }),
      "post.json": hookJob("post", "PostSync"),
    });
    const repoURL = `file://${repo}`;
    const child = spawnEngine(killNs, temp.make("swl-cache-"));
    try {
      await waitFor("the child engine", () => Promise.resolve(child.ready ? true : undefined));
      await client.create(resources.Applications, application("kill", killNs, ns, { repoURL, path: "", operation: { sync: {} } }));
      await waitFor("the sync to wait on the gate hook", async () => {
        const app = await client.get<Application>(resources.Applications, { namespace: killNs, name: "kill" });
        return app.status?.operationState?.message === "waiting for completion of hook batch/Job/gate" ? app : undefined;
      });
    } finally {
      child.process.kill("SIGKILL");
    }
    await new Promise((done) => child.process.once("exit", done));
    const before = await client.get(R.Jobs, { namespace: ns, name: "pre" });
    const cfgBefore = await client.get(R.ConfigMaps, { namespace: ns, name: "cfg" });
    const seen = record(client, ns, [R.Jobs, R.ConfigMaps]);
    startEngine(killNs, new GitManifestSource(gitReader(temp)));
    await client.patch(R.Jobs, { namespace: ns, name: "gate" }, { type: "merge", body: { spec: { suspend: false } } });
    const app = await operationDone(client, killNs, "kill");
    seen.stop();
    expect(app.status?.operationState?.phase).toBe("Succeeded");
    const pre = seen.events.filter((e) => e.name === "Job/pre");
    expect(pre.every((e) => e.uid === before.metadata?.uid && e.type !== "DELETED")).toBe(true);
    expect(seen.events.filter((e) => e.name === "ConfigMap/cfg").every((e) => e.uid === cfgBefore.metadata?.uid)).toBe(true);
    expect(seen.events.some((e) => e.name === "Job/post" && e.type === "ADDED")).toBe(true);
    expect((await client.get(R.Jobs, { namespace: ns, name: "pre" })).metadata?.creationTimestamp).toBe(before.metadata?.creationTimestamp);
  });
});

/** Starts the engine of test/e2e/syncwaves-support/engine.ts in a process of its own. */
function spawnEngine(ns: string, cacheDir: string): { process: ChildProcess; ready: boolean } {
  const proc = spawn(process.execPath, ["--import", "tsx", "test/e2e/syncwaves-support/engine.ts", kubeconfigPath, ns, cacheDir], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const handle = { process: proc, ready: false };
  proc.stdout?.on("data", (chunk: Buffer) => {
    if (chunk.toString("utf8").includes("ready")) handle.ready = true;
  });
  return handle;
}
