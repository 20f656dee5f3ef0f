// Runs every corpus case through Go (the oracle) and through our engine, and requires identical
// output, or identical error text where Go fails.
import { beforeAll, describe, expect, it } from "vitest";
import { runOracle, type OracleResult } from "../../oracle/oracle.js";
import { CORPUS } from "./corpus/index.js";
import { P } from "./corpus/params.js";
import { difference, renderOurs, testEngine } from "./harness.js";

describe("the template engine against Go's text/template with Sprig (oracle corpus)", () => {
  let goResults: OracleResult[] = [];
  const engine = testEngine();

  beforeAll(() => {
    goResults = runOracle(
      CORPUS.map((c) => ({ template: c.template, params: c.params ?? P, options: c.options ?? [], goTemplate: c.goTemplate ?? true })),
    );
  }, 120_000);

  it("holds at least 300 cases", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(300);
  });

  it.each(CORPUS.map((c, i) => ({ ...c, i })))("renders like Go: $name", (c) => {
    const ours = renderOurs(engine, c, c.params ?? P);
    const diff = difference(c, ours, goResults[c.i]!);
    if (diff !== null) expect.fail(`${c.template}\n${diff}`);
  });
});
