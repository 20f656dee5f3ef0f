// The Git generator's checks that read no repository: the empty generator, the requeue delay and
// the literal-project rule. The cases over real repositories are in test/integration/generators.
import { describe, expect, it } from "vitest";
import { appSet, context } from "../../test/unit/generators/builders.js";
import { gitGenerator, literalProject, treeDirectories } from "./git.js";

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
