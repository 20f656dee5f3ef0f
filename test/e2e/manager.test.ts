/**
 * The process's one manager on the real control plane: a reconcile whose Git server accepts the
 * connection and never answers fails at its deadline with a condition, deletes nothing, and frees
 * its worker for the next ApplicationSet; stopping the sync engine while a wave is being applied
 * leaves every applied resource recorded in the operation; and the stand-alone sync engine follows
 * a rotated repository Secret without a restart.
 */
import { createServer, type Server, type Socket } from "node:net";
import { beforeAll, describe, expect, inject, it } from "vitest";
import type { Application, ApplicationSet } from "../../src/api/index.js";
import { SystemClock } from "../../src/clock/index.js";
import { Discovery, KubeApiClient, resources, type KubeObject, type ResourceDescriptor } from "../../src/kube/index.js";
import { silentLogger } from "../../src/log/logger.js";
import { LocalDestinations, type ClusterAccess } from "../../src/syncwaves/destinations.js";
import { SyncEngine } from "../../src/syncwaves/engine.js";
import { StaticManifestSource } from "../../src/syncwaves/manifests.js";
import { serveGitHttp, type GitHttpServer } from "../integration/support/git-http.js";
import { git, makeRepo } from "../integration/support/git-repos.js";
import { applications, eventually, listAppSet, readAppSet, spawnController, type ControllerProcess } from "./support/controller.js";
import { application, configMap } from "./syncwaves-support/cluster.js";
import { e2eSuite } from "./support/suite.js";

const clock = new SystemClock();
const { client: suiteClient, procs: running, namespace, temp } = e2eSuite();
let client: KubeApiClient;

beforeAll(() => {
  client = suiteClient();
});

function spawn(ns: string, extra: string[], command = "controller"): ControllerProcess {
  const p = spawnController(
    ["--namespace", ns, "--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--webhook-addr", "127.0.0.1:0", ...extra],
    command,
  );
  running.push(p);
  return p;
}

