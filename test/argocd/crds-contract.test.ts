/**
 * Argo CD's CRDs are the contract: each of our CRDs (deploy/crds, generated from the zod schemas of
 * src/api) must keep every field Argo CD's CRD of the pinned release keeps, with the same types,
 * required lists and list/map markers, under the same names, scope and versions.
 *
 * Argo CD's CRDs are read from `$APPSET_ARGOCD_HOME/crds/{application,applicationset,appproject}-crd.yaml`.
 * The test fails (never skips) when the variable is unset or a file is missing.
 *
 * A difference that must stay goes into {@link ALLOWED} with its reason; an entry that no longer
 * matches a difference fails the last test, so the list never goes stale.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  compareFacts,
  compareSchemas,
  crdFacts,
  formatDifference,
  openApiSchemaOf,
  type DifferenceKind,
  type SchemaNode,
} from "./crd-compare.js";

const HOME_VARIABLE = "APPSET_ARGOCD_HOME";
const OUR_CRDS = new URL("../../deploy/crds/", import.meta.url);

/** The three CRDs, by kind and file name (the same file names on both sides). */
const CRDS = [
  { name: "ApplicationSet", file: "applicationset-crd.yaml" },
  { name: "Application", file: "application-crd.yaml" },
  { name: "AppProject", file: "appproject-crd.yaml" },
] as const;
type CrdName = (typeof CRDS)[number]["name"];

/** A difference we keep on purpose: the CRD, the exact reported line, and why. */
interface AllowedDifference {
  readonly crd: CrdName;
  readonly line: string;
  readonly reason: string;
}

/** Differences kept on purpose (none today). */
const ALLOWED: readonly AllowedDifference[] = [];

const KINDS: ReadonlyArray<{ kind: DifferenceKind; what: string }> = [
  { kind: "field", what: "keeps every field Argo CD keeps" },
  { kind: "type", what: "gives every field Argo CD's type (and int-or-string)" },
  { kind: "required", what: "requires exactly the fields Argo CD requires" },
  { kind: "marker", what: "sets Argo CD's map and list markers" },
];

function argoCdCrdPath(file: string): string {
  const home = process.env[HOME_VARIABLE];
  if (home === undefined || home === "") {
    throw new Error(`${HOME_VARIABLE} is not set: point it at a directory whose crds/ folder holds Argo CD's ${file}`);
  }
  const path = join(home, "crds", file);
  if (!existsSync(path)) throw new Error(`${HOME_VARIABLE}=${home}, but ${path} does not exist`);
  return path;
}

const cache = new Map<string, SchemaNode>();

function loadYaml(key: string, read: () => string): SchemaNode {
  let crd = cache.get(key);
  if (crd === undefined) {
    crd = parse(read()) as SchemaNode;
    cache.set(key, crd);
  }
  return crd;
}

function argoCdCrd(file: string): SchemaNode {
  return loadYaml(`argocd/${file}`, () => readFileSync(argoCdCrdPath(file), "utf8"));
}

function ourCrd(file: string): SchemaNode {
  return loadYaml(`ours/${file}`, () => readFileSync(new URL(file, OUR_CRDS), "utf8"));
}

function differences(file: string, kind: DifferenceKind): string[] {
  const all = compareSchemas(openApiSchemaOf(argoCdCrd(file)), openApiSchemaOf(ourCrd(file)));
  return all.filter((d) => d.kind === kind).map(formatDifference);
}

function allowedLines(name: CrdName): Set<string> {
  return new Set(ALLOWED.filter((a) => a.crd === name).map((a) => a.line));
}

describe.each(CRDS)("our $name CRD against Argo CD's", ({ name, file }) => {
  it("has Argo CD's kind names, plural, short names, scope, versions and status subresource", () => {
    expect(compareFacts(crdFacts(argoCdCrd(file)), crdFacts(ourCrd(file)))).toEqual([]);
  });

  it.each(KINDS)("$what, at every path", ({ kind }) => {
    const allowed = allowedLines(name);
    expect(differences(file, kind).filter((line) => !allowed.has(line))).toEqual([]);
  });
});

describe("the walk", () => {
  it("reaches the Application template inlined under a nested generator", () => {
    const file = "applicationset-crd.yaml";
    const ours = structuredClone(openApiSchemaOf(ourCrd(file)));
    const path = ["spec", "generators", "[]", "matrix", "generators", "[]", "git", "template", "spec", "source"];
    let node: SchemaNode = ours;
    for (const step of path) node = (step === "[]" ? node["items"] : (node["properties"] as SchemaNode)[step]) as SchemaNode;
    delete (node["properties"] as Record<string, unknown>)["repoURL"];
    const lines = compareSchemas(openApiSchemaOf(argoCdCrd(file)), ours).map(formatDifference);
    expect(lines).toContain(
      "spec.generators[].matrix.generators[].git.template.spec.source.repoURL: field not declared by ours (would be pruned)",
    );
  });

  it("lists only allow-list entries that still match a difference", () => {
    const stale = ALLOWED.filter((a) => {
      const file = CRDS.find((c) => c.name === a.crd)!.file;
      return !KINDS.some(({ kind }) => differences(file, kind).includes(a.line));
    });
    expect(stale).toEqual([]);
  });
});
