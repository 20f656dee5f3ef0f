/**
 * The differential sync corpus as data (docs/differential.md#the-sync-engine-suite): every case
 * file parses, its manifests are YAML, the kinds it watches are ones the harness knows, and the
 * deviations file lists only cases that exist, each with a doc that exists. Running the corpus is
 * the suite's job (`npm run test:differential`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { Deviations } from "../../differential/support/compare.js";
import { caseFiles, CASES_DIR, isChartTemplate, loadCases, substitute } from "../../differential-sync/support/case.js";

const cases = loadCases();
const KNOWN = [
  "ConfigMap",
  "Secret",
  "Service",
  "ServiceAccount",
  "Pod",
  "Namespace",
  "AppProject",
  "ClusterRole",
  "Job",
  "Deployment",
  "StatefulSet",
  "ReplicaSet",
  "CustomResourceDefinition",
];

describe("the differential sync corpus", () => {
  it("holds at least 80 cases, some in the fast subset", () => {
    expect(cases.length).toBeGreaterThanOrEqual(80);
    expect(cases.filter((c) => c.subset).length).toBeGreaterThan(0);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s: its manifests are YAML and its kinds known", (_name, c) => {
    const files = caseFiles(c);
    for (const [path, t] of files) {
      if (t === null || isChartTemplate(files, path)) continue;
      const docs = parseAllDocuments(substitute(t, "ns"));
      // A case about invalid YAML says so in its name.
      if (!c.name.includes("invalid-yaml")) for (const d of docs) expect(d.errors).toEqual([]);
    }
    for (const k of c.watch) expect(KNOWN).toContain(k);
  });

  it("lists in deviations.yaml only cases of the corpus, each deviation with a doc that exists", () => {
    const deviations = Deviations.parse(parse(readFileSync(join(CASES_DIR, "..", "deviations.yaml"), "utf8")) ?? []);
    const names = new Set(cases.map((c) => c.name));
    for (const d of deviations) {
      for (const c of d.cases) expect(names, `deviation ${d.id}`).toContain(c);
      expect(() => readFileSync(join(CASES_DIR, "..", "..", "..", d.doc.split("#")[0]!))).not.toThrow();
    }
  });
});
