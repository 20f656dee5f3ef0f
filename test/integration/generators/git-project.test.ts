import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { encodeSecretData, type ApplicationSet } from "../../../src/api/index.js";
import { credentialsFromSecrets } from "../../../src/git/index.js";
import type { KubeObject, KubeReader, ResourceDescriptor } from "../../../src/kube/index.js";
import { appSet, context } from "../../unit/generators/builders.js";
import { git, gitReader, makeRepo, TempDirs } from "../support/git-repos.js";
import { serveGitHttp, type GitHttpServer } from "../support/git-http.js";
import { gitGenerator } from "../../../src/generators/git.js";
import { portsFromKubeReader, portsFromObjects } from "../../../src/generators/object-ports.js";
import type { GeneratorPorts } from "../../../src/generators/types.js";

const temp = new TempDirs();
afterAll(() => temp.cleanup());

const repo = makeRepo(temp, { "apps/a/config.json": "{}" });
const spec = { repoURL: repo, revision: "HEAD", directories: [{ path: "apps/*" }] };

function withProject(project: string): ApplicationSet {
  return appSet([], {
    template: {
      metadata: { name: "{{path.basename}}" },
      spec: { project, destination: { server: "https://kubernetes.default.svc" }, source: { repoURL: repo, path: "x" } },
    },
  });
}

function project(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: "argoproj.io/v1alpha1", kind: "AppProject", metadata: { name, namespace: "argocd" }, spec };
}

/** A KubeReader over fixed objects that answers a missing object the way the apiserver does, and records what was asked. */
function readerOver(objects: KubeObject[], fail?: Error): KubeReader & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    get: <T extends KubeObject>(r: ResourceDescriptor, key: { namespace?: string; name: string }) => {
      asked.push(`${r.group}/${r.version}/${r.plural} ${key.namespace ?? ""}/${key.name}`);
      if (fail !== undefined) return Promise.reject(fail);
      const hit = objects.find((o) => o.metadata?.name === key.name);
      if (hit === undefined)
        return Promise.reject(Object.assign(new Error(`${r.plural}.${r.group} "${key.name}" not found`), { reason: "NotFound" }));
      return Promise.resolve(hit as T);
    },
    list: () => Promise.reject(new Error("unexpected list")),
  };
}

describe("the spec-level project check of the Git generator", () => {
  const reader = gitReader(temp);
  const objectPorts = (objs: KubeObject[]): GeneratorPorts => ({ ...portsFromObjects(objs, "argocd"), git: reader });
  const kubePorts = (objs: KubeObject[], fail?: Error): GeneratorPorts => ({
    ...portsFromKubeReader(readerOver(objs, fail), "argocd"),
    git: reader,
  });
  const missing = 'error getting project team-a: appprojects.argoproj.io "team-a" not found';

  it.each([
    // name; ports; spec-level project; expected outcome (a path list, or an error message)
    {
      name: "an existing project in the object list lets the generator run",
      ports: () => objectPorts([project("team-a")]),
      proj: "team-a",
      want: ["apps/a"],
    },
    {
      name: "an existing project read through the API lets the generator run",
      ports: () => kubePorts([project("team-a")]),
      proj: "team-a",
      want: ["apps/a"],
    },
    {
      name: "a project missing from the object list fails like the apiserver's NotFound",
      ports: () => objectPorts([project("other")]),
      proj: "team-a",
      want: missing,
    },
    {
      name: "a project the API does not have fails with the apiserver's NotFound text",
      ports: () => kubePorts([]),
      proj: "team-a",
      want: missing,
    },
    {
      name: "a failed API read fails with its cause",
      ports: () => kubePorts([], new Error("appprojects is forbidden")),
      proj: "team-a",
      want: "error getting project team-a: appprojects is forbidden",
    },
    {
      name: "a project in another namespace does not count",
      ports: () => objectPorts([{ ...project("team-a"), metadata: { name: "team-a", namespace: "elsewhere" } }]),
      proj: "team-a",
      want: missing,
    },
    {
      name: "a malformed project is an error, not an absent one",
      ports: () => objectPorts([project("team-a", { sourceRepos: "not-a-list" })]),
      proj: "team-a",
      want: /^error getting project team-a: .*sourceRepos/,
    },
    { name: "a templated project is not looked up", ports: () => kubePorts([]), proj: "{{path.basename}}", want: ["apps/a"] },
    {
      name: "without a projects port the check is skipped",
      ports: (): GeneratorPorts => ({ git: reader }),
      proj: "team-a",
      want: ["apps/a"],
    },
    {
      name: "an object list holding no AppProject at all skips the check (an offline preview)",
      ports: () => objectPorts([]),
      proj: "team-a",
      want: ["apps/a"],
    },
  ])("$name", async ({ ports, proj, want }) => {
    const run = gitGenerator.generate(spec, withProject(proj), context(ports()));
    if (Array.isArray(want)) await expect(run.then((ps) => ps.map((p) => p["path"]))).resolves.toEqual(want);
    else
      await expect(run).rejects.toMatchObject({
        reason: "ApplicationGenerationFromParamsError",
        message: want instanceof RegExp ? expect.stringMatching(want) : want,
      });
  });

  it("reads the AppProject from the controller namespace through the argoproj.io/v1alpha1 appprojects resource", async () => {
    const kube = readerOver([project("team-a")]);
    await gitGenerator.generate(spec, withProject("team-a"), context({ ...portsFromKubeReader(kube, "argocd"), git: reader }));
    expect(kube.asked).toEqual(["argoproj.io/v1alpha1/appprojects argocd/team-a"]);
  });

  it("checks the project before anything else, so an empty generator still reports the missing project", async () => {
    await expect(gitGenerator.generate({ repoURL: repo, revision: "HEAD" }, withProject("team-a"), context(kubePorts([])))).rejects.toThrow(
      missing,
    );
  });
});