/** A TCP server that accepts every connection and never answers. */
async function silentServer(): Promise<{ url: string; sockets: Socket[]; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((s) => void sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${String(address.port)}/repo.git`,
    sockets,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function gitAppSet(name: string, ns: string, repoURL: string): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name, namespace: ns },
    spec: {
      generators: [{ git: { repoURL, revision: "main", directories: [{ path: "apps/*" }] } }],
      template: {
        metadata: { name: "{{path.basename}}" },
        spec: {
          project: "default",
          source: { repoURL, path: "{{path}}", targetRevision: "main" },
          destination: { server: "https://kubernetes.default.svc", namespace: "{{path.basename}}" },
        },
      },
    },
  };
}

function condition(appSet: ApplicationSet, type: string): { status?: string; message?: string; reason?: string } | undefined {
  return appSet.status?.conditions?.find((c) => c.type === type);
}

describe("the manager", () => {
  it("fails a reconcile whose Git server never answers at its deadline, with a condition, deleting nothing, and frees the worker", async () => {
    const ns = await namespace("mgr-deadline");
    const repo = makeRepo(temp, { "apps/web/cm.yaml": configMap("web") });
    const silent = await silentServer();
    try {
      // One worker, no per-command Git limit: only the reconcile's deadline can end the stalled call.
      const p = spawn(ns, [
        "--concurrent-reconciliations",
        "1",
        "--reconcile-timeout-seconds",
        "3",
        "--repo-server-timeout-seconds",
        "0",
        "--git-revision-cache-seconds",
        "0",
      ]);
      await p.waitForLog("caches synced, starting workers");
      await client.create(resources.ApplicationSets, gitAppSet("moving", ns, `file://${repo}`));
      await eventually(
        "the Application of the reachable repository",
        async () => ((await applications(client, ns)).has("web") ? true : undefined),
        60_000,
      );
      const stalled = gitAppSet("moving", ns, silent.url) as ApplicationSet;
      await client.patch(
        resources.ApplicationSets,
        { namespace: ns, name: "moving" },
        { type: "merge", body: { spec: { generators: stalled.spec.generators } } },
      );
      const failed = await eventually(
        "the deadline's condition",
        async () => {
          const a = await readAppSet(client, ns, "moving");
          return condition(a, "ErrorOccurred")?.status === "True" ? a : undefined;
        },
        60_000,
      );
      expect(silent.sockets.length).toBeGreaterThan(0);
      expect(condition(failed, "ErrorOccurred")).toMatchObject({ reason: "ApplicationGenerationFromParamsError" });
      expect(condition(failed, "ErrorOccurred")?.message).toContain("reconcile deadline of 3s exceeded");
      expect(condition(failed, "ResourcesUpToDate")).toMatchObject({ status: "False" });
      // The one worker is free: another ApplicationSet is reconciled while the stalled one keeps failing.
      await client.create(resources.ApplicationSets, listAppSet("other", ns, ["other-a"]));
      await eventually(
        "the other ApplicationSet's Application",
        async () => ((await applications(client, ns)).has("other-a") ? true : undefined),
        60_000,
      );
      // Nothing was deleted: the Application generated before the stall is still there.
      expect((await applications(client, ns)).has("web")).toBe(true);
      const after = await readAppSet(client, ns, "moving");
      expect(condition(after, "ErrorOccurred")?.status).toBe("True");
      p.child.kill("SIGTERM");
      expect(await p.exited).toBe(0);
    } finally {
      await silent.close();
    }
  });

  it("stopped mid-wave, the sync engine records every resource it applied", async () => {
    const ns = await namespace("mgr-stop");
    const kubeconfigPath = inject("kubeconfigPath");
    const engineClient = KubeApiClient.fromConfig({ kind: "file", path: kubeconfigPath });
    const discovery = new Discovery(engineClient.transport);
    const resolve = (o: KubeObject): Promise<ResourceDescriptor> => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? "");
    // The destination's client holds every real apply of a ConfigMap until the test releases it.
    let release = (): void => {};
    const released = new Promise<void>((r) => (release = r));
    let started = (): void => {};
    const firstApply = new Promise<void>((r) => (started = r));
    const gated = new Proxy(engineClient, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== "patch" || typeof value !== "function")
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        return async (resource: ResourceDescriptor, ...rest: unknown[]) => {
          const options = rest[2] as { dryRun?: boolean } | undefined;
          if (resource.kind === "ConfigMap" && options?.dryRun !== true) {
            started();
            await released;
          }
          return (value as (...a: unknown[]) => Promise<unknown>).call(target, resource, ...rest);
        };
      },
    });
    const local: ClusterAccess = { id: "local", client: gated, resolve };
    const source = new StaticManifestSource();
    const repoURL = "https://example.com/manager.git";
    source.set(repoURL, "wave", [
      { path: "a.yaml", content: configMap("wave-a", 0) },
      { path: "b.yaml", content: configMap("wave-b", 0) },
      { path: "c.yaml", content: configMap("wave-c", 0) },
      { path: "d.yaml", content: configMap("next-d", 1) },
    ]);
    const engine = new SyncEngine({
      watch: engineClient,
      namespace: ns,
      client: engineClient,
      resolve,
      source,
      clock,
      log: silentLogger(),
      destinations: new LocalDestinations(local),
      waveDelayMs: 0,
    });
    engine.start();
    try {
      await client.create(
        resources.Applications,
        application("stopped", ns, ns, { repoURL, path: "wave", operation: { sync: {}, initiatedBy: { username: "e2e" } } }),
      );
      await firstApply;
      const stopping = engine.stop(30_000);
      release();
      const report = await stopping;
      expect(report).toEqual({ aborted: 1, unfinished: 0 });
      const app = await client.get<Application>(resources.Applications, { namespace: ns, name: "stopped" });
      const live = (await client.list(resources.ConfigMaps, { namespace: ns })).items
        .map((c) => c.metadata?.name ?? "")
        .filter((n) => n !== "kube-root-ca.crt")
        .sort();
      const recorded = (app.status?.operationState?.syncResult?.resources ?? [])
        .filter((r) => r.kind === "ConfigMap")
        .map((r) => r.name)
        .sort();
      // Every ConfigMap the engine applied is in the record, and the wave was applied whole.
      expect(live).toEqual(["wave-a", "wave-b", "wave-c"]);
      expect(recorded).toEqual(live);
      expect(app.status?.operationState?.phase).toBe("Running");
    } finally {
      release();
      await engine.stop();
      await engineClient.transport.close();
    }
  });

  it("the stand-alone sync engine follows a rotated repository Secret without a restart", async () => {
    const ns = await namespace("mgr-rotate");
    const root = temp.make("appset-git-root-");
    const work = makeRepo(temp, { "manifests/cm.yaml": configMap("rotated") });
    git(root, "clone", "-q", "--bare", work, "repo.git");
    let server: GitHttpServer | undefined;
    try {
      server = await serveGitHttp(root, { username: "bot", password: "new-token" });
      const repoURL = `${server.url}/repo.git`;
      await client.create(resources.Secrets, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "repo", namespace: ns, labels: { "argocd.argoproj.io/secret-type": "repository" } },
        stringData: { url: repoURL, username: "bot", password: "old-token" },
      });
      const p = spawn(ns, ["--git-revision-cache-seconds", "0"], "sync-engine");
      await p.waitForLog("sync engine starting");
      await client.create(resources.Applications, application("rotated", ns, ns, { repoURL, path: "manifests" }));
      const refused = await eventually(
        "the comparison error of the old token",
        async () => {
          const a = await client.get<Application>(resources.Applications, { namespace: ns, name: "rotated" });
          return a.status?.conditions?.some((c) => c.type === "ComparisonError") === true ? a : undefined;
        },
        60_000,
      );
      expect(refused.status?.sync?.status).toBe("Unknown");
      const secret = await client.get<KubeObject & { data?: Record<string, string> }>(resources.Secrets, { namespace: ns, name: "repo" });
      await client.update(resources.Secrets, {
        ...secret,
        data: { ...secret.data, password: Buffer.from("new-token").toString("base64") },
      });
      const compared = await eventually(
        "a comparison with the rotated token",
        async () => {
          const a = await client.get<Application>(resources.Applications, { namespace: ns, name: "rotated" });
          return a.status?.sync?.status === "OutOfSync" ? a : undefined;
        },
        60_000,
      );
      expect(compared.status?.sync?.revision).toMatch(/^[0-9a-f]{40}$/);
      expect(compared.status?.conditions?.some((c) => c.type === "ComparisonError") ?? false).toBe(false);
      expect(p.child.exitCode).toBe(null);
      p.child.kill("SIGTERM");
      expect(await p.exited).toBe(0);
    } finally {
      await server?.stop();
    }
  });
});
