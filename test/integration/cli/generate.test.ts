import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appSetYaml, GenerateCli } from "../../support/generate-cli.js";
import { serveGitHttp, type GitHttpServer } from "../support/git-http.js";
import { git, gitEnv, makeRepo, TempDirs } from "../support/git-repos.js";

// `appset generate` over real Git repositories; the cases without Git are in src/cli/generate.test.ts.

const temp = new TempDirs();
const cli = new GenerateCli(gitEnv());
afterAll(() => {
  temp.cleanup();
  cli.cleanup();
});
const write = (name: string, content: unknown): string => cli.write(name, content);
const run = (...args: string[]) => cli.run(args);
const runIn = (cwd: string, ...args: string[]) => cli.run(args, cwd);

describe("appset generate", () => {
  it("exits 1 with the generator's error on stderr and prints nothing when generation fails", async () => {
    const appSet = appSetYaml([{ git: { repoURL: join(temp.make(), "missing"), revision: "HEAD", directories: [{ path: "*" }] } }]);
    const res = await run("-f", write("appset.yaml", appSet), "--git-cache", temp.make());
    expect(res.code).toBe(1);
    expect(res.out).toBe("");
    expect(res.err).toMatch(
      /^appset generate: error generating params from git: error getting directories from git: error retrieving Git Directories: rpc error: code = Internal desc = unable to resolve git revision : failed to list refs: /,
    );
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
    const appSet = appSetYaml([
      { matrix: { generators: [{ list: { elements: [{ env: "dev" }] } }, { git: { repoURL: repo, directories: [{ path: "apps/*" }] } }] } },
    ]);
    appSet.spec.template.metadata.name = "{{ .env }}-{{ .path.basename }}";
    const res = await run("-f", write("a.yaml", appSet), "-o", "json", "--git-cache", temp.make());
    expect(res.err).toBe("");
    expect((JSON.parse(res.out) as { metadata: { name: string } }[]).map((a) => a.metadata.name)).toEqual(["dev-one"]);
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
      const repoSecret = {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "repo", namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "repository" } },
        stringData: { url, username: "bob", password: "pw" },
      };
      const appSet = appSetYaml([{ git: { repoURL: url, revision: "main", directories: [{ path: "apps/*" }] } }]);
      appSet.spec.template.metadata.name = "{{ .path.basename }}";
      const res = await run(
        "-f",
        write("a.yaml", appSet),
        "-o",
        "json",
        "--clusters",
        write("s.json", [repoSecret]),
        "--git-cache",
        temp.make(),
      );
      expect(res.err).toBe("");
      expect((JSON.parse(res.out) as { metadata: { name: string } }[]).map((a) => a.metadata.name)).toEqual(["one", "two"]);
    });
  });
});