describe("project-scoped repository credentials in the Git generator", () => {
  let server: GitHttpServer;
  let url = "";
  beforeAll(async () => {
    const work = makeRepo(temp, { "apps/x/config.json": "{}" });
    const root = temp.make("appset-served-");
    git(root, "clone", "-q", "--bare", work, join(root, "repo.git"));
    server = await serveGitHttp(root, { username: "alice", password: "s3cret" });
    url = `${server.url}/repo.git`;
  });
  afterAll(() => server.stop());

  const scoped = () => ({
    metadata: { name: "repo-team-a", labels: { "argocd.argoproj.io/secret-type": "repository" } },
    data: encodeSecretData({ url, username: "alice", password: "s3cret", project: "team-a" }),
  });

  it.each([
    // name; spec-level project; whether the repository is readable
    { name: "the project the Secret is scoped to gets access", proj: "team-a", ok: true },
    { name: "another project is refused, with a typed error", proj: "team-b", ok: false },
    { name: "a templated project is refused, with a typed error", proj: "{{path.basename}}", ok: false },
  ])("$name", async ({ proj, ok }) => {
    const ports: GeneratorPorts = {
      ...portsFromObjects([project("team-a"), project("team-b")], "argocd"),
      git: gitReader(temp, credentialsFromSecrets([scoped()])),
    };
    const run = gitGenerator.generate(
      { repoURL: url, revision: "main", directories: [{ path: "apps/*" }] },
      withProject(proj),
      context(ports),
    );
    if (ok) await expect(run.then((ps) => ps.map((p) => p["path"]))).resolves.toEqual(["apps/x"]);
    else
      await expect(run).rejects.toMatchObject({
        reason: "ApplicationGenerationFromParamsError",
        message: expect.stringMatching(
          /^error generating params from git: error getting directories from git: error retrieving Git Directories: rpc error: code = Internal desc = unable to resolve git revision : failed to list refs: /,
        ),
      });
  });

  it.each([
    // name; the project's sourceNamespaces; whether an ApplicationSet in team-ns reads the repository
    { name: "a project that does not take the ApplicationSet's namespace lends it no credentials", sourceNamespaces: [], ok: false },
    { name: "a project whose sourceNamespaces match the ApplicationSet's namespace lends them", sourceNamespaces: ["team-*"], ok: true },
  ])("$name", async ({ sourceNamespaces, ok }) => {
    const tenant = withProject("team-a");
    tenant.metadata.namespace = "team-ns";
    const ports: GeneratorPorts = {
      ...portsFromObjects([project("team-a", { sourceNamespaces })], "argocd"),
      git: gitReader(temp, credentialsFromSecrets([scoped()])),
    };
    const asked = server.authorizations.length;
    const run = gitGenerator.generate({ repoURL: url, revision: "main", directories: [{ path: "apps/*" }] }, tenant, context(ports));
    if (ok) await expect(run.then((ps) => ps.map((p) => p["path"]))).resolves.toEqual(["apps/x"]);
    else {
      await expect(run).rejects.toThrow(/failed to list refs: /);
      // the server challenged, and git had no password to answer with
      expect(server.authorizations.slice(asked).every((a) => a === "")).toBe(true);
    }
  });

  it("does not let another project read by commit SHA what the entitled project brought into the cache", async () => {
    const reader = gitReader(temp, credentialsFromSecrets([scoped()]));
    const sha = await reader.resolveRevision(url, "main", undefined, { project: "team-a" });
    await expect(reader.listTree(url, sha, undefined, { project: "team-a" })).resolves.toHaveLength(3);
    await expect(reader.listTree(url, sha, undefined, { project: "team-b" })).rejects.toThrow(/git fetch/);
    await expect(reader.readBlobs(url, sha, [], undefined, {})).rejects.toThrow(/git fetch/);
    await expect(reader.listTree(url, sha, undefined, { project: "team-a" })).resolves.toHaveLength(3);
  });
});
