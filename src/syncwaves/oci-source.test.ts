import { describe, expect, it } from "vitest";
import type { Application } from "../api/index.js";
import { AppSetError } from "../errors.js";
import type { GitReader, RepoAccess, TreeEntry } from "../git/index.js";
import type { ArtifactTree } from "../oci/index.js";
import { GitManifestSource } from "./git-source.js";
import { MANIFEST_ERROR } from "./manifests.js";
import { artifactBlob, artifactEntries, isOciSource, withOciArtifacts, type OciArtifacts } from "./oci-source.js";

const cm = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

const TREE: ArtifactTree = {
  dirs: new Set(["apps", "apps/web"]),
  files: new Map([
    ["apps/web/cm.yaml", Buffer.from(cm("web"))],
    ["top.yaml", Buffer.from(cm("top"))],
  ]),
  links: new Map([
    ["apps/web/link.yaml", "top.yaml"],
    ["apps/here", "apps"],
  ]),
};
const DIGEST = `sha256:${"a".repeat(64)}`;

/** An artifact reader over one tree, recording what it was asked. */
function artifacts(fail?: Error): OciArtifacts & { asked: { revision: string; access: RepoAccess }[] } {
  const asked: { revision: string; access: RepoAccess }[] = [];
  return {
    asked,
    tags: () => Promise.resolve([]),
    artifactAt: (_url, revision, opts) => {
      asked.push({ revision, access: opts.access });
      return fail === undefined ? Promise.resolve({ digest: DIGEST, tree: TREE }) : Promise.reject(fail);
    },
  };
}

/** A Git reader that must not be asked (every source here is OCI). */
const noGit: GitReader = {
  resolveRevision: () => Promise.reject(new Error("git asked")),
  listTree: () => Promise.reject(new Error("git asked")),
  readBlobs: () => Promise.reject(new Error("git asked")),
};

describe("which sources are OCI artifacts", () => {
  it.each([
    // Argo CD's IsOCI: the oci:// prefix as written.
    { name: "oci://", url: "oci://registry.example.com/apps", want: true },
    { name: "upper case is not", url: "OCI://registry.example.com/apps", want: false },
    { name: "scheme-less (a Helm OCI registry)", url: "registry.example.com/charts", want: false },
    { name: "https", url: "https://github.com/org/repo", want: false },
  ])("$name", ({ url, want }) => {
    expect(isOciSource(url)).toBe(want);
  });
});

describe("an artifact as a tree", () => {
  it("lists directories, files and links sorted by path, links as symlink blobs", () => {
    expect(artifactEntries(TREE).map((e) => [e.path, e.type, e.mode])).toEqual([
      ["apps", "tree", "040000"],
      ["apps/here", "blob", "120000"],
      ["apps/web", "tree", "040000"],
      ["apps/web/cm.yaml", "blob", "100644"],
      ["apps/web/link.yaml", "blob", "120000"],
      ["top.yaml", "blob", "100644"],
    ]);
  });

  it.each([
    { name: "a file's bytes", path: "top.yaml", want: cm("top") },
    { name: "a link's target relative to its directory", path: "apps/web/link.yaml", want: "../../top.yaml" },
    { name: "a link to its own directory", path: "apps/here", want: "." },
  ])("reads $name", ({ path, want }) => {
    expect(artifactBlob(TREE, path).toString()).toBe(want);
  });

  it("fails on a path the artifact does not hold", () => {
    expect(() => artifactBlob(TREE, "nope.yaml")).toThrow("nope.yaml: no such file in the OCI artifact");
  });
});

