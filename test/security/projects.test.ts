/**
 * Tenants stay inside their AppProject, tried as an attacker would: a real `appset sync-engine`
 * process with the administrator's rights (so nothing here is refused by RBAC) syncs the
 * Applications of several teams on the real control plane. Each attack asserts the refusal (the
 * condition or the operation's message, Argo CD's words), that nothing of it reached the apiserver
 * (read back), and that a permitted neighbour in the same project still syncs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resources, type ResourceDescriptor } from "../../src/kube/index.js";
import { DestinationMessage, ProjectMessage, SyncPermissionMessage } from "../../src/project/index.js";
import { SYNC_OPERATION_BLOCKED_MESSAGE } from "../../src/project/sync-windows-gate.js";
import { eventually } from "../e2e/support/controller.js";
import { conditionLines, configMap, IN_CLUSTER, Tenancy } from "./support/tenancy.js";

const ClusterRoleBindings: ResourceDescriptor = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  plural: "clusterrolebindings",
  kind: "ClusterRoleBinding",
  namespaced: false,
};
const Jobs: ResourceDescriptor = { group: "batch", version: "v1", plural: "jobs", kind: "Job", namespaced: true };

const world = new Tenancy();
/** Team A's permitted repository (a ConfigMap), and the attacker's repositories. */
let permittedRepo: string;
let escalationRepo: string;
let otherNamespaceRepo: string;
let deniedKindRepo: string;
let hookRepo: string;
let unlistedRepo: string;
let siblingRepo: string;
let windowedRepo: string;

const INVALID = "one or more synchronization tasks are not valid";
const bindingName = `sec-tenant-admin-${world.run}`;
const hookName = `sec-hook-${world.run}`;

beforeAll(async () => {
  await world.setUp();
  permittedRepo = world.repo({ "cm.yaml": configMap("neighbour") });
  escalationRepo = world.repo({
    "cm.yaml": configMap("innocent"),
    "crb.yaml": [
      "apiVersion: rbac.authorization.k8s.io/v1",
      "kind: ClusterRoleBinding",
      "metadata:",
      `  name: ${bindingName}`,
      "roleRef:",
      "  apiGroup: rbac.authorization.k8s.io",
      "  kind: ClusterRole",
      "  name: cluster-admin",
      "subjects:",
      "  - kind: ServiceAccount",
      "    name: default",
      `    namespace: ${world.teamATarget}`,
      "",
    ].join("\n"),
  });
  otherNamespaceRepo = world.repo({ "cm.yaml": configMap("planted", world.teamBTarget) });
  deniedKindRepo = world.repo({
    "secret.yaml": `apiVersion: v1\nkind: Secret\nmetadata:\n  name: sec-denied\nstringData:\n  token: x\n`,
  });
  hookRepo = world.repo({
    "cm.yaml": configMap("with-hook"),
    "hook.yaml": [
      "apiVersion: batch/v1",
      "kind: Job",
      "metadata:",
      `  name: ${hookName}`,
      "  namespace: kube-system",
      "  annotations:",
      "    argocd.argoproj.io/hook: PreSync",
      "spec:",
      "  template:",
      "    spec:",
      "      restartPolicy: Never",
      "      containers:",
      "        - name: x",
      "          image: busybox",
      "",
    ].join("\n"),
  });
  unlistedRepo = world.repo({ "cm.yaml": configMap("unlisted") });
  siblingRepo = world.repo({ "cm.yaml": configMap("sibling") });
  windowedRepo = world.repo({ "cm.yaml": configMap("windowed") });
  const repos = [permittedRepo, siblingRepo, windowedRepo, escalationRepo, otherNamespaceRepo, deniedKindRepo, hookRepo];
  // Team A's project: its repositories, its namespace, no cluster-scoped kind, no Secrets.
  await world.project("team-a", {
    sourceRepos: repos,
    sourceNamespaces: [world.teamA],
    destinations: [{ server: IN_CLUSTER, namespace: world.teamATarget }],
    namespaceResourceBlacklist: [{ group: "", kind: "Secret" }],
    // A deny window open around the clock, for the Application named "windowed" only.
    syncWindows: [{ kind: "deny", schedule: "* * * * *", duration: "1h", applications: ["windowed"] }],
  });
  // A project that does not take Applications from team A's namespace.
  await world.project("team-b", {
    sourceRepos: ["*"],
    sourceNamespaces: [`sec-team-b-${world.run}`],
    destinations: [{ server: "*", namespace: "*" }],
    clusterResourceWhitelist: [{ group: "*", kind: "*" }],
  });
  await world.startEngine();
}, 180_000);

