// The OCI generator over an in-memory artifact: the parameters of directories and files, the rules,
// the errors and their wording, the credentials' project, and the generator at a nested level.
import { describe, expect, it } from "vitest";
import { appSet, context } from "../../test/unit/generators/builders.js";
import type { ApplicationSetGenerator, OciGenerator } from "../api/index.js";
import { artifactDirectories, artifactFiles, type ArtifactTree, type OciReader, type OciReadOptions } from "../oci/index.js";
import { generateParams } from "./generate.js";
import { ociGenerator } from "./oci.js";
import { createGeneratorRegistry } from "./registry.js";

function tree(files: Record<string, string>): ArtifactTree {
  const dirs = new Set<string>();
  for (const p of Object.keys(files)) {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  return { dirs, files: new Map(Object.entries(files).map(([p, b]) => [p, Buffer.from(b)])), links: new Map() };
}

/** A reader over one artifact that records on whose behalf it was asked. */
function reader(t: ArtifactTree, fail?: Error): OciReader & { calls: OciReadOptions[] } {
  const calls: OciReadOptions[] = [];
  return {
    calls,
    directories: (_u, _r, opts) => {
      calls.push(opts);
      return fail === undefined ? Promise.resolve(artifactDirectories(t)) : Promise.reject(fail);
    },
    files: (_u, _r, pattern, opts) => {
      calls.push(opts);
      return fail === undefined ? Promise.resolve(artifactFiles(t, pattern)) : Promise.reject(fail);
    },
  };
}

const ARTIFACT = tree({
  "apps/alpha/config.json": '{"env":"dev","cluster":{"name":"one"}}',
  "apps/beta/config.json": '[{"env":"prod"},{"env":"stage"}]',
  "apps/Gamma_X/readme.md": "",
  "apps/.hidden/config.json": '{"env":"hidden"}',
});
const URL = "oci://registry.example.com/org/apps";
const spec = (over: Partial<OciGenerator>): OciGenerator => ({ repoURL: URL, revision: "1.0.0", ...over });

describe("the OCI generator", () => {
  it.each([
    {
      name: "directories with Go templates",
      spec: spec({ directories: [{ path: "apps/*" }, { path: "apps/beta", exclude: true }] }),
      goTemplate: true,
      want: [
        { path: { path: "apps/Gamma_X", basename: "Gamma_X", basenameNormalized: "gamma-x", segments: ["apps", "Gamma_X"] } },
        { path: { path: "apps/alpha", basename: "alpha", basenameNormalized: "alpha", segments: ["apps", "alpha"] } },
      ],
    },
    {
      name: "directories flat, with a prefix and values",
      spec: spec({ directories: [{ path: "apps/alpha" }], pathParamPrefix: "app", values: { where: "{{app.path.basename}}-x" } }),
      goTemplate: false,
      want: [
        {
          "app.path": "apps/alpha",
          "app.path.basename": "alpha",
          "app.path.basenameNormalized": "alpha",
          "app.path[0]": "apps",
          "app.path[1]": "alpha",
          "values.where": "alpha-x",
        },
      ],
    },
    {
      name: "files flat: objects flattened, lists one set per item, hidden paths matched by globs",
      spec: spec({ files: [{ path: "apps/*/config.json" }, { path: "apps/alpha/*", exclude: true }] }),
      goTemplate: false,
      want: [".hidden", "beta", "beta"].map((b, i) => ({
        env: ["hidden", "prod", "stage"][i],
        path: `apps/${b}`,
        "path.basename": b,
        "path.basenameNormalized": b === ".hidden" ? "hidden" : b,
        "path.filename": "config.json",
        "path.filenameNormalized": "config.json",
        "path[0]": "apps",
        "path[1]": b,
      })),
    },
  ])("reads $name", async ({ spec: s, goTemplate, want }) => {
    const oci = reader(ARTIFACT);
    expect(await ociGenerator.generate(s, appSet([], { goTemplate }), context({ oci }))).toEqual(want);
  });

  it("keeps nested objects with Go templates", async () => {
    const oci = reader(ARTIFACT);
    const got = await ociGenerator.generate(
      spec({ files: [{ path: "apps/alpha/config.json" }] }),
      appSet([], { goTemplate: true }),
      context({ oci }),
    );
    expect(got[0]).toMatchObject({ env: "dev", cluster: { name: "one" }, path: { path: "apps/alpha", filename: "config.json" } });
  });

  it.each([
    {
      name: "directories",
      spec: spec({ directories: [{ path: "*" }] }),
      error: "error generating params from oci: error getting directories from oci: error retrieving OCI directories: rpc error: boom",
    },
    {
      name: "files",
      spec: spec({ files: [{ path: "*" }] }),
      error: "error generating params from oci: error retrieving OCI files: rpc error: boom",
    },
  ])("wraps a failure to read $name as Argo CD does, never as no results", async ({ spec: s, error }) => {
    const oci = reader(ARTIFACT, new Error("rpc error: boom"));
    await expect(ociGenerator.generate(s, appSet([]), context({ oci }))).rejects.toThrow(error);
  });

  it("names the file it cannot parse", async () => {
    const oci = reader(tree({ "bad.yaml": "a: [unclosed" }));
    await expect(ociGenerator.generate(spec({ files: [{ path: "bad.yaml" }] }), appSet([]), context({ oci }))).rejects.toThrow(
      `error generating params from oci: unable to process file 'bad.yaml' from repository '${URL}': unable to parse file: `,
    );
  });

  it("fails an entry with neither directories nor files, and one without a reader", async () => {
    await expect(ociGenerator.generate(spec({}), appSet([]), context({ oci: reader(ARTIFACT) }))).rejects.toThrow(
      "ApplicationSet is empty",
    );
    await expect(ociGenerator.generate(spec({ files: [{ path: "*" }] }), appSet([]), context())).rejects.toThrow(
      "no OCI reader configured",
    );
  });

  it("bounds the bytes of the matched files as the Git generator does", async () => {
    const oci = reader(tree({ "a.json": '{"a":"' + "x".repeat(100) + '"}' }));
    await expect(
      ociGenerator.generate(spec({ files: [{ path: "*.json" }] }), appSet([]), context({ oci }, { gitFileMaxBytes: 50 })),
    ).rejects.toThrow("file 'a.json' in repository 'oci://registry.example.com/org/apps' has 108 bytes");
  });

  it.each([
    { name: "a literal project of an ApplicationSet in the control plane's namespace", project: "team-a", want: { project: "team-a" } },
    { name: "a templated project", project: "{{path.basename}}", want: {} },
    { name: "the empty project", project: "", want: {} },
  ])("reads with $name's scoped credentials only when lent", async ({ project, want }) => {
    const oci = reader(ARTIFACT);
    const template = { metadata: { name: "x" }, spec: { project, destination: {}, source: { repoURL: URL } } };
    await ociGenerator.generate(
      spec({ directories: [{ path: "*" }] }),
      appSet([], { template }),
      context({ oci, secrets: { namespace: "argocd", getSecret: () => Promise.resolve(undefined) } }),
    );
    expect(oci.calls[0]?.access).toEqual(want);
  });

  it("runs as a child of a matrix", async () => {
    const oci = reader(ARTIFACT);
    const gens: ApplicationSetGenerator[] = [
      { matrix: { generators: [{ list: { elements: [{ cluster: "c1" }] } }, { oci: spec({ directories: [{ path: "apps/alpha" }] }) }] } },
    ];
    const res = await generateParams(appSet(gens, { goTemplate: true }), context({ oci }), createGeneratorRegistry());
    expect(res[0]?.params).toEqual([
      { cluster: "c1", path: { path: "apps/alpha", basename: "alpha", basenameNormalized: "alpha", segments: ["apps", "alpha"] } },
    ]);
  });

  it("requeues after requeueAfterSeconds, else the default", () => {
    const settings = context().settings;
    expect(ociGenerator.requeueAfterMs(spec({ requeueAfterSeconds: 30 }), settings)).toBe(30_000);
    expect(ociGenerator.requeueAfterMs(spec({}), settings)).toBe(180_000);
  });
});
