/**
 * What scopes a project beyond its own lists, tried as a tenant would: repositories and clusters
 * scoped to a project by their Secrets, `permitOnlyProjectScopedClusters`, and a project tightened
 * after a sync, whose Application's deletion must spare what the project no longer permits. A real
 * `appset sync-engine` process with the administrator's rights runs on the real control plane.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Application } from "../../src/api/index.js";
import { resources } from "../../src/kube/index.js";
import { ProjectMessage } from "../../src/project/index.js";
import { eventually } from "../e2e/support/controller.js";
import { conditionLines, configMap, IN_CLUSTER, Tenancy } from "./support/tenancy.js";

const world = new Tenancy();

beforeAll(async () => {
  await world.setUp();
  await world.startEngine();
}, 180_000);

afterAll(async () => {
  await world.tearDown();
});

/** Team A's Application `name` of `repoURL` in `project`, synced once; the Application then. */
async function syncIn(project: string, name: string, repoURL: string, finalizers?: string[]): ReturnType<Tenancy["finished"]> {
  await world.application({
    name,
    namespace: world.teamA,
    project,
    repoURL,
    destinationNamespace: world.teamATarget,
    ...(finalizers ? { finalizers } : {}),
  });
  return world.finished(world.teamA, name);
}

describe("what scopes a project besides its own lists", () => {
  it("permits a repository scoped to the project, and not one scoped to another", async () => {
    await world.project("scoped", {
      sourceRepos: [],
      sourceNamespaces: [world.teamA],
      destinations: [{ server: IN_CLUSTER, namespace: world.teamATarget }],
    });
    const ours = world.repo({ "cm.yaml": configMap("scoped-ours") });
    const theirs = world.repo({ "cm.yaml": configMap("scoped-theirs") });
    await world.argoSecret("repo-ours", "repository", { url: ours, project: "scoped" });
    await world.argoSecret("repo-theirs", "repository", { url: theirs, project: "someone-else" });

    expect((await syncIn("scoped", "scoped-ours", ours)).status?.operationState?.phase).toBe("Succeeded");
    const refused = await syncIn("scoped", "scoped-theirs", theirs);
    expect(conditionLines(refused)).toContain(`InvalidSpecError: ${ProjectMessage.repoNotPermitted(theirs, "scoped")}`);
    expect(refused.status?.operationState?.phase).toBe("Error");
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "scoped-theirs" })).toBe(false);
  });

  it("with permitOnlyProjectScopedClusters, refuses a cluster until a Secret scopes it to the project", async () => {
    await world.project("own-clusters", {
      sourceRepos: ["*"],
      sourceNamespaces: [world.teamA],
      destinations: [{ server: "*", namespace: "*" }],
      permitOnlyProjectScopedClusters: true,
    });
    const repo = world.repo({ "cm.yaml": configMap("own-clusters") });
    const refused = await syncIn("own-clusters", "own-clusters", repo);
    const refusal = ProjectMessage.destinationNotPermitted(IN_CLUSTER, world.teamATarget, "own-clusters");
    expect(conditionLines(refused)).toContain(`InvalidSpecError: ${refusal}`);
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "own-clusters" })).toBe(false);

    await world.argoSecret("local-cluster", "cluster", { name: "local", server: IN_CLUSTER, config: "{}", project: "own-clusters" });
    await world.syncAgain(world.teamA, "own-clusters", "after-scoping");
    await eventually(
      "the sync once the cluster is scoped to the project",
      async () => ((await world.read(world.teamA, "own-clusters")).status?.operationState?.phase === "Succeeded" ? true : undefined),
      90_000,
    );
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "own-clusters" })).toBe(true);
  });

  it("deletes only what the project still permits when an Application is deleted after the project shrank", async () => {
    await world.project("shrinking", {
      sourceRepos: ["*"],
      sourceNamespaces: [world.teamA],
      destinations: [{ server: IN_CLUSTER, namespace: world.teamATarget }],
    });
    const repo = world.repo({
      "cm.yaml": configMap("shrink-cm"),
      "secret.yaml": `apiVersion: v1\nkind: Secret\nmetadata:\n  name: shrink-secret\nstringData:\n  k: v\n`,
    });
    const synced = await syncIn("shrinking", "shrinking", repo, ["resources-finalizer.argocd.argoproj.io"]);
    expect(synced.status?.operationState?.phase).toBe("Succeeded");
    expect(await world.exists(resources.Secrets, { namespace: world.teamATarget, name: "shrink-secret" })).toBe(true);

    await world.admin.patch(
      resources.AppProjects,
      { namespace: world.argocd, name: "shrinking" },
      { type: "merge", body: { spec: { namespaceResourceBlacklist: [{ group: "", kind: "Secret" }] } } },
    );
    // The engine acts on the project it has read: once it has read the shrunk one, the Secret is no
    // longer read as the Application's, its sync status no longer Synced (a deletion in the same
    // instant may still see the old rules).
    await eventually(
      "the engine reading the shrunk project",
      async () => {
        const app = await world.admin.get(resources.Applications, { namespace: world.teamA, name: "shrinking" });
        const secret = (app as Application).status?.resources?.find((r) => r.kind === "Secret" && r.name === "shrink-secret");
        return secret !== undefined && secret.status !== "Synced" ? true : undefined;
      },
      60_000,
    );
    await world.admin.delete(resources.Applications, { namespace: world.teamA, name: "shrinking" });
    await eventually(
      "the Application gone",
      async () => ((await world.exists(resources.Applications, { namespace: world.teamA, name: "shrinking" })) ? undefined : true),
      90_000,
    );
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "shrink-cm" })).toBe(false);
    expect(await world.exists(resources.Secrets, { namespace: world.teamATarget, name: "shrink-secret" })).toBe(true);
  });
});
