/**
 * The sync engine's RBAC of deploy/ on a real apiserver: the ServiceAccount and ClusterRole of
 * deploy/install-with-sync-engine are applied, and `appset sync-engine` runs as its own process
 * with nothing but that ServiceAccount's token (TokenRequest API). It must sync an Application of
 * its namespace whose manifests go to another namespace, and report it on /metrics (its sync and its
 * requests to the apiserver). Without the ClusterRole, the controller's ServiceAccount cannot write
 * there (the rights really come from it).
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { isForbidden, KubeApiClient, resources, type KubeObject } from "../../src/kube/index.js";
import { serviceAccountClient, serviceAccountKubeConfig } from "./support/access.js";
import { Applier, placement } from "./support/kubectl.js";
import { renderKustomization } from "../unit/deploy/kustomize.js";
import { makeRepo, TempDirs } from "../integration/support/git-repos.js";
import { eventually, spawnController, type ControllerProcess } from "./support/controller.js";

const ENGINE = "argocd-applicationset-sync-engine";
const run = randomBytes(3).toString("hex");
const own = `engine-rbac-${run}`;
const target = `engine-target-${run}`;
const place = placement(own, run);
const installed = renderKustomization("deploy/install-with-sync-engine")
  // The test creates its own default AppProject.
  .filter((o) => !["CustomResourceDefinition", "Deployment", "Service", "AppProject"].includes(o.kind))
  .map(place.object);
const temp = new TempDirs();

let admin: KubeApiClient;
let applier: Applier;
let engine: ControllerProcess | undefined;

/** A kubeconfig file that authenticates as `serviceAccount` of `namespace` with a fresh token. */
async function serviceAccountKubeconfig(kubeconfigPath: string, namespace: string, serviceAccount: string): Promise<string> {
  const kc = await serviceAccountKubeConfig(admin, kubeconfigPath, namespace, serviceAccount);
  const path = join(temp.make("engine-kubeconfig-"), "config");
  writeFileSync(path, kc.exportConfig(), { mode: 0o600 });
  return path;
}

beforeAll(async () => {
  const kubeconfig = inject("kubeconfigPath");
  admin = KubeApiClient.fromConfig({ kind: "file", path: kubeconfig });
  applier = new Applier(admin);
  await applier.apply(installed);
  await admin.create(resources.Namespaces, { metadata: { name: target } });
  await admin.create(resources.AppProjects, {
    metadata: { name: "default", namespace: own },
    spec: { sourceRepos: ["*"], destinations: [{ server: "*", namespace: target }] },
  });
  const path = await serviceAccountKubeconfig(kubeconfig, own, ENGINE);
  engine = spawnController(["--namespace", own, "--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"], "sync-engine", path);
}, 120_000);

afterAll(async () => {
  if (engine !== undefined && engine.child.exitCode === null) engine.child.kill("SIGKILL");
  for (const obj of installed.filter((o) => o.kind.startsWith("Cluster"))) {
    await admin.delete(await applier.resourceOf(obj), { name: obj.metadata.name }).catch(() => undefined);
  }
  for (const name of [own, target]) await admin.delete(resources.Namespaces, { name }).catch(() => undefined);
  await admin.transport.close();
  temp.cleanup();
});

const configMap = (name: string, wave: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations:\n    argocd.argoproj.io/sync-wave: "${wave}"\ndata:\n  wave: "${wave}"\n`;

describe("the sync engine with the ServiceAccount of deploy/sync-engine", () => {
  it("syncs an Application into another namespace and reports it on /metrics", async () => {
    const start = await engine!.waitForLog("sync engine starting", 90_000);
    const repo = makeRepo(temp, { "app/first.yaml": configMap("first", "0"), "app/second.yaml": configMap("second", "1") });
    await admin.create(resources.Applications, {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Application",
      metadata: { name: "rbac", namespace: own },
      spec: {
        project: "default",
        source: { repoURL: `file://${repo}`, targetRevision: "main", path: "app" },
        destination: { server: "https://kubernetes.default.svc", namespace: target },
        syncPolicy: { automated: { prune: true } },
      },
    });
    const app = await eventually(
      "the Application synced by the engine",
      async () => {
        const a = await admin.get(resources.Applications, { namespace: own, name: "rbac" });
        const status = a["status"] as { operationState?: { phase?: string }; sync?: { status?: string } } | undefined;
        return status?.operationState?.phase === "Succeeded" && status.sync?.status === "Synced" ? status : undefined;
      },
      120_000,
    );
    expect(app.sync?.status).toBe("Synced");
    const deployed = await admin.list<KubeObject>(resources.ConfigMaps, { namespace: target });
    expect(
      deployed.items
        .map((c) => c.metadata?.name)
        .filter((n) => n === "first" || n === "second")
        .sort(),
    ).toEqual(["first", "second"]);
    expect(engine!.logs.some((l) => /forbidden/i.test(JSON.stringify(l)))).toBe(false);

    const scrape = await (await fetch(`${String(start["metrics"])}/metrics`)).text();
    expect(scrape).toContain(
      `argocd_app_sync_total{namespace="${own}",name="rbac",project="default",dest_server="https://kubernetes.default.svc",phase="Succeeded"} 1`,
    );
    // client-go's request counter, as Argo CD's application controller serves it: the engine's reads and writes.
    const host = new URL(admin.transport.server).host.replace(/[.]/g, "\\.");
    const requests = (method: string): RegExp =>
      new RegExp(`^rest_client_requests_total\\{code="20[01]",host="${host}",method="${method}"\\} [1-9]\\d*$`, "m");
    expect(scrape).toMatch(requests("GET"));
    expect(scrape).toMatch(requests("PATCH"));
  });

  it("owes those rights to its ClusterRole: the controller's ServiceAccount may not write there", async () => {
    const controller = await serviceAccountClient(admin, inject("kubeconfigPath"), own, "argocd-applicationset-controller");
    try {
      const err = await controller
        .create(resources.ConfigMaps, { metadata: { name: "intruder", namespace: target } })
        .catch((e: unknown) => e);
      expect(isForbidden(err)).toBe(true);
    } finally {
      await controller.transport.close();
    }
  });
});
