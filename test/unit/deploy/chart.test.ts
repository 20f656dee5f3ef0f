/**
 * The chart's documentation and schema cover its values: every value of values.yaml carries a
 * `# -- ` comment, the README's table lists it with its default, values.schema.json gives it the
 * type of its default (and names no value values.yaml lacks), and NOTES.txt says how to check the
 * install. test/integration/deploy/helm-chart.test.ts runs the real helm on the chart.
 */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CHART_PATH, chartValues, valueAt, withGeneratedValues } from "./chart.js";
import { readRepoFile } from "./generated.js";

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
}

const valuesYaml = readRepoFile(`${CHART_PATH}/values.yaml`);
const values = parse(valuesYaml) as Record<string, unknown>;
const documented = chartValues(valuesYaml);
const schema = JSON.parse(readRepoFile(`${CHART_PATH}/values.schema.json`)) as Schema;

/** The dotted paths of every value: a map's keys, recursively; an empty map or a list is one value. */
function paths(v: unknown, prefix: string[] = []): string[][] {
  if (v === null || typeof v !== "object" || Array.isArray(v) || Object.keys(v).length === 0) return [prefix];
  return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => paths(x, [...prefix, k]));
}

/** The schema of the value at `keys`, if the schema names it. */
function schemaAt(keys: readonly string[]): Schema | undefined {
  let s: Schema | undefined = schema;
  for (const k of keys) s = s?.properties?.[k];
  return s;
}

/** JSON Schema's type of a value. */
function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/** Every path the schema names, parents included. */
function schemaPaths(s: Schema, prefix: string[] = []): string[][] {
  return Object.entries(s.properties ?? {}).flatMap(([k, x]) => [[...prefix, k], ...schemaPaths(x, [...prefix, k])]);
}

describe("the chart's values", () => {
  it("documents every value of values.yaml with a `# -- ` comment", () => {
    const keys = documented.map((d) => d.key);
    expect(keys.length).toBeGreaterThanOrEqual(60);
    for (const p of paths(values)) {
      const covered = p.some((_, i) => keys.includes(p.slice(0, i + 1).join(".")));
      expect(covered, p.join(".")).toBe(true);
    }
    for (const d of documented) expect(d.description, d.key).not.toBe("");
  });

  it.each(documented.map((d) => ({ key: d.key, value: d })))("values.schema.json types $key as its default", ({ value }) => {
    const s = schemaAt(value.key.split("."));
    expect(s, value.key).toBeDefined();
    const types = [s!.type].flat();
    expect(types.length, value.key).toBeGreaterThan(0);
    expect(types).toContain(typeOf(value.default));
    if (s!.enum !== undefined) expect(s!.enum).toContain(value.default);
  });

  it("names no value in values.schema.json that values.yaml lacks", () => {
    for (const p of schemaPaths(schema)) expect(valueAt(values, p), p.join(".")).not.toBeUndefined();
  });

  it("lists every value in the README, with its default", () => {
    const readme = readRepoFile(`${CHART_PATH}/README.md`);
    for (const d of documented) {
      const row = readme.split("\n").find((l) => l.startsWith(`| \`${d.key}\` |`));
      expect(row, d.key).toBeDefined();
      expect(row!).toContain(d.default === null ? "| empty |" : JSON.stringify(d.default));
    }
  });

  it("refuses to regenerate a README without the markers", () => {
    expect(() => withGeneratedValues("# appset\n", valuesYaml)).toThrow("must contain the markers");
  });

  it("reads a comment block, continued, onto the key below it, and a blank line ends it", () => {
    const text = "a:\n  # -- first\n  # line two\n  b: 1\n  # -- dropped\n\n  c: [x]\n";
    expect(chartValues(text)).toEqual([{ key: "a.b", default: 1, description: "first line two" }]);
  });
});

describe("the chart's NOTES.txt", () => {
  it("says what was installed and how to check that it runs", () => {
    const notes = readRepoFile(`${CHART_PATH}/templates/NOTES.txt`);
    expect(notes).toContain("rollout status deployment");
    expect(notes).toContain("argocd-ssh-known-hosts-cm");
    expect(notes).toContain("AppProject default");
    expect(notes).toContain("applicationSet.syncEngine.enabled=true");
  });
});
