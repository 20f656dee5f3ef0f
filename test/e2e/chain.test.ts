/**
 * The whole chain in one process, as a cluster without Argo CD runs it: `appset controller
 * --enable-sync-engine` turns an ApplicationSet into Applications, and the sync engine deploys each
 * Application's manifests from a real Git repository into the cluster (automated sync), waves first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient, type KubeObject } from "../../src/kube/index.js";
import { makeRepo, TempDirs } from "../integration/support/git-repos.js";
import { controllerNamespace, eventually, sharedClient, spawnController, type ControllerProcess } from "./support/controller.js";

const temp = new TempDirs();
let client: KubeApiClient;
let ns: string;
const procs: ControllerProcess[] = [];

beforeAll(async () => {
  client = sharedClient();
  ns = await controllerNamespace(client, "chain");
});

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill("SIGKILL");
  await client.delete(resources.Namespaces, { name: ns }).catch(() => undefined);
  await client.transport.close();
  temp.cleanup();
});

const configMap = (name: string, wave: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations:\n    argocd.argoproj.io/sync-wave: "${wave}"\ndata:\n  wave: "${wave}"\n`;

describe("appset controller --enable-sync-engine", () => {
  it("generates Applications and deploys their manifests from Git, in wave order", async () => {
    const repo = makeRepo(temp, {
      "apps/blue/first.yaml": configMap("blue-first", "0"),
      "apps/blue/second.yaml": configMap("blue-second", "1"),
      "apps/green/first.yaml": configMap("green-first", "0"),
    });
    const proc = spawnController([
      "--namespace",
      ns,
      "--probe-addr",
      "127.0.0.1:0",
      "--metrics-addr",
      "127.0.0.1:0",
      "--enable-sync-engine",
    ]);
    procs.push(proc);
    const started = await proc.waitForLog("applicationset controller starting");
    await proc.waitForLog("caches synced, starting workers");
    await client.create(resources.ApplicationSets, {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "ApplicationSet",
      metadata: { name: "colours", namespace: ns },
      spec: {
        goTemplate: true,
        generators: [{ git: { repoURL: `file://${repo}`, revision: "main", directories: [{ path: "apps/*" }] } }],
        template: {
          metadata: { name: "{{ .path.basename }}" },
          spec: {
            project: "default",
            source: { repoURL: `file://${repo}`, targetRevision: "main", path: "{{ .path.path }}" },
            destination: { server: "https://kubernetes.default.svc", namespace: ns },
            syncPolicy: { automated: { prune: true } },
          },
        },
      },
    });

    const deployed = await eventually(
      "every manifest deployed",
      async () => {
        const list = await client.list(resources.ConfigMaps, { namespace: ns });
        const ours = list.items.filter((c: KubeObject) => ["blue-first", "blue-second", "green-first"].includes(c.metadata?.name ?? ""));
        return ours.length === 3 ? ours : undefined;
      },
      110_000,
    );
    const byName = new Map(deployed.map((c) => [c.metadata?.name, c]));
    // Wave 0 is applied before wave 1: its object is older in the apiserver's ordering.
    expect(Number(byName.get("blue-first")?.metadata?.resourceVersion)).toBeLessThan(
      Number(byName.get("blue-second")?.metadata?.resourceVersion),
    );

    const apps = await eventually(
      "Applications Synced and Healthy",
      async () => {
        const list = await client.list(resources.Applications, { namespace: ns });
        const done = list.items.filter((a) => {
          const status = a["status"] as { sync?: { status?: string }; health?: { status?: string } } | undefined;
          return status?.sync?.status === "Synced" && status.health?.status === "Healthy";
        });
        return done.length === 2 ? list.items : undefined;
      },
      110_000,
    );
    expect(apps.map((a) => a.metadata?.name).sort()).toEqual(["blue", "green"]);

    // The controller's /metrics carries the engine's Argo CD application metrics.
    const scrape = await (await fetch(`${String(started["metrics"])}/metrics`)).text();
    for (const name of ["blue", "green"]) {
      const labels = `namespace="${ns}",name="${name}",project="default",dest_server="https://kubernetes.default.svc"`;
      expect(scrape).toContain(`argocd_app_sync_total{${labels},phase="Succeeded"} 1`);
      expect(scrape).toMatch(
        new RegExp(`argocd_app_info\\{namespace="${ns}",name="${name}",[^}]*sync_status="Synced",health_status="Healthy"`),
      );
    }
    expect(scrape).toMatch(/argocd_app_k8s_request_total\{[^}]*verb="Patch",resource_kind="configmaps"[^}]*\} [1-9]/);
    expect(scrape).toMatch(/argocd_app_reconcile_count\{namespace="[^"]+",dest_server="https:\/\/kubernetes.default.svc"\} [1-9]/);
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  });
});

describe("appset sync-engine", () => {
  it("runs on its own: serves health and metrics, and exits 0 on SIGTERM", async () => {
    const engine = spawnController(["--namespace", ns, "--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"], "sync-engine");
    procs.push(engine);
    const start = await engine.waitForLog("sync engine starting");
    expect((await fetch(`${String(start["probe"])}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${String(start["metrics"])}/metrics`)).text()).toContain("process_resident_memory_bytes");
    // The Applications of the namespace (synced above) are reported by the stand-alone engine too.
    const info = new RegExp(`argocd_app_info\\{namespace="${ns}",name="blue",`);
    await eventually(
      "argocd_app_info of blue",
      async () => info.test(await (await fetch(`${String(start["metrics"])}/metrics`)).text()) || undefined,
      30_000,
    );
    engine.child.kill("SIGTERM");
    expect(await engine.exited).toBe(0);
  });
});
