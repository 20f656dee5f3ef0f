import { writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { git, gitEnv, makeRepo, TempDirs } from "../../test/unit/generators/support.js";
import { serveGitHttp, type GitHttpServer } from "../../test/unit/generators/git-http.js";
import { generateCommand, parseObjects } from "./generate.js";

const temp = new TempDirs();
afterAll(() => temp.cleanup());

const clusterYaml = (name: string, server: string) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: `${name}-secret`, namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "cluster" } },
  stringData: { name, server },
});

const appSetYaml = (generators: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "ApplicationSet",
  metadata: { name: "demo", namespace: "argocd" },
  spec: {
    goTemplate: true,
    generators,
    template: { metadata: { name: "{{ .name }}" }, spec: { project: "default", destination: { server: "{{ .server }}" }, source: { repoURL: "https://x", path: "." } } },
    ...extra,
  },
});

function write(name: string, content: unknown): string {
  const path = join(temp.make(), name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

async function run(...args: string[]) {
  return runIn(undefined, ...args);
}

async function runIn(cwd: string | undefined, ...args: string[]) {
  let out = "";
  let err = "";
  const code = await generateCommand(args, { out: (s) => (out += s), err: (s) => (err += s), env: gitEnv(), ...(cwd === undefined ? {} : { cwd }) });
  return { code, out, err };
}

describe("appset generate", () => {
  it.each([
    // name; how the cluster Secrets file is written
    { name: "several YAML documents", file: () => write("c.yaml", [clusterYaml("b", "https://b"), clusterYaml("a", "https://a")].map((o) => JSON.stringify(o)).join("\n---\n")) },
    { name: "a List", file: () => write("c.json", { apiVersion: "v1", kind: "List", items: [clusterYaml("b", "https://b"), clusterYaml("a", "https://a")] }) },
    { name: "a JSON array", file: () => write("c.json", [clusterYaml("b", "https://b"), clusterYaml("a", "https://a")]) },
  ])("reads cluster Secrets from $name and prints YAML sorted by name with the local cluster", async ({ file }) => {
    const res = await run("-f", write("appset.json", appSetYaml([{ clusters: {} }])), "--clusters", file());
    expect(res).toMatchObject({ code: 0, err: "" });
    const apps = parseAllDocuments(res.out).map((d) => d.toJS() as { metadata: { name: string; namespace: string }; spec: { destination: { server: string } } });
    expect(apps.map((a) => [a.metadata.name, a.spec.destination.server, a.metadata.namespace])).toEqual([
      ["a", "https://a", "argocd"],
      ["b", "https://b", "argocd"],
      ["in-cluster", "https://kubernetes.default.svc", "argocd"],
    ]);
  });

  it("exits 1 with the generator's error on stderr and prints nothing when generation fails", async () => {
    const appSet = appSetYaml([{ git: { repoURL: join(temp.make(), "missing"), revision: "HEAD", directories: [{ path: "*" }] } }]);
    const res = await run("-f", write("appset.yaml", appSet), "--git-cache", temp.make());
    expect(res.code).toBe(1);
    expect(res.out).toBe("");
    expect(res.err).toMatch(/^appset generate: error generating params from git: error getting directories from git: error retrieving Git Directories: rpc error: code = Internal desc = unable to resolve git revision : failed to list refs: /);
  });

  it.each([
    // name; the list elements; the controller's validation message
    { name: "a duplicate name", elements: [{ name: "x", server: "https://a" }, { name: "x", server: "https://b" }], error: "ApplicationSet demo contains applications with duplicate name: x" },
    {
      name: "several invalid names",
      elements: [{ name: "x", server: "https://a" }, { name: "x", server: "https://b" }, { name: "", server: "https://c" }],
      error: "ApplicationSet demo contains applications with duplicate name: x (and 1 more)",
    },
  ])("exits 1 with the controller's validation error and prints nothing on $name", async ({ elements, error }) => {
    const res = await run("-f", write("a.json", appSetYaml([{ list: { elements } }])));
    expect(res).toEqual({ code: 1, out: "", err: `appset generate: ${error}\n` });
  });

  it("reads a Git repository named by a path relative to the working directory", async () => {
    const repo = makeRepo(temp, { "apps/one/k.yaml": "a: 1\n", "apps/two/k.yaml": "a: 2\n" });
    const appSet = appSetYaml([{ git: { repoURL: `./${basename(repo)}`, revision: "main", directories: [{ path: "apps/*" }] } }]);
    appSet.spec.template.metadata.name = "{{ .path.basename }}";
    const res = await runIn(dirname(repo), "-f", write("a.yaml", appSet), "-o", "json", "--git-cache", temp.make());
    expect(res.err).toBe("");
    expect((JSON.parse(res.out) as { metadata: { name: string } }[]).map((a) => a.metadata.name)).toEqual(["one", "two"]);
  });

  it("reads an omitted Git revision as HEAD, as Argo CD's CLI does (also inside a matrix)", async () => {
    const repo = makeRepo(temp, { "apps/one/k.yaml": "a: 1\n" });
    const appSet = appSetYaml([{ matrix: { generators: [{ list: { elements: [{ env: "dev" }] } }, { git: { repoURL: repo, directories: [{ path: "apps/*" }] } }] } }]);
    appSet.spec.template.metadata.name = "{{ .env }}-{{ .path.basename }}";
    const res = await run("-f", write("a.yaml", appSet), "-o", "json", "--git-cache", temp.make());
    expect(res.err).toBe("");
    expect((JSON.parse(res.out) as { metadata: { name: string } }[]).map((a) => a.metadata.name)).toEqual(["dev-one"]);
  });

  it("exits 1 when a template fails to render", async () => {
    const res = await run("-f", write("a.json", appSetYaml([{ list: { elements: [{ name: "x" }] } }], { goTemplateOptions: ["missingkey=error"], templatePatch: "{{ .nope }}" })));
    expect(res.code).toBe(1);
    expect(res.err).toContain("map has no entry for key");
  });

  it.each([
    { name: "a missing -f", args: [], error: "-f FILE is required" },
    { name: "an unknown output format", args: ["-f", "x.yaml", "-o", "xml"], error: 'unknown output format "xml"' },
    { name: "an unknown flag", args: ["--nope"], error: "Unknown option '--nope'" },
  ])("exits 2 on $name", async ({ args, error }) => {
    const res = await run(...args);
    expect(res.code).toBe(2);
    expect(res.err).toContain(error);
  });

  describe("with a remote repository over smart HTTP", () => {
    let server: GitHttpServer;
    beforeAll(async () => {
      const work = makeRepo(temp, { "apps/one/k.yaml": "a: 1\n", "apps/two/k.yaml": "a: 2\n" });
      const root = temp.make();
      git(root, "clone", "-q", "--bare", work, join(root, "apps.git"));
      server = await serveGitHttp(root, { username: "bob", password: "pw" });
    });
    afterAll(() => server.stop());

    it("uses credentials from repository Secrets and prints JSON", async () => {
      const url = `${server.url}/apps.git`;
      const repoSecret = { apiVersion: "v1", kind: "Secret", metadata: { name: "repo", namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "repository" } }, stringData: { url, username: "bob", password: "pw" } };
      const appSet = appSetYaml([{ git: { repoURL: url, revision: "main", directories: [{ path: "apps/*" }] } }]);
      appSet.spec.template.metadata.name = "{{ .path.basename }}";
      const res = await run("-f", write("a.yaml", appSet), "-o", "json", "--clusters", write("s.json", [repoSecret]), "--git-cache", temp.make());
      expect(res.err).toBe("");
      expect((JSON.parse(res.out) as { metadata: { name: string } }[]).map((a) => a.metadata.name)).toEqual(["one", "two"]);
    });
  });

  it("parses objects from documents, Lists and arrays alike", () => {
    const text = "kind: A\n---\n- kind: B\n- kind: C\n---\nkind: SecretList\nitems:\n  - kind: D\n";
    expect(parseObjects(text).map((o) => o.kind)).toEqual(["A", "B", "C", "D"]);
  });
});
