import { describe, expect, it } from "vitest";
import { compareFacts, compareSchemas, crdFacts, formatDifference, type SchemaNode } from "./crd-compare.js";

const str = { type: "string" };
const obj = (properties: SchemaNode, extra: SchemaNode = {}): SchemaNode => ({ type: "object", properties, ...extra });
const lines = (theirs: SchemaNode, ours: SchemaNode): string[] => compareSchemas(theirs, ours).map(formatDifference);

describe("compareSchemas", () => {
  it.each([
    {
      name: "a field ours does not declare",
      theirs: obj({ spec: obj({ a: str, b: str }) }),
      ours: obj({ spec: obj({ a: str }) }),
      expected: ["spec.b: field not declared by ours (would be pruned)"],
    },
    {
      name: "a type mismatch",
      theirs: obj({ n: { type: "integer" } }),
      ours: obj({ n: str }),
      expected: ['n: type: Argo CD "integer", ours "string"'],
    },
    {
      name: "a node without a type where Argo CD has one",
      theirs: obj({ v: { type: "object", "x-kubernetes-preserve-unknown-fields": true } }),
      ours: obj({ v: { "x-kubernetes-preserve-unknown-fields": true } }),
      expected: ['v: type: Argo CD "object", ours (none)'],
    },
    {
      name: "int-or-string on one side only",
      theirs: obj({ n: { anyOf: [{ type: "integer" }, str], "x-kubernetes-int-or-string": true } }),
      ours: obj({ n: str }),
      expected: ['n: type: Argo CD (none), ours "string"', "n: x-kubernetes-int-or-string: Argo CD true, ours (none)"],
    },
    {
      name: "a different required list (order does not matter)",
      theirs: obj({ a: str, b: str }, { required: ["b", "a"] }),
      ours: obj({ a: str, b: str }, { required: ["a"] }),
      expected: ['(root): required: Argo CD ["a","b"], ours ["a"]'],
    },
    {
      name: "a missing list marker",
      theirs: obj({ l: { type: "array", items: str, "x-kubernetes-list-type": "atomic" } }),
      ours: obj({ l: { type: "array", items: str } }),
      expected: ['l: x-kubernetes-list-type: Argo CD "atomic", ours (none)'],
    },
    {
      name: "a subtree Argo CD keeps free-form that ours prunes",
      theirs: obj({ raw: { type: "object", "x-kubernetes-preserve-unknown-fields": true } }),
      ours: obj({ raw: obj({ a: str }) }),
      expected: ["raw: Argo CD keeps unknown fields here, ours prunes them"],
    },
    {
      name: "a field deep in array items and map values",
      theirs: obj({ l: { type: "array", items: obj({ m: { type: "object", additionalProperties: obj({ x: str, y: str }) } }) } }),
      ours: obj({ l: { type: "array", items: obj({ m: { type: "object", additionalProperties: obj({ x: str }) } }) } }),
      expected: ["l[].m{}.y: field not declared by ours (would be pruned)"],
    },
    {
      name: "map values where ours declares fixed properties",
      theirs: obj({ m: { type: "object", additionalProperties: str } }),
      ours: obj({ m: obj({ a: str }) }),
      expected: ["m{}: map values (any key) not declared by ours (would be pruned)"],
    },
    {
      name: "a declared child below a node that keeps unknown fields (pruning is per node)",
      theirs: obj({ p: obj({ c: obj({ a: str, b: str }) }) }),
      ours: obj({ p: obj({ c: obj({ a: str }) }, { "x-kubernetes-preserve-unknown-fields": true }) }),
      expected: ["p.c.b: field not declared by ours (would be pruned)"],
    },
  ])("reports $name", ({ theirs, ours, expected }) => {
    expect(lines(theirs, ours)).toEqual(expected);
  });

  it.each([
    {
      name: "a subtree ours keeps free-form",
      theirs: obj({ helm: obj({ values: str, parameters: { type: "array", items: obj({ name: str }) } }) }),
      ours: obj({ helm: { type: "object", "x-kubernetes-preserve-unknown-fields": true } }),
    },
    {
      name: "fields ours does not declare on a node that keeps unknown fields",
      theirs: obj({ p: obj({ a: str, b: str }) }),
      ours: obj({ p: obj({ a: str }, { "x-kubernetes-preserve-unknown-fields": true }) }),
    },
    {
      name: "fields only ours declares",
      theirs: obj({ a: str }),
      ours: obj({ a: str, extra: str }),
    },
    {
      name: "identical schemas",
      theirs: obj({ a: str, l: { type: "array", items: str, "x-kubernetes-list-type": "atomic" } }, { required: ["a"] }),
      ours: obj({ a: str, l: { type: "array", items: str, "x-kubernetes-list-type": "atomic" } }, { required: ["a"] }),
    },
  ])("accepts $name", ({ theirs, ours }) => {
    expect(lines(theirs, ours)).toEqual([]);
  });

  it("tags each difference with its kind", () => {
    const theirs = obj(
      { a: str, n: { type: "integer" }, l: { type: "array", items: str, "x-kubernetes-list-type": "atomic" } },
      { required: ["a"] },
    );
    const ours = obj({ n: str, l: { type: "array", items: str } });
    expect(compareSchemas(theirs, ours).map((d) => `${d.kind} ${d.path}`)).toEqual(["required ", "field a", "type n", "marker l"]);
  });
});

describe("compareFacts", () => {
  const crd = (names: SchemaNode, version: SchemaNode): SchemaNode => ({
    spec: { group: "argoproj.io", scope: "Namespaced", names, versions: [version] },
  });
  const names = { kind: "Thing", listKind: "ThingList", plural: "things", singular: "thing", shortNames: ["th"] };
  const version = { name: "v1alpha1", served: true, storage: true, subresources: { status: {} } };

  it("accepts the same names, scope and versions", () => {
    expect(compareFacts(crdFacts(crd(names, version)), crdFacts(crd(names, version)))).toEqual([]);
  });

  it("reports different short names, a missing status subresource and a version not stored", () => {
    const ours = crd({ ...names, shortNames: ["t"] }, { name: "v1alpha1", served: true, storage: false });
    expect(compareFacts(crdFacts(crd(names, version)), crdFacts(ours))).toEqual([
      'names.shortNames: Argo CD ["th"], ours ["t"]',
      "versions.v1alpha1.storage: Argo CD true, ours false",
      "versions.v1alpha1.subresources.status: Argo CD true, ours false",
    ]);
  });

  it("reports a different set of versions", () => {
    const ours = crd(names, { ...version, name: "v1" });
    expect(compareFacts(crdFacts(crd(names, version)), crdFacts(ours))).toEqual(['versions: Argo CD ["v1alpha1"], ours ["v1"]']);
  });
});
