// The Git generator's checks that read no repository: the empty generator, the requeue delay and
// the literal-project rule. The cases over real repositories are in test/integration/generators.
import { describe, expect, it } from "vitest";
import { appSet, context } from "../../test/unit/generators/builders.js";
import type { GitReader } from "../git/index.js";
import { GeneratorError } from "./errors.js";
import { checkFileSizes, gitGenerator, treeDirectories } from "./git.js";
import { literalProject } from "./shared-credentials.js";

describe("the Git generator without a repository", () => {
  it("fails when neither directories nor files are set, before asking for a Git reader", async () => {
    await expect(
      gitGenerator.generate({ repoURL: "https://example.com/repo.git", revision: "HEAD" }, appSet([]), context()),
    ).rejects.toThrow("ApplicationSet is empty");
  });

  it("fails with a typed error when no Git reader is configured", async () => {
    await expect(
      gitGenerator.generate(
        { repoURL: "https://example.com/repo.git", revision: "HEAD", directories: [{ path: "*" }] },
        appSet([]),
        context(),
      ),
    ).rejects.toThrow("no Git reader configured");
  });

  it.each([
    { name: "requeueAfterSeconds wins", spec: { requeueAfterSeconds: 30 }, want: 30_000 },
    { name: "zero means no requeue", spec: { requeueAfterSeconds: 0 }, want: 0 },
    { name: "otherwise the controller default applies", spec: {}, want: 180_000 },
  ])("$name", ({ spec, want }) => {
    expect(gitGenerator.requeueAfterMs({ repoURL: "x", revision: "", ...spec }, context().settings)).toBe(want);
  });
});

describe("the literal project of an ApplicationSet's template", () => {
  const withProject = (project: string) =>
    appSet([], {
      template: {
        metadata: { name: "{{path.basename}}" },
        spec: {
          project,
          destination: { server: "https://kubernetes.default.svc" },
          source: { repoURL: "https://example.com/repo.git", path: "x" },
        },
      },
    });

  it.each([
    { name: "a plain name is literal", proj: "team-a", want: "team-a" },
    { name: "an empty project is literal too", proj: "", want: "" },
    { name: "a fasttemplate reference makes it templated", proj: "{{project}}", want: undefined },
    { name: "a Go template inside a name makes it templated", proj: "team-{{ .env }}", want: undefined },
  ])("$name", ({ proj, want }) => {
    expect(literalProject(withProject(proj))).toBe(want);
  });
});

describe("directories of a tree with submodules", () => {
  const entry = (path: string, type: "blob" | "tree" | "commit") => ({
    path,
    type,
    mode: type === "commit" ? "160000" : "040000",
    oid: "0",
  });
  it("counts a submodule left unexpanded as the empty directory a checkout leaves, and skips dot-directories", () => {
    expect(
      treeDirectories([entry("apps", "tree"), entry("apps/lib", "commit"), entry(".github", "tree"), entry("a.json", "blob")]),
    ).toEqual(["apps", "apps/lib"]);
  });
});

describe("the byte limits of the files a Git files generator reads", () => {
  const file = (path: string) => ({ path, type: "blob" as const, mode: "100644", oid: path });
  it.each<{ name: string; sizes: number[]; error?: string }>([
    // name; sizes of the matched files in path order (limits: 10 bytes a file, 25 in all); expected error
    { name: "files within both limits pass", sizes: [10, 10, 5] },
    {
      name: "one file over the per-file limit fails, naming it",
      sizes: [3, 11],
      error:
        "file 'f1.yaml' in repository 'https://example.com/repo.git' has 11 bytes, more than the 10 bytes a Git files generator reads from one file; raise --git-file-max-bytes to read it",
    },
    {
      name: "files together over the pass limit fail",
      sizes: [10, 10, 6],
      error:
        "the files matched in repository 'https://example.com/repo.git' hold more than 25 bytes in all, the most a Git files generator reads in one pass; narrow files[].path, or raise --git-files-max-bytes",
    },
  ])("$name", ({ sizes, error }) => {
    const files = sizes.map((_, i) => file(`f${String(i)}.yaml`));
    const contents = sizes.map((n) => Buffer.alloc(n));
    const check = (): void =>
      checkFileSizes(files, contents, "https://example.com/repo.git", context({}, { gitFileMaxBytes: 10, gitFilesMaxBytes: 25 }));
    if (error === undefined) expect(check).not.toThrow();
    else expect(check).toThrow(new GeneratorError(error));
  });

  it("fails the generator with a condition's error, never with no results", async () => {
    const files = [file("a/config.json"), file("b/config.json")];
    const git: GitReader = {
      resolveRevision: () => Promise.resolve("c0ffee"),
      listTree: () => Promise.resolve(files),
      readBlobs: () => Promise.resolve([Buffer.from('{"a":1}'), Buffer.alloc(40, 32)]),
    };
    const run = gitGenerator.generate(
      { repoURL: "https://example.com/repo.git", revision: "HEAD", files: [{ path: "*/config.json" }] },
      appSet([]),
      context({ git }, { gitFilesMaxBytes: 30 }),
    );
    await expect(run).rejects.toBeInstanceOf(GeneratorError);
    await expect(run).rejects.toThrow(/^error generating params from git: .*hold more than 30 bytes in all/);
  });
});

describe("the revisions a refresh asks for", () => {
  const recording = (calls: string[]): GitReader => ({
    resolveRevision: (url, rev) => (calls.push(`resolve ${url} ${rev}`), Promise.resolve("c0ffee")),
    listTree: () => Promise.resolve([]),
    readBlobs: () => Promise.resolve([]),
    invalidate: (url) => void calls.push(`invalidate ${url}`),
  });

  it.each([
    // a webhook push or the refresh annotation: the kept ls-remote answer is dropped before resolving
    { name: "a refresh forgets the kept revisions first", freshRevisions: true, want: ["invalidate", "resolve"] },
    { name: "a periodic pass uses them", freshRevisions: false, want: ["resolve"] },
  ])("$name", async ({ freshRevisions, want }) => {
    const calls: string[] = [];
    const repoURL = "https://example.com/repo.git";
    await gitGenerator.generate({ repoURL, revision: "main", directories: [{ path: "*" }] }, appSet([]), {
      ...context({ git: recording(calls) }),
      freshRevisions,
    });
    expect(calls).toEqual(want.map((w) => (w === "invalidate" ? `invalidate ${repoURL}` : `resolve ${repoURL} main`)));
  });
});
