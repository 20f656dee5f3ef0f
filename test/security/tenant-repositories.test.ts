/**
 * A tenant's Applications and ApplicationSets naming repositories that would read the process's
 * disk, on the real control plane: the sync engine and the controller run as an install runs them
 * (no `--allow-local-repositories`). A local path or `file://` URL is refused with a clear condition
 * and nothing is applied; a repository served over HTTP whose link leads out of the render folder
 * is refused with Argo CD's message; a permitted neighbour over HTTP still syncs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeObject } from "../../src/kube/index.js";
import { ALLOW_LOCAL_REPOSITORIES_ENV } from "../support/vitest-setup.js";
import { conditionRows, eventually, processArgs, readAppSet, spawnController, type ControllerProcess } from "../e2e/support/controller.js";
import { serveGitHttp, type GitHttpServer } from "../integration/support/git-http.js";
import { git, makeRepo, TempDirs, type FileSpec } from "../integration/support/git-repos.js";
import { conditionLines, configMap, IN_CLUSTER, Tenancy } from "./support/tenancy.js";

const world = new Tenancy();
const temp = new TempDirs();
let server: GitHttpServer;
let root: string;
let controller: ControllerProcess | undefined;
/** The environment of an install: local repositories not read. */
const installEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  delete env[ALLOW_LOCAL_REPOSITORIES_ENV];
  return env;
};

/** The condition line of team A's Application `name` that holds `words`, once there. */
function refusal(name: string, words: string): Promise<string> {
  return eventually("the refusal", async () => conditionLines(await world.read(world.teamA, name)).find((l) => l.includes(words)));
}

/** A repository served over HTTP; its URL. */
function served(name: string, files: Record<string, FileSpec>): string {
  git(root, "clone", "-q", "--bare", makeRepo(temp, files), `${root}/${name}.git`);
  return `${server.url}/${name}.git`;
}

beforeAll(async () => {
  await world.setUp();
  root = temp.make("appset-served-");
  server = await serveGitHttp(root);
  await world.project("team-a", {
    sourceNamespaces: [world.teamA],
    sourceRepos: ["*"],
    destinations: [{ server: IN_CLUSTER, namespace: world.teamATarget }],
  });
  await world.startEngine(installEnv());
});

afterAll(async () => {
  if (controller !== undefined && controller.child.exitCode === null) controller.child.kill("SIGKILL");
  await server.stop();
  await world.tearDown();
  temp.cleanup();
});

describe("repositories that would read the process's disk", () => {
  it("an Application naming a file:// repository is refused, nothing of it is applied, and a neighbour over HTTP syncs", async () => {
    const local = world.repo({ "cm.yaml": configMap("from-local-disk") });
    await world.application({
      name: "local",
      namespace: world.teamA,
      project: "team-a",
      repoURL: local,
      destinationNamespace: world.teamATarget,
    });
    const refused = await refusal("local", "names a local path or a file:// URL");
    expect(refused).toContain(`repository URL ${JSON.stringify(local)} names a local path or a file:// URL`);
    await world.teamASync("neighbour", served("neighbour", { "cm.yaml": configMap("neighbour") }));
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "neighbour" })).toBe(true);
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name: "from-local-disk" })).toBe(false);
  });

  it("a repository whose kustomization reads a file through a link out of the render folder is refused with Argo CD's message", async () => {
    const url = served("escape", {
      "kustomization.yaml": "resources:\n  - cm.yaml\n",
      "cm.yaml": { symlink: "../../../../../../../../../../../../var/run/secrets/kubernetes.io/serviceaccount/token" },
    });
    await world.application({
      name: "escape",
      namespace: world.teamA,
      project: "team-a",
      repoURL: url,
      destinationNamespace: world.teamATarget,
    });
    const refused = await refusal("escape", "out-of-bounds symlinks");
    expect(refused).toMatch(/^ComparisonError: .*repository contains out-of-bounds symlinks\. file: cm\.yaml/);
    const app = await world.read(world.teamA, "escape");
    expect(app.status?.operationState?.phase).not.toBe("Succeeded");
  });

  it("an ApplicationSet of a team naming a local repository in its Git generator gets an error condition and no Application", async () => {
    const args = processArgs(world.argocd, "--applicationset-namespaces", world.teamA, "--enable-scm-providers=false");
    controller = spawnController(args, "controller", undefined, installEnv());
    await controller.waitForLog("caches synced, starting workers", 90_000);
    const local = world.repo({ "apps/a/config.json": "{}" });
    await world.admin.create<KubeObject>(resources.ApplicationSets, {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "ApplicationSet",
      metadata: { name: "local-gen", namespace: world.teamA },
      spec: {
        goTemplate: true,
        generators: [{ git: { repoURL: local, revision: "main", directories: [{ path: "apps/*" }] } }],
        template: {
          metadata: { name: "{{.path.basename}}" },
          spec: {
            project: "team-a",
            source: { repoURL: local, path: "{{.path.path}}" },
            destination: { server: IN_CLUSTER, namespace: world.teamATarget },
          },
        },
      },
    });
    const row = await eventually("the error condition", async () => {
      const rows = conditionRows(await readAppSet(world.admin, world.teamA, "local-gen"));
      return rows.find((r) => r[0] === "ErrorOccurred" && r[1] === "True");
    });
    expect(row[3]).toContain(`repository URL ${JSON.stringify(local)} names a local path or a file:// URL`);
    expect(await world.exists(resources.Applications, { namespace: world.teamA, name: "a" })).toBe(false);
  });
});