describe("a Git reader with OCI artifacts in front", () => {
  it("answers oci:// URLs from the artifact, the digest as the revision, with the access given", async () => {
    const oci = artifacts();
    const reader = withOciArtifacts(noGit, oci);
    const url = "oci://registry.example.com/apps";
    expect(await reader.resolveRevision(url, "1.0.0", undefined, { project: "team" })).toBe(DIGEST);
    const entries = await reader.listTree(url, DIGEST);
    const blobs = await reader.readBlobs(url, DIGEST, [entries.find((e) => e.path === "top.yaml")!]);
    expect(blobs.map((b) => b.toString())).toEqual([cm("top")]);
    // The tree of the resolved digest is kept: the registry is asked once.
    expect(oci.asked).toEqual([{ revision: "1.0.0", access: { project: "team" } }]);
  });

  it("sends every other URL to Git", async () => {
    const seen: string[] = [];
    const git: GitReader = {
      resolveRevision: (url) => (seen.push(url), Promise.resolve("c".repeat(40))),
      listTree: () => Promise.resolve([] as TreeEntry[]),
      readBlobs: () => Promise.resolve([]),
      invalidate: (url) => void seen.push(`invalidate ${url}`),
    };
    const reader = withOciArtifacts(git, artifacts());
    await reader.resolveRevision("https://github.com/org/repo", "HEAD");
    reader.invalidate?.("https://github.com/org/repo");
    reader.invalidate?.("oci://registry.example.com/apps");
    expect(seen).toEqual(["https://github.com/org/repo", "invalidate https://github.com/org/repo"]);
  });

  it.each([
    { name: "a registry error becomes a manifest error with its words", fail: new Error('failed to resolve revision "9": not found') },
    {
      name: "a layer error becomes a manifest error",
      fail: new AppSetError("OciLayerInvalid", "expected only a single oci content layer, got 2"),
    },
  ])("$name", async ({ fail }) => {
    const reader = withOciArtifacts(noGit, artifacts(fail));
    const err: unknown = await reader.resolveRevision("oci://r.example.com/a", "9").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppSetError);
    expect((err as AppSetError).reason).toBe(MANIFEST_ERROR);
    expect((err as Error).message).toBe(fail.message);
  });
});

describe("OCI Application sources", () => {
  const app = (project?: string): Application => ({
    metadata: { name: "web" },
    spec: { destination: { namespace: "prod" }, project: project ?? "" },
  });

  it.each([
    {
      name: "a directory at a path, the digest as the revision",
      path: "apps/web",
      project: "team",
      want: ["web"],
      access: { project: "team" },
    },
    { name: "the root, the default project's access when none is set", path: ".", project: undefined, want: ["top"], access: {} },
  ])("$name", async ({ path, project, want, access }) => {
    const oci = artifacts();
    const source = new GitManifestSource(noGit, { oci });
    const got = await source.read(app(project), { repoURL: "oci://registry.example.com/apps", path, targetRevision: "1.0.0" });
    expect(got.revision).toBe(DIGEST);
    expect(got.sourceType).toBe("Directory");
    expect(got.objects.map((o) => o.metadata?.name)).toEqual(want);
    expect(oci.asked).toEqual([{ revision: "1.0.0", access }]);
  });

  it("reads a pinned revision (a sync's digest) rather than targetRevision", async () => {
    const oci = artifacts();
    await new GitManifestSource(noGit, { oci }).read(
      app(),
      { repoURL: "oci://r.example.com/a", path: ".", targetRevision: "1.0.0" },
      DIGEST,
    );
    expect(oci.asked.map((a) => a.revision)).toEqual([DIGEST]);
  });

  it("reads an oci:// source as an artifact even when it names a chart, as Argo CD does", async () => {
    const oci = artifacts();
    const got = await new GitManifestSource(noGit, { oci }).read(app(), {
      repoURL: "oci://r.example.com/a",
      chart: "web",
      path: ".",
      targetRevision: "1.0.0",
    });
    expect(got.revision).toBe(DIGEST);
  });

  it.each([{ name: "a path the artifact does not hold", path: "nope", want: "nope: app path does not exist" }])(
    "fails on $name",
    async ({ path, want }) => {
      const source = new GitManifestSource(noGit, { oci: artifacts() });
      await expect(source.read(app(), { repoURL: "oci://r.example.com/a", path, targetRevision: "1" })).rejects.toThrow(want);
    },
  );

  it("fails when no OCI reader is configured, rather than asking Git", async () => {
    await expect(new GitManifestSource(noGit).read(app(), { repoURL: "oci://r.example.com/a", path: "." })).rejects.toThrow(
      "OCI sources are not configured (oci://r.example.com/a)",
    );
  });
});
