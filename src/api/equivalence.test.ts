import { describe, expect, it } from "vitest";
import { goStruct, normalizeApplicationSpec, sourceEquivalent, specsEquivalent } from "./equivalence.js";
import { canonicalEqual, goCanonical, withoutOmitted, type GoStructs } from "./go-json.js";
import { GO_ROOTS, GO_STRUCTS } from "./go-types.js";

const repo = { repoURL: "https://git.example/repo.git", path: "guestbook", targetRevision: "HEAD" };
const dest = { server: "https://kubernetes.default.svc", namespace: "guestbook" };
/** A spec with the given source fields and extra spec fields. */
const spec = (source: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  project: "default",
  source: { ...repo, ...source },
  destination: dest,
  ...extra,
});

describe("specsEquivalent: Go's typed semantics, field by field", () => {
  it.each([
    // name; the desired spec (as the template renders it); the live spec (as stored); whether Argo CD sees them equal
    { name: "directory {recurse: false} is normalised away", a: spec({ directory: { recurse: false } }), b: spec(), equal: true },
    {
      name: "directory {recurse: false, include} keeps only include",
      a: spec({ directory: { recurse: false, include: "*.yaml" } }),
      b: spec({ directory: { include: "*.yaml" } }),
      equal: true,
    },
    { name: "directory {recurse: true} is a value", a: spec({ directory: { recurse: true } }), b: spec(), equal: false },
    { name: "helm {passCredentials: false} is normalised away", a: spec({ helm: { passCredentials: false } }), b: spec(), equal: true },
    {
      name: "helm {skipCrds: false} beside valueFiles is absence",
      a: spec({ helm: { skipCrds: false, valueFiles: ["v.yaml"] } }),
      b: spec({ helm: { valueFiles: ["v.yaml"] } }),
      equal: true,
    },
    {
      name: "helm parameters[].forceString: false is absence",
      a: spec({ helm: { parameters: [{ name: "a", value: "1", forceString: false }] } }),
      b: spec({ helm: { parameters: [{ name: "a", value: "1" }] } }),
      equal: true,
    },
    { name: "helm valuesObject {} is a value", a: spec({ helm: { valuesObject: {} } }), b: spec(), equal: false },
    { name: "helm valuesObject null is absence", a: spec({ helm: { valuesObject: null } }), b: spec(), equal: true },
    {
      name: "kustomize {forceCommonLabels: false} is normalised away",
      a: spec({ kustomize: { forceCommonLabels: false } }),
      b: spec(),
      equal: true,
    },
    {
      name: "kustomize {forceCommonLabels: true} alone is dropped too (Argo CD's IsZero does not read it)",
      a: spec({ kustomize: { forceCommonLabels: true } }),
      b: spec(),
      equal: true,
    },
    { name: "kustomize {namePrefix} is a value", a: spec({ kustomize: { namePrefix: "p-" } }), b: spec(), equal: false },
    {
      name: "automated.enabled: false is a value (a pointer)",
      a: spec({}, { syncPolicy: { automated: { enabled: false, prune: true } } }),
      b: spec({}, { syncPolicy: { automated: { prune: true } } }),
      equal: false,
    },
    {
      name: "automated.prune: false is a value (a pointer)",
      a: spec({}, { syncPolicy: { automated: { prune: false } } }),
      b: spec({}, { syncPolicy: { automated: {} } }),
      equal: false,
    },
    { name: "automated: {} turns autosync on", a: spec({}, { syncPolicy: { automated: {} } }), b: spec(), equal: false },
    { name: "retry: {} is a value (a pointer)", a: spec({}, { syncPolicy: { retry: {} } }), b: spec(), equal: false },
    {
      name: "managedNamespaceMetadata: {} is a value (a pointer)",
      a: spec({}, { syncPolicy: { managedNamespaceMetadata: {} } }),
      b: spec(),
      equal: false,
    },
    { name: "syncPolicy {syncOptions: []} is normalised away", a: spec({}, { syncPolicy: { syncOptions: [] } }), b: spec(), equal: true },
    { name: "revisionHistoryLimit: 0 is a value (a pointer)", a: spec({}, { revisionHistoryLimit: 0 }), b: spec(), equal: false },
    { name: "revisionHistoryLimit: null is absence", a: spec({}, { revisionHistoryLimit: null }), b: spec(), equal: true },
    { name: "an empty project is default", a: spec({}, { project: "" }), b: spec(), equal: true },
    { name: "a field Go does not know is dropped", a: spec({ colour: "blue" }, { extra: { a: 1 } }), b: spec(), equal: true },
    { name: "empty lists are nil lists", a: spec({}, { info: [], ignoreDifferences: [] }), b: spec(), equal: true },
    {
      name: 'destination server "" is absence',
      a: { ...spec(), destination: { name: "prod", server: "", namespace: "ns" } },
      b: { ...spec(), destination: { name: "prod", namespace: "ns" } },
      equal: true,
    },
    {
      name: "plugin parameter map: {} is a value (an embedded pointer)",
      a: spec({ plugin: { name: "p", parameters: [{ name: "a", map: {} }] } }),
      b: spec({ plugin: { name: "p", parameters: [{ name: "a" }] } }),
      equal: false,
    },
    {
      name: 'plugin parameter string: "" is a value (a pointer)',
      a: spec({ plugin: { name: "p", parameters: [{ name: "a", string: "" }] } }),
      b: spec({ plugin: { name: "p", parameters: [{ name: "a" }] } }),
      equal: false,
    },
    {
      name: "the order of sources matters",
      a: { ...spec(), source: undefined, sources: [repo, { ...repo, path: "b" }] },
      b: { ...spec(), source: undefined, sources: [{ ...repo, path: "b" }, repo] },
      equal: false,
    },
    {
      name: "a zero block inside sources is normalised away",
      a: { ...spec(), source: undefined, sources: [{ ...repo, directory: { recurse: false } }] },
      b: { ...spec(), source: undefined, sources: [repo] },
      equal: true,
    },
  ])("$name", ({ a, b, equal }) => {
    expect(specsEquivalent(a, b)).toBe(equal);
    expect(specsEquivalent(b, a)).toBe(equal);
  });

  it("a spec is equivalent to its own normalised form", () => {
    const s = spec({ directory: { recurse: false }, helm: { skipCrds: false } }, { syncPolicy: { syncOptions: [] } });
    expect(specsEquivalent(s, normalizeApplicationSpec(s))).toBe(true);
    expect(normalizeApplicationSpec(s)).toEqual({ project: "default", source: repo, destination: dest });
  });

  it("leaves its input as it was and shares the values it does not change", () => {
    const input = {
      source: { repoURL: "https://example.com/repo.git", kustomize: {}, directory: { recurse: true } },
      destination: { server: "https://kubernetes.default.svc", namespace: "a" },
      syncPolicy: {},
    };
    const before = structuredClone(input);
    const out = normalizeApplicationSpec(input);
    expect(input).toEqual(before);
    expect(out).toEqual({
      project: "default",
      source: { repoURL: "https://example.com/repo.git", directory: { recurse: true } },
      destination: input.destination,
    });
    expect(out["destination"]).toBe(input.destination);
    expect((out["source"] as { directory: unknown }).directory).toBe(input.source.directory);
  });

  it("sourceEquivalent compares comparedTo.source as Go values", () => {
    expect(sourceEquivalent({ ...repo, helm: { skipCrds: false, releaseName: "r" } }, { ...repo, helm: { releaseName: "r" } })).toBe(true);
    expect(sourceEquivalent({ ...repo, helm: { releaseName: "r" } }, { ...repo, helm: { releaseName: "s" } })).toBe(false);
  });
});

