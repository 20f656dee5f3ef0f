import { afterAll, describe, expect, it } from "vitest";
import type { Application, ApplicationSource } from "../../../src/api/index.js";
import { FakeClock } from "../../../src/clock/index.js";
import { commit, git, gitEnv, gitReader, makeRepo, TempDirs } from "../support/git-repos.js";
import { GitRepoReader } from "../../../src/git/index.js";
import { GitManifestSource, sourceRoot } from "../../../src/syncwaves/git-source.js";
import { MANIFEST_ERROR } from "../../../src/syncwaves/manifests.js";

const temp = new TempDirs();
afterAll(() => temp.cleanup());

const cm = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;
const app = { metadata: { name: "a" }, spec: { destination: {}, project: "default" } } as unknown as Application;

const repo = makeRepo(temp, {
  "apps/web/a.yaml": `${cm("a1")}---\n${cm("a2")}\n---\n`,
  "apps/web/b.json": JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "b" } }),
  "apps/web/list.yml": `apiVersion: v1\nkind: List\nitems:\n- ${cm("l1").replace(/\n/g, "\n  ")}`,
  "apps/web/README.md": "not a manifest\n",
  "apps/web/nested/c.yaml": cm("c"),
  "apps/web/nested/skip-me.yaml": cm("skipped"),
  "other/d.yaml": cm("d"),
  "jsonnet/main.jsonnet": "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'j' } }\n",
  "jsonnet/plain.yaml": cm("p"),
});
const first = git(repo, "rev-parse", "HEAD").trim();
git(repo, "tag", "v1");
git(repo, "branch", "release");
const second = commit(repo, { "apps/web/a.yaml": cm("a-changed") });
const url = `file://${repo}`;

function names(objects: readonly { metadata?: { name?: string } }[]): string[] {
  return objects.map((o) => o.metadata?.name ?? "");
}

