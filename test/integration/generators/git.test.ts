// The Git generator over real repositories (git runs); its checks that read no repository are in
// src/generators/git.test.ts.
import { afterAll, describe, expect, it } from "vitest";
import { appSet, context } from "../../unit/generators/builders.js";
import { commit, gitEnv, gitReader, makeRepo, TempDirs } from "../support/git-repos.js";
import { FakeClock } from "../../../src/clock/index.js";
import { GitRepoReader } from "../../../src/git/index.js";
import { gitGenerator } from "../../../src/generators/git.js";
import type { GitGenerator } from "../../../src/api/index.js";

const temp = new TempDirs();
afterAll(() => temp.cleanup());

const repo = makeRepo(temp, {
  "apps/guestbook/kustomization.yaml": "resources: []\n",
  "apps/helm-guestbook/Chart.yaml": "name: g\n",
  "apps/.hidden/x.yaml": "x: 1\n",
  "apps/nested/deep/x.yaml": "x: 1\n",
  "config/dev/config.json": '{"cluster":{"name":"dev","replicas":1000000,"tags":["a","b"]}}',
  "config/prod/config.yaml": "cluster:\n  name: prod\n  enabled: yes\n",
  "config/list.yaml": "- name: one\n- name: two\n",
  "config/empty.yaml": "",
  "config/broken/config.json": "{not json",
  "config/deep/a/b/config.json": '{"cluster":{"name":"deep"}}',
  "root.json": '{"name":"root"}',
  "links/inside.json": { symlink: "../root.json" },
  "links/outside.json": { symlink: "../../../etc/passwd" },
});
const reader = gitReader(temp);
const ctx = (settings = {}) => context({ git: reader }, settings);
const gen = (spec: Partial<GitGenerator>, goTemplate = false, settings = {}) =>
  gitGenerator.generate({ repoURL: repo, revision: "HEAD", ...spec }, appSet([], { goTemplate }), ctx(settings));

describe("the Git directory generator", () => {
  it.each([
    // name; spec; mode; expected parameter sets
    {
      name: "fasttemplate gives path, basename, normalized basename and segments",
      spec: { directories: [{ path: "apps/*" }] },
      goTemplate: false,
      want: [
        {
          path: "apps/guestbook",
          "path.basename": "guestbook",
          "path.basenameNormalized": "guestbook",
          "path[0]": "apps",
          "path[1]": "guestbook",
        },
        {
          path: "apps/helm-guestbook",
          "path.basename": "helm-guestbook",
          "path.basenameNormalized": "helm-guestbook",
          "path[0]": "apps",
          "path[1]": "helm-guestbook",
        },
        { path: "apps/nested", "path.basename": "nested", "path.basenameNormalized": "nested", "path[0]": "apps", "path[1]": "nested" },
      ],
    },
    {
      name: "goTemplate gives a path object, under the prefix when one is set, and values",
      spec: { directories: [{ path: "apps/guestbook" }], pathParamPrefix: "app", values: { p: "{{ .app.path.basename }}" } },
      goTemplate: true,
      want: [
        {
          app: {
            path: { path: "apps/guestbook", basename: "guestbook", basenameNormalized: "guestbook", segments: ["apps", "guestbook"] },
          },
          values: { p: "guestbook" },
        },
      ],
    },
    {
      name: "an exclude rule wins whatever the order",
      spec: { directories: [{ path: "apps/helm-guestbook", exclude: true }, { path: "apps/*" }, { path: "apps/nested", exclude: true }] },
      goTemplate: false,
      want: [expect.objectContaining({ path: "apps/guestbook" })],
    },
    {
      name: "dot-directories and their subtrees are never listed",
      spec: { directories: [{ path: "apps/.hidden" }, { path: "apps/*/*" }] },
      goTemplate: false,
      want: [expect.objectContaining({ path: "apps/nested/deep" })],
    },
    {
      name: "a malformed pattern is skipped, not fatal",
      spec: { directories: [{ path: "apps/[" }, { path: "config" }] },
      goTemplate: false,
      want: [expect.objectContaining({ path: "config" })],
    },
    {
      name: "fasttemplate values use the prefixed parameters",
      spec: { directories: [{ path: "config" }], pathParamPrefix: "p", values: { where: "at-{{p.path.basename}}" } },
      goTemplate: false,
      want: [
        {
          "p.path": "config",
          "p.path.basename": "config",
          "p.path.basenameNormalized": "config",
          "p.path[0]": "config",
          "values.where": "at-config",
        },
      ],
    },
  ])("$name", async ({ spec, goTemplate, want }) => {
    await expect(gen(spec as Partial<GitGenerator>, goTemplate)).resolves.toEqual(want);
  });
});

