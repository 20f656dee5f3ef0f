import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { GitReader, TreeEntry } from "../../git/index.js";
import { helmTemplateCommand, type HelmInput } from "./helm-args.js";
import { planRefFiles, writeRefValueFiles, type RefRepo } from "./ref-values.js";

const trees = new Map([["$values", ["envs/prod.yaml", "envs/dev.yaml", "envs/extra/a.yaml", "README.md"]]]);
const opts = { env: [], ignoreMissing: false };

describe("planning $ref value files", () => {
  it.each([
    {
      name: "a file of the referenced repository",
      raws: ["$values/envs/prod.yaml"],
      ignoreMissing: false,
      want: [{ raw: "$values/envs/prod.yaml", ref: "$values", urls: [], files: ["envs/prod.yaml"] }],
    },
    {
      name: "a glob, expanded over the referenced repository in path order",
      raws: ["$values/envs/*.yaml"],
      ignoreMissing: false,
      want: [{ raw: "$values/envs/*.yaml", ref: "$values", urls: [], files: ["envs/dev.yaml", "envs/prod.yaml"] }],
    },
    {
      name: "a missing file left for Helm to report",
      raws: ["$values/envs/qa.yaml"],
      ignoreMissing: false,
      want: [{ raw: "$values/envs/qa.yaml", ref: "$values", urls: [], files: ["envs/qa.yaml"] }],
    },
    {
      name: "a missing file dropped with ignoreMissingValueFiles",
      raws: ["$values/envs/qa.yaml"],
      ignoreMissing: true,
      want: [{ raw: "$values/envs/qa.yaml", ref: "$values", urls: [], files: [] }],
    },
    {
      name: "paths of the source's own repository and unknown refs left alone",
      raws: ["values.yaml", "$other/x.yaml"],
      ignoreMissing: false,
      want: [],
    },
  ])("$name", ({ raws, ignoreMissing, want }) => {
    expect(planRefFiles(raws, trees, { ...opts, ignoreMissing })).toEqual(want);
  });

  it.each([
    {
      name: "a path that leaves the referenced repository",
      raws: ["$values/../secrets.yaml"],
      message:
        "error resolving helm value files: error resolving value file path: error resolving value file path: file '/../secrets.yaml' resolved to outside repository root",
    },
    {
      name: "a glob that matches nothing",
      raws: ["$values/none/*.yaml"],
      message: `values file glob "$values/none/*.yaml" matched no files`,
    },
  ])("refuses $name", ({ raws, message }) => {
    expect(() => planRefFiles(raws, trees, opts)).toThrow(message);
  });
});

describe("writing $ref value files", () => {
  let dir = "";
  afterEach(async () => {
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  it("writes the referenced files under the directory and gives Helm their paths, in the value files' order", async () => {
    dir = await mkdtemp(join(tmpdir(), "ref-values-"));
    const tree: TreeEntry[] = [
      { path: "envs", type: "tree", mode: "040000", oid: "t" },
      { path: "envs/prod.yaml", type: "blob", mode: "100644", oid: "p" },
      { path: "envs/dev.yaml", type: "blob", mode: "100644", oid: "d" },
    ];
    const reads: string[][] = [];
    const git = {
      readBlobs: (_url: string, _commit: string, entries: readonly TreeEntry[]) => {
        reads.push(entries.map((e) => e.path));
        return Promise.resolve(entries.map((e) => Buffer.from(`from: ${e.path}\n`)));
      },
    } as unknown as GitReader;
    const refs = new Map<string, RefRepo>([["$values", { repoURL: "v", commit: "c1", tree }]]);
    const helm = {
      valueFiles: ["values.yaml", "$values/envs/prod.yaml"],
      fileParameters: [{ name: "cfg", path: "$values/envs/dev.yaml" }],
    };
    const files = await writeRefValueFiles({ git, refs, helm, env: [], dir });
    expect(reads).toEqual([["envs/prod.yaml", "envs/dev.yaml"]]);
    const prod = files.get("$values/envs/prod.yaml")?.[0] ?? "";
    expect(await readFile(prod, "utf8")).toBe("from: envs/prod.yaml\n");

    const input: HelmInput = {
      helm,
      appPath: "chart",
      instanceName: "shop",
      namespace: "web",
      kubeVersion: "",
      apiVersions: [],
      env: [],
      files: ["chart/Chart.yaml", "chart/values.yaml"],
      workDir: "/render",
      valuesPath: "/scratch/values.yaml",
      refFiles: files,
    };
    const args = helmTemplateCommand(input).args;
    expect(args).toContain(`cfg=${files.get("$values/envs/dev.yaml")?.[0] ?? ""}`);
    const values = args.flatMap((a, i) => (args[i - 1] === "--values" ? [a] : []));
    expect(values).toEqual(["/render/chart/values.yaml", prod]);
  });
});
