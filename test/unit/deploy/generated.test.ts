/**
 * The generated parts of deploy/ and docs/ are what the code generates today: the Deployments' env
 * (from `deploymentEnv()`), the install bundles (from their kustomizations) and the configuration
 * reference (from `configReference()`). Each fails when someone edits the settings table without
 * regenerating (`npx tsx test/unit/deploy/generate.ts`), or edits a generated part by hand.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { configReference, deploymentEnv } from "../../../src/config/index.js";
import { ENV_PATH, GENERATED_FILES, configurationTables, readRepoFile, withGeneratedTables } from "./generated.js";
import { REPO_ROOT } from "./kustomize.js";

describe("generated files", () => {
  it.each(GENERATED_FILES.map((f) => ({ name: f.path, file: f })))(
    "$name is up to date with the code it is generated from",
    ({ file }) => {
      const current = readRepoFile(file.path);
      expect(current, `run: npx tsx test/unit/deploy/generate.ts`).toBe(file.expected(current));
    },
    30_000,
  ); // rendering a bundle (the CRDs included) takes seconds on a loaded machine

  it("generates every bundle a kustomization says it is rendered to", () => {
    // Every kustomization (deploy/helm holds the chart, not one).
    const dirs = readdirSync(join(REPO_ROOT, "deploy"), { withFileTypes: true }).filter(
      (d) => d.isDirectory() && existsSync(join(REPO_ROOT, "deploy", d.name, "kustomization.yaml")),
    );
    const named = dirs.flatMap((d) => {
      const m = /Rendered to \.\.\/([\w.-]+\.yaml)/.exec(readRepoFile(`deploy/${d.name}/kustomization.yaml`));
      return m ? [`deploy/${m[1]!}`] : [];
    });
    expect(dirs.length).toBeGreaterThanOrEqual(10);
    expect(named.length).toBeGreaterThanOrEqual(4);
    const generated = GENERATED_FILES.map((f) => f.path);
    for (const path of named) expect(generated, path).toContain(path);
  });

  it("generates every single-file install the documentation names", () => {
    const pages = [
      "README.md",
      "CHANGELOG.md",
      ...readdirSync(join(REPO_ROOT, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ];
    const named = new Set(pages.flatMap((p) => [...readRepoFile(p).matchAll(/(?<![\w/.])deploy\/[\w-]+\.yaml/g)].map((m) => m[0])));
    named.delete("deploy/kustomization.yaml"); // a file of the example repositories of docs/generators.md
    expect(named.size).toBeGreaterThanOrEqual(3);
    const generated = GENERATED_FILES.map((f) => f.path);
    for (const path of named) expect(generated, path).toContain(path);
  });

  it("the committed Deployment's env is the namespace, then exactly deploymentEnv(), in order", () => {
    const deployment = parse(readRepoFile("deploy/base/deployment.yaml")) as Record<string, unknown>;
    let env: unknown = deployment;
    for (const step of ENV_PATH) env = (env as Record<string | number, unknown>)[step];
    expect(env).toEqual([{ name: "NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } }, ...deploymentEnv()]);
  });
});

describe("the configuration reference", () => {
  it("has one row per setting, naming its flag, environment variable and ConfigMap key", () => {
    const tables = configurationTables();
    const rows = tables.split("\n").filter((l) => l.startsWith("| `") || l.startsWith("|  |"));
    expect(rows).toHaveLength(configReference().length);
    for (const r of configReference()) {
      const cells = [r.flag, r.env, r.cmKey].filter((c) => c !== "").map((c) => `\`${c}\``);
      expect(
        rows.some((row) => cells.every((c) => row.includes(c))),
        `row of ${r.flag || r.env}`,
      ).toBe(true);
    }
  });

  it.each([
    { name: "markers are missing", markdown: "# Configuration\n" },
    {
      name: "the end marker comes first",
      markdown: "<!-- END GENERATED: configuration reference -->\n<!-- BEGIN GENERATED: configuration reference -->\n",
    },
  ])("refuses to regenerate a page whose $name", ({ markdown }) => {
    expect(() => withGeneratedTables(markdown)).toThrow("must contain the markers");
  });
});
