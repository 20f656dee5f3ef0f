import { describe, expect, it } from "vitest";
import { appSet, clusterSecret, context } from "../../test/unit/generators/builders.js";
import { appSetRequeueAfterMs, generateParams } from "./generate.js";
import { combineStringMaps, flattenParams, pathParams } from "./params.js";
import { createGeneratorRegistry } from "./registry.js";
import type { ApplicationSetGenerator } from "../api/index.js";

const registry = createGeneratorRegistry();
const settings = context().settings;

describe("parameter helpers", () => {
  it.each([
    // name; input; expected flat form
    { name: "nested objects become dotted keys", input: { a: { b: { c: "x" } } }, want: { "a.b.c": "x" } },
    { name: "arrays become indexed keys", input: { l: ["x", { y: 1 }] }, want: { "l.0": "x", "l.1.y": "1" } },
    {
      name: "numbers, booleans and null format like Go's %v",
      input: { f: 1.5, big: 1e21, t: true, n: null },
      want: { f: "1.5", big: "1e+21", t: "true", n: "<nil>" },
    },
  ])("$name", ({ input, want }) => {
    expect(flattenParams(input)).toEqual(want);
  });

  it("builds fasttemplate path parameters skipping empty segments", () => {
    expect(pathParams({ path: "a//b", prefix: "" }, false)).toMatchObject({ "path[0]": "a", "path[2]": "b" });
    expect(Object.keys(pathParams({ path: "a//b", prefix: "" }, false))).not.toContain("path[1]");
  });

  it("stringifies both sides when combining string maps", () => {
    expect(combineStringMaps({ a: 1 }, { a: "1", b: [1, 2] })).toEqual({ a: "1", b: "[1 2]" });
  });
});

describe("generating an ApplicationSet's parameters", () => {
  const clusters = { listClusterSecrets: () => Promise.resolve([clusterSecret("c", "https://c")]) };

  it("runs every generator an entry sets, each with its own template override", async () => {
    const entry: ApplicationSetGenerator = {
      list: { elements: [{ name: "l" }], template: { metadata: { name: "from-list" } } },
      clusters: { selector: { matchLabels: { "argocd.argoproj.io/secret-type": "cluster" } } },
    };
    const res = await generateParams(appSet([entry], { goTemplate: true }), context({ clusters }), registry);
    expect(res.map((r) => [r.kind, r.params.map((p) => p["name"]), r.template.metadata.name])).toEqual([
      ["list", ["l"], "from-list"],
      ["clusters", ["c"], "{{name}}"],
    ]);
  });

  it.each([
    // name; the entries; the error (Argo CD would skip the entry and delete what it made)
    { name: "an entry that sets no generator", gens: [{ list: { elements: [{ a: "1" }] } }, {}], names: "", index: 1 },
    {
      name: "an entry with a generator this controller does not run",
      gens: [{ helmChart: { repoURL: "oci://r/a" } }],
      names: ": helmChart",
      index: 0,
    },
    {
      name: "an entry with a known generator beside unknown ones",
      gens: [{ list: { elements: [] }, zeta: {}, alpha: {}, selector: {} }],
      names: ": alpha, zeta",
      index: 0,
    },
  ])("refuses $name: nothing is generated", async ({ gens, names, index }) => {
    await expect(generateParams(appSet(gens as ApplicationSetGenerator[]), context(), registry)).rejects.toThrow(
      `ApplicationSet test contains unrecognized generators${names} (spec.generators[${String(index)}]); nothing is generated, changed or deleted until the entry names only generators this controller runs`,
    );
  });

  it("fails the whole ApplicationSet when one generator fails", async () => {
    const failing = { listClusterSecrets: () => Promise.reject(new Error("timeout")) };
    const gens: ApplicationSetGenerator[] = [{ list: { elements: [{ a: "1" }] } }, { clusters: {} }];
    await expect(generateParams(appSet(gens), context({ clusters: failing }), registry)).rejects.toThrow(
      "error getting cluster secrets: timeout",
    );
  });

  it.each([
    // name; generators; expected requeue (ms)
    { name: "list and clusters never requeue", gens: [{ list: { elements: [] } }, { clusters: {} }], want: 0 },
    {
      name: "the smallest non-zero interval wins",
      gens: [
        { git: { repoURL: "r", revision: "", requeueAfterSeconds: 600 } },
        { plugin: { configMapRef: { name: "p" }, requeueAfterSeconds: 120 } },
      ],
      want: 120_000,
    },
    { name: "an explicit zero counts as none", gens: [{ git: { repoURL: "r", revision: "", requeueAfterSeconds: 0 } }], want: 0 },
    {
      name: "a matrix takes its children's smallest interval, nested ones included",
      gens: [
        {
          matrix: {
            generators: [{ list: { elements: [] } }, { matrix: { generators: [{ git: { repoURL: "r", revision: "" } }, { list: {} }] } }],
          },
        },
      ],
      want: 180_000,
    },
    { name: "scm providers default to thirty minutes", gens: [{ scmProvider: {} }], want: 1_800_000 },
  ])("$name", ({ gens, want }) => {
    expect(appSetRequeueAfterMs(appSet(gens as ApplicationSetGenerator[]), settings, registry)).toBe(want);
  });

  it.each([
    { name: "SCM Provider", entry: { scmProvider: {} }, error: "no SCM provider implementation configured" },
    { name: "Pull Request", entry: { pullRequest: {} }, error: "no Pull Request provider implementation configured" },
  ])("the $name generator fails until a provider exists, rather than returning nothing", async ({ entry, error }) => {
    await expect(generateParams(appSet([entry]), context(), registry)).rejects.toThrow(error);
  });
});
