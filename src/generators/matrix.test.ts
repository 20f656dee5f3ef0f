import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appSet, clusterSecret, context } from "../../test/unit/generators/builders.js";
import { createGeneratorRegistry } from "./registry.js";
import { generateParams } from "./generate.js";
import type { ApplicationSetGenerator, NestedGenerator } from "../api/index.js";

const registry = createGeneratorRegistry();
const secrets = [clusterSecret("c1", "https://c1", { labels: { env: "prod" } })];
const withClusters = () => context({ clusters: { listClusterSecrets: () => Promise.resolve(secrets) } });
const list = (...elements: Record<string, unknown>[]): NestedGenerator => ({ list: { elements } });
const matrix = (...generators: unknown[]): ApplicationSetGenerator => ({ matrix: { generators: generators as NestedGenerator[] } });

async function params(entry: ApplicationSetGenerator, goTemplate: boolean, ctx = context()) {
  const res = await generateParams(appSet([entry], { goTemplate }), ctx, registry);
  return res.flatMap((r) => r.params);
}

describe("the Matrix generator", () => {
  it.each([
    // name; mode; matrix entry; expected parameter sets
    {
      name: "the product iterates the first child in the outer loop",
      goTemplate: false,
      entry: matrix(list({ a: "1" }, { a: "2" }), list({ b: "x" }, { b: "y" })),
      want: [
        { a: "1", b: "x" },
        { a: "1", b: "y" },
        { a: "2", b: "x" },
        { a: "2", b: "y" },
      ],
    },
    {
      name: "goTemplate deep-merges each pair with the first child winning, even with falsy values",
      goTemplate: true,
      entry: matrix(list({ k: false, m: { x: 1 } }), list({ k: true, m: { y: 2 }, z: 3 })),
      want: [{ k: false, m: { x: 1, y: 2 }, z: 3 }],
    },
    {
      name: "fasttemplate keeps a key both children give with the same value",
      goTemplate: false,
      entry: matrix(list({ a: "1", same: "s" }), list({ same: "s" })),
      want: [{ a: "1", same: "s" }],
    },
    {
      name: "the second child is interpolated with each parameter set of the first",
      goTemplate: false,
      entry: matrix(list({ env: "dev" }, { env: "prod" }), list({ name: "{{env}}-app" })),
      want: [
        { env: "dev", name: "dev-app" },
        { env: "prod", name: "prod-app" },
      ],
    },
    {
      name: "a child selector filters that child's parameter sets",
      goTemplate: false,
      entry: matrix({ ...list({ a: "1" }, { a: "2" }), selector: { matchLabels: { a: "2" } } }, list({ b: "x" })),
      want: [{ a: "2", b: "x" }],
    },
    {
      name: "a matrix nested in a matrix is decoded from raw JSON",
      goTemplate: false,
      entry: matrix({ matrix: { generators: [list({ a: "1" }), list({ b: "2" })] } }, list({ c: "3" })),
      want: [{ a: "1", b: "2", c: "3" }],
    },
    {
      name: "three levels of nesting work under the default cap (Argo CD stops at two)",
      goTemplate: false,
      entry: matrix(
        { matrix: { generators: [{ matrix: { generators: [list({ a: "1" }), list({ b: "2" })] } }, list({ c: "3" })] } },
        list({ d: "4" }),
      ),
      want: [{ a: "1", b: "2", c: "3", d: "4" }],
    },
    {
      name: "an empty first child yields nothing",
      goTemplate: false,
      entry: matrix(list(), list({ b: "x" })),
      want: [],
    },
  ])("$name", async ({ entry, goTemplate, want }) => {
    await expect(params(entry, goTemplate)).resolves.toEqual(want);
  });

  it("feeds interpolated elementsYaml objects to the second child", async () => {
    const entry = matrix(list({ comps: [{ n: "a" }, { n: "b" }] }), { list: { elementsYaml: "{{ .comps | toJson }}" } });
    await expect(params(entry, true)).resolves.toEqual([
      { comps: [{ n: "a" }, { n: "b" }], n: "a" },
      { comps: [{ n: "a" }, { n: "b" }], n: "b" },
    ]);
  });

  it("leaves a values entry with a missing key for the second child to resolve against its own parameters", async () => {
    const entry = matrix(list({ app: "web" }), {
      clusters: { selector: { matchLabels: { env: "prod" } }, values: { fromFirst: "{{ .app }}", own: "{{ .name }}" } },
    });
    const got = await params(entry, true, withClusters());
    expect(got).toEqual([expect.objectContaining({ app: "web", name: "c1", values: { fromFirst: "web", own: "c1" } })]);
  });

  it.each([
    // name; entry; mode; expected message
    {
      name: "one child is not enough",
      entry: matrix(list({ a: "1" })),
      goTemplate: false,
      message: "found less than two generators, Matrix support only two",
    },
    {
      name: "three children are too many",
      entry: matrix(list(), list(), list()),
      goTemplate: false,
      message: "found more than two generators, Matrix support only two",
    },
    {
      name: "a fasttemplate key with two different values fails",
      entry: matrix(list({ k: "a" }), list({ k: "b" })),
      goTemplate: false,
      message:
        "failed to combine string maps with merging params for the matrix generator: found duplicate key k with different value, a: a ,b: b",
    },
    {
      name: "a child setting two generators fails",
      entry: matrix({ list: { elements: [] }, clusters: {} }, list()),
      goTemplate: false,
      message: "error failed to get params for first generator in matrix generator: found more than one generator in matrix.Generators",
    },
    {
      name: "a child setting no generator fails",
      entry: matrix({}, list({ a: "1" })),
      goTemplate: false,
      message: "error failed to get params for first generator in matrix generator: child generator generated no parameters",
    },
    {
      name: "a failing child's error is wrapped",
      entry: matrix(list({ a: "1" }), { git: { repoURL: "x", revision: "" } }),
      goTemplate: false,
      message:
        "failed to get params for second generator in the matrix generator: child generator returned an error on parameter generation: ApplicationSet is empty",
    },
  ])("$name", async ({ entry, goTemplate, message }) => {
    await expect(params(entry, goTemplate, withClusters())).rejects.toMatchObject({
      message: expect.stringContaining(message),
      reason: "ApplicationGenerationFromParamsError",
    });
  });

  it("refuses nesting deeper than the configured cap", async () => {
    const entry = matrix({ matrix: { generators: [list({ a: "1" }), list({ b: "2" })] } }, list({ c: "3" }));
    await expect(params(entry, false, context({}, { maxNestingDepth: 1 }))).rejects.toThrow(
      /matrix generator nested 2 levels deep; the maximum is 1/,
    );
  });

  it.each([
    {
      name: "a matrix whose product passes the limit",
      entries: (a: ApplicationSetGenerator, b: ApplicationSetGenerator) => [matrix(a, b)],
      max: 11,
    },
    { name: "two entries whose sum passes the limit", entries: (a: ApplicationSetGenerator, b: ApplicationSetGenerator) => [a, b], max: 6 },
  ])("refuses $name, before rendering anything", async ({ entries, max }) => {
    const a = list(...Array.from({ length: 4 }, (_, i) => ({ a: `a${String(i)}` }))) as ApplicationSetGenerator;
    const b = list(...Array.from({ length: 3 }, (_, i) => ({ b: `b${String(i)}` }))) as ApplicationSetGenerator;
    await expect(
      generateParams(appSet(entries(a, b), { goTemplate: false }), context({}, { maxParameterSets: max }), registry),
    ).rejects.toThrow(
      `the generators produce more than ${String(max)} parameter sets, the most one ApplicationSet may have; split it, or narrow its generators`,
    );
    await expect(
      generateParams(appSet(entries(a, b), { goTemplate: false }), context({}, { maxParameterSets: 12 }), registry),
    ).resolves.toBeDefined();
  });

  it("produces exactly |A| × |B| parameter sets", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(6), fc.nat(6), fc.boolean(), async (n, m, goTemplate) => {
        const a = Array.from({ length: n }, (_, i) => ({ a: `a${String(i)}` }));
        const b = Array.from({ length: m }, (_, i) => ({ b: `b${String(i)}` }));
        const got = await params(matrix(list(...a), list(...b)), goTemplate);
        expect(got).toHaveLength(n * m);
        expect(new Set(got.map((p) => `${String(p["a"])}/${String(p["b"])}`)).size).toBe(n * m);
      }),
      { numRuns: 40 },
    );
  });
});