describe("the Git files generator", () => {
  const skipBroken = { path: "config/broken/*", exclude: true };
  it("flattens file contents in fasttemplate mode and formats values like Go's %v", async () => {
    const got = await gen({ files: [{ path: "config/dev/config.json" }] });
    expect(got).toEqual([
      {
        "cluster.name": "dev",
        "cluster.replicas": "1e+06",
        "cluster.tags.0": "a",
        "cluster.tags.1": "b",
        path: "config/dev",
        "path.basename": "dev",
        "path.basenameNormalized": "dev",
        "path.filename": "config.json",
        "path.filenameNormalized": "config.json",
        "path[0]": "config",
        "path[1]": "dev",
      },
    ]);
  });

  it("keeps the file object and adds a path object in goTemplate mode", async () => {
    const got = await gen({ files: [{ path: "config/prod/config.yaml" }] }, true);
    expect(got).toEqual([
      {
        cluster: { name: "prod", enabled: true },
        path: {
          path: "config/prod",
          basename: "prod",
          basenameNormalized: "prod",
          filename: "config.yaml",
          filenameNormalized: "config.yaml",
          segments: ["config", "prod"],
        },
      },
    ]);
  });

  it.each([
    // name; rules; globbing mode; expected file paths in order
    {
      name: "old globbing lets a star cross directories",
      files: [{ path: "config/*/config.json" }, skipBroken],
      newGlob: false,
      want: ["config/deep/a/b", "config/dev"],
    },
    {
      name: "new globbing keeps a star within one directory",
      files: [{ path: "config/*/config.json" }, skipBroken],
      newGlob: true,
      want: ["config/dev"],
    },
    {
      name: "new globbing spans directories with a double star",
      files: [{ path: "config/**/config.json" }, skipBroken],
      newGlob: true,
      want: ["config/deep/a/b", "config/dev"],
    },
    {
      name: "exclude rules remove files",
      files: [{ path: "config/**/config.json" }, { path: "config/broken/*", exclude: true }],
      newGlob: false,
      want: ["config/deep/a/b", "config/dev"],
    },
    { name: "a list file gives one set per item", files: [{ path: "config/list.yaml" }], newGlob: false, want: ["config", "config"] },
    { name: "an empty file gives one empty set", files: [{ path: "config/empty.yaml" }], newGlob: false, want: ["config"] },
    { name: "a file at the root has path '.'", files: [{ path: "root.json" }], newGlob: false, want: ["."] },
    {
      name: "a symlink inside the repository is followed, one leaving it is ignored",
      files: [{ path: "links/*" }],
      newGlob: false,
      want: ["links"],
    },
    { name: "no matching file gives nothing", files: [{ path: "nope/*.json" }], newGlob: false, want: [] },
  ])("$name", async ({ files, newGlob, want }) => {
    const got = await gen({ files }, false, { newGitFileGlobbing: newGlob });
    expect(got.map((p) => p["path"])).toEqual(want);
  });

  it("reports a file that does not parse with the spec's message", async () => {
    await expect(gen({ files: [{ path: "config/broken/config.json" }] })).rejects.toThrow(
      `error generating params from git: unable to process file 'config/broken/config.json' from repository '${repo}': unable to parse file: `,
    );
  });

  it("gives a root file's basename as '.' and an empty normalized basename", async () => {
    const [p] = await gen({ files: [{ path: "root.json" }] });
    expect(p).toMatchObject({ name: "root", path: ".", "path.basename": ".", "path.basenameNormalized": "", "path.filename": "root.json" });
  });
});

describe("the Git generator's revision and failures", () => {
  it("reads the revision asked for, and sees new commits on the next call", async () => {
    const r = makeRepo(temp, { "a/x.txt": "1" });
    const spec = { repoURL: `file://${r}`, revision: "main", directories: [{ path: "*" }] };
    const first = await gitGenerator.generate(spec, appSet([]), ctx());
    commit(r, { "b/x.txt": "2" });
    const second = await gitGenerator.generate(spec, appSet([]), ctx());
    expect([first.map((p) => p["path"]), second.map((p) => p["path"])]).toEqual([["a"], ["a", "b"]]);
  });

  it("fails with a typed error when the repository is unreachable, never with an empty list", async () => {
    await expect(gen({ repoURL: `${repo}-missing`, directories: [{ path: "*" }] })).rejects.toMatchObject({
      reason: "ApplicationGenerationFromParamsError",
      message: expect.stringMatching(
        /^error generating params from git: error getting directories from git: error retrieving Git Directories: rpc error: code = Internal desc = unable to resolve git revision : failed to list refs: /,
      ),
    });
  });
});

describe("the Git generator and the revision cache", () => {
  it("resolves a revision afresh when the ApplicationSet asks for a refresh, and from the cache otherwise", async () => {
    const moving = makeRepo(temp, { "apps/one/x.yaml": "x: 1\n" });
    const clock = new FakeClock(0);
    const cached = new GitRepoReader({
      localRepositories: true,
      cacheDir: temp.make("appset-cache-"),
      env: gitEnv(),
      clock,
      revisionCacheMs: 60_000,
    });
    const run = (freshRevisions: boolean) =>
      gitGenerator.generate({ repoURL: moving, revision: "main", directories: [{ path: "apps/*" }] }, appSet([]), {
        ...context({ git: cached }),
        freshRevisions,
      });
    expect((await run(false)).map((p) => p["path"])).toEqual(["apps/one"]);
    commit(moving, { "apps/two/x.yaml": "x: 2\n" });
    // Within the interval a pass without a refresh sees what ls-remote said a moment ago.
    expect((await run(false)).map((p) => p["path"])).toEqual(["apps/one"]);
    expect((await run(true)).map((p) => p["path"])).toEqual(["apps/one", "apps/two"]);
    expect(cached.stats.lsRemote).toBe(2);
  });
});
