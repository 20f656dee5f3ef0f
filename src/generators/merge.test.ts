import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appSet, context } from "../../test/unit/generators/builders.js";
import { createGeneratorRegistry } from "./registry.js";
import { generateParams } from "./generate.js";
import { mergeKeyOf } from "./merge.js";
import type { ApplicationSetGenerator, NestedGenerator } from "../api/index.js";

const registry = createGeneratorRegistry();
const list = (...elements: Record<string, unknown>[]): NestedGenerator => ({ list: { elements } });
const merge = (mergeKeys: string[], ...generators: NestedGenerator[]): ApplicationSetGenerator => ({ merge: { mergeKeys, generators } });

async function params(entry: ApplicationSetGenerator, goTemplate: boolean) {
  const res = await generateParams(appSet([entry], { goTemplate }), context(), registry);
  return res.flatMap((r) => r.params);
}

const byName = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a["name"]).localeCompare(String(b["name"]));

describe("the Merge generator", () => {
  it.each([
    // name; mode; merge entry; expected parameter sets (sorted by name)
    {
      name: "later children override base sets that share the merge key (fasttemplate)",
      goTemplate: false,
      entry: merge(["name"], list({ name: "a", x: "1" }, { name: "b", x: "1" }), list({ name: "b", x: "2", y: "3" })),
      want: [
        { name: "a", x: "1" },
        { name: "b", x: "2", y: "3" },
      ],
    },
    {
      name: "sets only later children have are dropped",
      goTemplate: false,
      entry: merge(["name"], list({ name: "a" }), list({ name: "zzz", x: "9" })),
      want: [{ name: "a" }],
    },
    {
      name: "goTemplate deep-merges the override into the base",
      goTemplate: true,
      entry: merge(["name"], list({ name: "a", v: { k: "1", j: "1" } }), list({ name: "a", v: { k: "2" } })),
      want: [{ name: "a", v: { k: "2", j: "1" } }],
    },
    {
      name: "several merge keys must all agree",
      goTemplate: false,
      entry: merge(["a", "b"], list({ name: "n1", a: "1", b: "1" }, { name: "n2", a: "1", b: "2" }), list({ a: "1", b: "2", x: "y" })),
      want: [
        { name: "n1", a: "1", b: "1" },
        { name: "n2", a: "1", b: "2", x: "y" },
      ],
    },
    {
      name: "fasttemplate merge keys may be flat dotted keys",
      goTemplate: false,
      entry: merge(["values.sel"], list({ name: "a", values: { sel: "s" } }), list({ "values.sel": "s", extra: "e" })),
      want: [{ name: "a", "values.sel": "s", extra: "e" }],
    },
    {
      name: "a base set missing the key is keyed by null",
      goTemplate: false,
      entry: merge(["k"], list({ name: "a" }), list({ x: "1" })),
      want: [{ name: "a", x: "1" }],
    },
  ])("$name", async ({ entry, goTemplate, want }) => {
    expect((await params(entry, goTemplate)).sort(byName)).toEqual(want);
  });

  it.each([
    {
      name: "one child is not enough",
      entry: merge(["a"], list({ a: "1" })),
      message: "found less than two generators, Merge requires two or more",
    },
    {
      name: "no merge keys is an error",
      entry: merge([], list({ a: "1" }), list({ a: "1" })),
      message: "error getting param sets by merge key: no merge keys were specified, Merge requires at least one",
    },
    {
      name: "a child with two sets on one key is an error",
      entry: merge(["a"], list({ a: "1" }), list({ a: "2" }, { a: "2" })),
      message:
        'error getting param sets by merge key: the parameters from a generator were not unique by the given mergeKeys, Merge requires all param sets to be unique. Duplicate key was {"a":"2"}',
    },
    {
      name: "a child's failure names its position",
      entry: merge(["a"], list({ a: "1" }), { git: { repoURL: "x", revision: "" } }),
      message:
        "error getting param sets from generators: error getting params from generator 2 of 2: child generator returned an error on parameter generation: ApplicationSet is empty",
    },
  ])("$name", async ({ entry, message }) => {
    await expect(params(entry, false)).rejects.toThrow(message);
  });

  it("keys sets by the JSON of the merge keys, sorted", () => {
    expect(mergeKeyOf({ b: "2", a: 1 }, ["b", "a", "b"])).toBe('{"a":1,"b":"2"}');
  });

  it("never produces two parameter sets with the same merge key, and keeps the base's size", async () => {
    const keys = fc.constantFrom("k1", "k2", "k3", "k4", "k5", "k6");
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(keys), fc.array(keys, { maxLength: 8 }), fc.boolean(), async (base, other, goTemplate) => {
        const overrides: string[] = [...new Set(other)];
        const got = await params(
          merge(
            ["key"],
            list(...base.map((k) => ({ key: k, from: "base" }))),
            list(...overrides.map((k) => ({ key: k, from: "override" }))),
          ),
          goTemplate,
        );
        const seen = got.map((p) => mergeKeyOf(p, ["key"]));
        expect(new Set(seen).size).toBe(seen.length);
        expect(got).toHaveLength(base.length);
        for (const p of got) expect(p["from"]).toBe(overrides.includes(String(p["key"])) ? "override" : "base");
      }),
      { numRuns: 60 },
    );
  });
});