describe("goCanonical", () => {
  const structs: GoStructs = {
    "t.S": {
      plain: { k: "scalar" },
      ptr: { k: "ptr", to: { k: "scalar" } },
      inner: { k: "struct", name: "t.S" },
      list: { k: "slice", of: { k: "scalar" } },
      labels: { k: "map", of: { k: "scalar" } },
      raw: { k: "raw" },
    },
  };
  const S = { k: "struct", name: "t.S" } as const;
  it.each([
    // name; input; canonical form
    { name: "plain zeros are absence", v: { plain: false, list: [], labels: {}, inner: { plain: 0 } }, out: undefined },
    { name: "a pointer to false is a value", v: { ptr: false }, out: { ptr: false } },
    { name: "a null pointer is absence", v: { ptr: null }, out: undefined },
    { name: "a map entry with an empty value is a value", v: { labels: { a: "" } }, out: { labels: { a: "" } } },
    { name: "list elements keep their zeros", v: { list: ["", "a"] }, out: { list: ["", "a"] } },
    { name: "raw values are kept as they are", v: { raw: { a: null, b: [] } }, out: { raw: { a: null, b: [] } } },
    { name: "unknown fields are dropped", v: { nope: 1, plain: "x" }, out: { plain: "x" } },
  ])("$name", ({ v, out }) => {
    expect(goCanonical(v, S, structs)).toEqual(out);
  });

  it("canonicalEqual ignores key order", () => {
    expect(canonicalEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(canonicalEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
  });

  it("the generated table knows every root and the structs it names", () => {
    const named = new Set<string>();
    const visit = (k: unknown): void => {
      const kind = k as { k: string; name?: string; to?: unknown; of?: unknown };
      if (kind.k === "struct") named.add(kind.name!);
      if (kind.to !== undefined) visit(kind.to);
      if (kind.of !== undefined) visit(kind.of);
    };
    for (const fields of Object.values(GO_STRUCTS)) for (const k of Object.values(fields)) visit(k);
    for (const root of Object.values(GO_ROOTS)) named.add(root);
    expect([...named].filter((n) => GO_STRUCTS[n] === undefined)).toEqual([]);
    expect(GO_STRUCTS[GO_ROOTS.ApplicationSpec]!["revisionHistoryLimit"]).toEqual({ k: "ptr", to: { k: "scalar" }, omitempty: true });
    expect(GO_STRUCTS["v1alpha1.SyncPolicyAutomated"]!["enabled"]).toEqual({ k: "ptr", to: { k: "scalar" }, omitempty: true });
  });
});

describe("withoutOmitted (what Go's encoder writes of a decoded spec)", () => {
  const spec = goStruct(GO_ROOTS.ApplicationSpec);
  it.each([
    { name: "an empty omitempty string goes", in: { destination: { server: "s", name: "" } }, want: { destination: { server: "s" } } },
    { name: "an empty omitempty list goes, an empty struct stays", in: { destination: {}, sources: [] }, want: { destination: {} } },
    {
      name: "a non-nil pointer stays however empty",
      in: { syncPolicy: {}, revisionHistoryLimit: 0 },
      want: { syncPolicy: {}, revisionHistoryLimit: 0 },
    },
    {
      name: "a field Go does not know stays",
      in: { extra: "", source: { repoURL: "", path: "" } },
      want: { extra: "", source: { repoURL: "" } },
    },
  ])("$name", ({ in: value, want }) => {
    expect(withoutOmitted(value, spec, GO_STRUCTS)).toEqual(want);
  });
});