describe("reading an Application's manifests from Git", () => {
  it.each([
    { name: "HEAD reads the default branch tip", targetRevision: "HEAD", want: () => second, first: "a-changed" },
    { name: "an empty targetRevision means HEAD", targetRevision: undefined, want: () => second, first: "a-changed" },
    { name: "a branch reads its tip", targetRevision: "release", want: () => first, first: "a1" },
    { name: "a tag reads its commit", targetRevision: "v1", want: () => first, first: "a1" },
    { name: "a commit SHA reads that commit", targetRevision: first, want: () => first, first: "a1" },
  ])("$name", async ({ targetRevision, want, first: firstName }) => {
    const source: ApplicationSource = { repoURL: url, path: "apps/web", ...(targetRevision !== undefined ? { targetRevision } : {}) };
    const got = await new GitManifestSource(gitReader(temp)).read(app, source);
    expect(got.revision).toBe(want());
    expect(names(got.objects)[0]).toBe(firstName);
  });

  it.each([
    {
      name: "without recurse only the top directory is read, every document of each file",
      directory: undefined,
      want: ["a1", "a2", "b", "l1"],
    },
    { name: "recurse reads subdirectories too", directory: { recurse: true }, want: ["a1", "a2", "b", "l1", "c", "skipped"] },
    { name: "include keeps only matching files", directory: { recurse: true, include: "*.json" }, want: ["b"] },
    {
      name: "exclude drops matching files, by base name or path",
      directory: { recurse: true, exclude: "{nested/skip-*,*.yml}" },
      want: ["a1", "a2", "b", "c"],
    },
  ])("$name", async ({ directory, want }) => {
    const source: ApplicationSource = { repoURL: url, path: "apps/web", targetRevision: "v1", ...(directory ? { directory } : {}) };
    const got = await new GitManifestSource(gitReader(temp)).read(app, source);
    expect(names(got.objects)).toEqual(want);
  });

  it("reads a pinned revision instead of the targetRevision, as a running sync needs", async () => {
    const got = await new GitManifestSource(gitReader(temp)).read(app, { repoURL: url, path: "apps/web", targetRevision: "HEAD" }, first);
    expect(got.revision).toBe(first);
    expect(names(got.objects)[0]).toBe("a1");
  });

  it("reads the repository root when the path is empty or '.'", async () => {
    const source = new GitManifestSource(gitReader(temp));
    for (const path of ["", "."]) {
      const got = await source.read(app, { repoURL: url, path, targetRevision: "v1", directory: { recurse: true, include: "d.yaml" } });
      expect(names(got.objects)).toEqual(["d"]);
    }
  });

  it("re-reads nothing from git for a commit it already parsed", async () => {
    const reader = gitReader(temp);
    const source = new GitManifestSource(reader);
    await source.read(app, { repoURL: url, path: "apps/web", targetRevision: first });
    const before = { ...reader.stats };
    await source.read(app, { repoURL: url, path: "apps/web", targetRevision: first });
    expect(reader.stats).toEqual(before);
  });

  it.each([
    {
      name: "a path that does not exist",
      source: { repoURL: url, path: "nope", targetRevision: "v1" },
      message: /app path does not exist/,
    },
    {
      name: "a path leaving the repository",
      source: { repoURL: url, path: "../x", targetRevision: "v1" },
      message: /leaves the repository/,
    },
    {
      name: "a directory of Jsonnet files",
      source: { repoURL: url, path: "jsonnet" },
      message: /^Jsonnet sources are not supported \(main\.jsonnet\); only plain YAML\/JSON, Helm and Kustomize$/,
    },
    {
      name: "a plugin source",
      source: { repoURL: url, path: "apps/web", plugin: { name: "p" } },
      message: /^config management plugin sources are not supported$/,
    },
    {
      name: "a chart from an OCI registry (a repoURL without a scheme) with no registry reader",
      source: { repoURL: "registry.example.com/charts", chart: "web", targetRevision: "1.0.0" },
      message: /^Helm OCI registries are not configured \(registry\.example\.com\/charts\)$/,
    },
    {
      name: "a source with two option blocks",
      source: { repoURL: url, path: "apps/web", helm: {}, kustomize: {} },
      message: /^error getting app source type: multiple application sources defined: Kustomize,Helm$/,
    },
  ])("fails with a manifest error for $name", async ({ source, message }) => {
    await expect(new GitManifestSource(gitReader(temp)).read(app, source as ApplicationSource)).rejects.toMatchObject({
      reason: MANIFEST_ERROR,
      message: expect.stringMatching(message) as unknown,
    });
  });

  it("fails with the reader's error for a revision that names nothing", async () => {
    await expect(
      new GitManifestSource(gitReader(temp)).read(app, { repoURL: url, path: "apps/web", targetRevision: "no-such" }),
    ).rejects.toMatchObject({ reason: "RevisionNotFound" });
  });

  it.each([
    { name: "undefined is the root", path: undefined, want: "" },
    { name: "'./a//b/' is normalised", path: "./a//b/", want: "a/b" },
  ])("source root: $name", ({ path, want }) => {
    expect(sourceRoot(path)).toBe(want);
  });
});

describe("a refresh and the Git service's revision cache", () => {
  it.each([
    { name: "no refresh reads what the cache resolved a moment ago", options: {}, fresh: false },
    { name: "a normal refresh (a webhook push) resolves afresh", options: { refresh: true }, fresh: true },
    { name: "a hard refresh resolves afresh", options: { hard: true, refresh: true }, fresh: true },
  ])("$name", async ({ options, fresh }) => {
    const moving = makeRepo(temp, { "m/a.yaml": cm("one") });
    const reader = new GitRepoReader({
      localRepositories: true,
      cacheDir: temp.make("appset-cache-"),
      env: gitEnv(),
      clock: new FakeClock(0),
      revisionCacheMs: 60_000,
    });
    const source = new GitManifestSource(reader);
    const spec: ApplicationSource = { repoURL: `file://${moving}`, path: "m", targetRevision: "main" };
    const before = await source.read(app, spec);
    const pushed = commit(moving, { "m/a.yaml": cm("two") });
    const after = await source.read(app, spec, undefined, options);
    expect(after.revision).toBe(fresh ? pushed : before.revision);
    expect(names(after.objects)).toEqual([fresh ? "two" : "one"]);
  });
});
