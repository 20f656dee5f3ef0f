/**
 * The differential corpus as data (docs/differential.md): every case file parses, its placeholders name what it declares,
 * and the deviations file lists only cases that exist. (Running the corpus is the differential
 * suite's job: `npm run test:differential`.)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CASES_DIR, loadCases, substitute } from "../../differential/support/case.js";
import { Deviations } from "../../differential/support/compare.js";

const cases = loadCases();

describe("the differential corpus", () => {
  it.each(cases.map((c) => [c.name, c] as const))("%s: its placeholders resolve", (_name, c) => {
    const repos = Object.fromEntries(Object.keys(c.repos).map((r) => [r, `file:///repos/${r}`]));
    expect(() =>
      substitute(
        { setup: c.setup, steps: c.steps },
        { ns: "ns", repos, ...(c.plugin ? { plugin: "http://plugin" } : {}), ...(c.registry ? { registry: "127.0.0.1:5000" } : {}) },
      ),
    ).not.toThrow();
    for (const s of c.steps) if ("commit" in s) expect(Object.keys(c.repos)).toContain(s.commit.repo);
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