afterAll(async () => {
  await world.admin.delete(ClusterRoleBindings, { name: bindingName }).catch(() => undefined);
  await world.admin.delete(Jobs, { namespace: "kube-system", name: hookName }).catch(() => undefined);
  await world.tearDown();
});

describe("the sync engine keeps tenants inside their AppProject", () => {
  it("syncs a permitted Application of team A (the neighbour every refusal is measured against)", async () => {
    const app = await world.teamASync("neighbour", permittedRepo);
    expect(app.status?.operationState?.phase).toBe("Succeeded");
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "neighbour" })).toBe(true);
  });

  it("never touches an Application of a namespace application.namespaces does not allow", async () => {
    const created = await world.application({
      name: "outsider",
      namespace: world.outside,
      project: "default",
      repoURL: permittedRepo,
      destinationNamespace: world.teamATarget,
    });
    // A sibling in an allowed namespace, created after it, is synced: the engine has looked.
    await world.application({
      name: "after-outsider",
      namespace: world.teamA,
      project: "team-a",
      repoURL: siblingRepo,
      destinationNamespace: world.teamATarget,
    });
    expect((await world.finished(world.teamA, "after-outsider")).status?.operationState?.phase).toBe("Succeeded");
    const now = await world.read(world.outside, "outsider");
    expect(now.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(now.status).toBeUndefined();
  });

  it("refuses a project whose sourceNamespaces do not list the Application's namespace", async () => {
    await world.application({
      name: "borrower",
      namespace: world.teamA,
      project: "team-b",
      repoURL: unlistedRepo,
      destinationNamespace: world.teamBTarget,
    });
    const app = await world.finished(world.teamA, "borrower");
    const refusal = ProjectMessage.namespaceNotPermitted("borrower", world.teamA, "team-b");
    expect(app.status?.operationState?.phase).toBe("Error");
    expect(app.status?.operationState?.message).toBe(`Failed to load application project: ${refusal}`);
    expect(conditionLines(app)).toContain(`UnknownError: ${refusal}`);
    expect(app.status?.sync?.status).toBe("Unknown");
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamBTarget, name: "unlisted" })).toBe(false);
  });

  it("refuses a repository the project does not list, without reading it", async () => {
    const app = await world.teamASync("unlisted", unlistedRepo);
    const refusal = ProjectMessage.repoNotPermitted(unlistedRepo, "team-a");
    expect(conditionLines(app)).toContain(`InvalidSpecError: ${refusal}`);
    expect(app.status?.operationState).toMatchObject({ phase: "Error", message: `InvalidSpecError: ${refusal}` });
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "unlisted" })).toBe(false);
  });

  it("refuses a destination namespace outside the project's destinations", async () => {
    await world.application({
      name: "elsewhere",
      namespace: world.teamA,
      project: "team-a",
      repoURL: permittedRepo,
      destinationNamespace: world.teamBTarget,
    });
    const app = await world.finished(world.teamA, "elsewhere");
    const refusal = ProjectMessage.destinationNotPermitted(IN_CLUSTER, world.teamBTarget, "team-a");
    expect(conditionLines(app)).toContain(`InvalidSpecError: ${refusal}`);
    expect(app.status?.operationState?.phase).toBe("Error");
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamBTarget, name: "neighbour" })).toBe(false);
  });

  it("refuses a repository that carries a ClusterRoleBinding to cluster-admin, and applies none of it", async () => {
    const app = await world.teamASync("escalation", escalationRepo);
    const refusal = SyncPermissionMessage.resourceNotPermitted("rbac.authorization.k8s.io", "ClusterRoleBinding", "team-a");
    expect(app.status?.operationState).toMatchObject({ phase: "Failed", message: `${INVALID}: ${refusal}` });
    expect(await world.exists(ClusterRoleBindings, { name: bindingName })).toBe(false);
    // The whole sync is refused, the permitted ConfigMap of the same repository included.
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "innocent" })).toBe(false);
  });

  it("refuses an object whose own namespace is outside the project's destinations", async () => {
    const app = await world.teamASync("planter", otherNamespaceRepo);
    const refusal = SyncPermissionMessage.namespaceNotPermitted(world.teamBTarget, "team-a");
    expect(app.status?.operationState).toMatchObject({ phase: "Failed", message: `${INVALID}: ${refusal}` });
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamBTarget, name: "planted" })).toBe(false);
  });

  it("refuses a kind the project denies", async () => {
    const app = await world.teamASync("denied-kind", deniedKindRepo);
    const refusal = SyncPermissionMessage.resourceNotPermitted("", "Secret", "team-a");
    expect(app.status?.operationState).toMatchObject({ phase: "Failed", message: `${INVALID}: ${refusal}` });
    expect(await world.exists(resources.Secrets, { namespace: world.teamATarget, name: "sec-denied" })).toBe(false);
  });

  it("holds a sync inside a deny window, applying nothing", async () => {
    await world.application({
      name: "windowed",
      namespace: world.teamA,
      project: "team-a",
      repoURL: windowedRepo,
      destinationNamespace: world.teamATarget,
    });
    const held = await eventually(
      "the operation held by the window",
      async () => {
        const app = await world.read(world.teamA, "windowed");
        return app.status?.operationState?.message === SYNC_OPERATION_BLOCKED_MESSAGE ? app : undefined;
      },
      60_000,
    );
    expect(held.status?.operationState?.phase).toBe("Running");
    expect(held.status?.operationState?.syncResult?.resources ?? []).toEqual([]);
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "windowed" })).toBe(false);
  });

  it("refuses a PreSync hook Job in kube-system before any hook runs", async () => {
    const app = await world.teamASync("hooked", hookRepo);
    const refusal = SyncPermissionMessage.namespaceNotPermitted("kube-system", "team-a");
    expect(app.status?.operationState).toMatchObject({ phase: "Failed", message: `${INVALID}: ${refusal}` });
    expect(await world.exists(Jobs, { namespace: "kube-system", name: hookName })).toBe(false);
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "with-hook" })).toBe(false);
  });

  it("refuses to create a namespace (a cluster-scoped kind) the project does not whitelist", async () => {
    const fresh = `sec-a-fresh-${world.run}`;
    await world.admin.patch(
      resources.AppProjects,
      { namespace: world.argocd, name: "team-a" },
      {
        type: "merge",
        body: {
          spec: {
            destinations: [
              { server: IN_CLUSTER, namespace: world.teamATarget },
              { server: IN_CLUSTER, namespace: fresh },
            ],
          },
        },
      },
    );
    await world.application({
      name: "creator",
      namespace: world.teamA,
      project: "team-a",
      repoURL: permittedRepo,
      destinationNamespace: fresh,
      syncOptions: ["CreateNamespace=true"],
    });
    const app = await world.finished(world.teamA, "creator");
    const refusal = SyncPermissionMessage.resourceNotPermitted("", "Namespace", "team-a");
    expect(app.status?.operationState).toMatchObject({ phase: "Failed", message: `${INVALID}: ${refusal}` });
    expect(await world.exists(resources.Namespaces, { name: fresh })).toBe(false);
  });

  it("refuses the in-cluster destination once argocd-cm turns it off, and follows the change live", async () => {
    await world.admin.create(resources.ConfigMaps, {
      metadata: { name: "argocd-cm", namespace: world.argocd, labels: { "app.kubernetes.io/part-of": "argocd" } },
      data: { "cluster.inClusterEnabled": "false" },
    });
    const repo = world.repo({ "cm.yaml": configMap("in-cluster-off") });
    await world.admin.patch(
      resources.AppProjects,
      { namespace: world.argocd, name: "team-a" },
      { type: "merge", body: { spec: { sourceRepos: [permittedRepo, repo] } } },
    );
    const app = await world.teamASync("in-cluster-off", repo);
    const refusal = DestinationMessage.byServer(IN_CLUSTER, DestinationMessage.clusterDisabled(IN_CLUSTER));
    expect(conditionLines(app)).toContain(`InvalidSpecError: ${refusal}`);
    expect(app.status?.operationState?.phase).toBe("Error");
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "in-cluster-off" })).toBe(false);
    // Turned on again, the next sync goes through without a restart.
    await world.admin.delete(resources.ConfigMaps, { namespace: world.argocd, name: "argocd-cm" });
    await world.admin.patch(
      resources.Applications,
      { namespace: world.teamA, name: "in-cluster-off" },
      { type: "merge", body: { operation: { sync: { revision: "main" }, initiatedBy: { username: "tenant" } } } },
    );
    await eventually(
      "the Application synced once in-cluster is enabled again",
      async () => ((await world.read(world.teamA, "in-cluster-off")).status?.operationState?.phase === "Succeeded" ? true : undefined),
      90_000,
    );
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "in-cluster-off" })).toBe(true);
  });
});
