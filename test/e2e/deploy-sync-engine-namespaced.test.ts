/**
 * The team install of the sync engine (deploy/install-with-sync-engine-namespaced) on a real
 * apiserver: its ServiceAccount, ClusterRoles and bindings are applied, and `appset sync-engine`
 * runs as its own process with nothing but that ServiceAccount's token. It syncs into a namespace
 * the platform team gave it (a RoleBinding of the write role), and an Application whose project
 * would let it deploy into another namespace still cannot: the apiserver refuses the engine there.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { KubeApiClient, resources, type KubeObject, type ResourceDescriptor } from "../../src/kube/index.js";
import { serviceAccountKubeConfig } from "./support/access.js";
import { Applier, placement } from "./support/kubectl.js";
import { renderKustomization } from "../unit/deploy/kustomize.js";
import { makeRepo, TempDirs } from "../integration/support/git-repos.js";
import { eventually, spawnController, type ControllerProcess } from "./support/controller.js";

const ENGINE = "argocd-applicationset-sync-engine";
const run = randomBytes(3).toString("hex");
const own = `engine-team-${run}`;
const given = `engine-given-${run}`;
const withheld = `engine-withheld-${run}`;
const place = placement(own, run);
const installed = renderKustomization("deploy/install-with-sync-engine-namespaced")
  // The test creates its own default AppProject.
  .filter((o) => !["CustomResourceDefinition", "Deployment", "Service", "AppProject"].includes(o.kind))
  .map(place.object);
const temp = new TempDirs();
const RoleBindings: ResourceDescriptor = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  plural: "rolebindings",
  kind: "RoleBinding",
  namespaced: true,
};

let admin: KubeApiClient;
let applier: Applier;
let engine: ControllerProcess | undefined;

beforeAll(async () => {
  const kubeconfig = inject("kubeconfigPath");
  admin = KubeApiClient.fromConfig({ kind: "file", path: kubeconfig });
  applier = new Applier(admin);
  await applier.apply(installed);
  for (const name of [given, withheld]) await admin.create(resources.Namespaces, { metadata: { name } });
  // What the platform team does for the team: the write role in the namespace it deploys to.
  await admin.create(RoleBindings, {
    metadata: { name: ENGINE, namespace: given },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `${ENGINE}-write-${run}` },
    subjects: [{ kind: "ServiceAccount", name: ENGINE, namespace: own }],
  });
  await admin.create(resources.AppProjects, {
    metadata: { name: "default", namespace: own },
    spec: { sourceRepos: ["*"], destinations: [{ server: "*", namespace: "*" }] },
  });
  const kc = await serviceAccountKubeConfig(admin, kubeconfig, own, ENGINE);
  const path = join(temp.make("engine-kubeconfig-"), "config");
  writeFileSync(path, kc.exportConfig(), { mode: 0o600 });
  engine = spawnController(["--namespace", own, "--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"], "sync-engine", path);
  await engine.waitForLog("sync engine starting", 90_000);
}, 120_000);

afterAll(async () => {
  if (engine !== undefined && engine.child.exitCode === null) engine.child.kill("SIGKILL");
  for (const obj of installed.filter((o) => o.kind.startsWith("Cluster"))) {
    await admin.delete(await applier.resourceOf(obj), { name: obj.metadata.name }).catch(() => undefined);
  }
  for (const name of [own, given, withheld]) await admin.delete(resources.Namespaces, { name }).catch(() => undefined);
  await admin.transport.close();
  temp.cleanup();
});

const configMap = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`;

/** Creates an Application of the engine's namespace into `destination`, with a sync operation; its state once it ends. */
async function syncInto(name: string, destination: string): Promise<{ phase?: string; message?: string }> {
  const repo = makeRepo(temp, { "app/cm.yaml": configMap(name) });
  await admin.create(resources.Applications, {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: own },
    spec: {
      project: "default",
      source: { repoURL: `file://${repo}`, targetRevision: "main", path: "app" },
      destination: { server: "https://kubernetes.default.svc", namespace: destination },
    },
    operation: { sync: { revision: "main" }, initiatedBy: { username: "team" } },
  });
  return eventually(
    `the operation of ${name} to end`,
    async () => {
      const a = await admin.get<KubeObject & { status?: { operationState?: { phase?: string; message?: string } } }>(
        resources.Applications,
        { namespace: own, name },
      );
      const state = a.status?.operationState;
      return state?.phase !== undefined && state.phase !== "Running" ? state : undefined;
    },
    90_000,
  );
}

describe("the sync engine of a team install (deploy/install-with-sync-engine-namespaced)", () => {
  it("syncs into a namespace the platform team gave it", async () => {
    const state = await syncInto("given", given);
    expect(state.phase).toBe("Succeeded");
    const cm = await admin.get(resources.ConfigMaps, { namespace: given, name: "given" });
    expect(cm.metadata?.name).toBe("given");
  });

  it("cannot write where it was given nothing, whatever the project allows", async () => {
    const state = await syncInto("withheld", withheld);
    expect(state.phase).toBe("Failed");
    expect(state.message).toMatch(new RegExp(`forbidden: User "system:serviceaccount:${own}:${ENGINE}" cannot`));
    const list = await admin.list(resources.ConfigMaps, { namespace: withheld });
    expect(list.items.map((c) => c.metadata?.name)).not.toContain("withheld");
  });
});
