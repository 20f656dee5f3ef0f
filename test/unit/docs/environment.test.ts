/**
 * The configuration reference is complete: every environment variable the code under src/ reads
 * (`env["NAME"]` not assigned to, the settings table's `env` entries, and the variables passed through to git) is
 * named in docs/configuration.md.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OPTIONS } from "../../../src/config/index.js";
import { readRepoFile } from "../deploy/generated.js";
import { REPO_ROOT } from "../deploy/kustomize.js";

/** The source files of src/, tests left out. */
function sources(dir = "src"): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The variables the code reads by name, and those it hands on to git. */
function variablesRead(): string[] {
  const names = new Set<string>(OPTIONS.flatMap((o) => (o.env === undefined ? [] : [o.env])));
  for (const file of sources()) {
    const text = readFileSync(join(REPO_ROOT, file), "utf8");
    for (const m of text.matchAll(/\benv\["([A-Z][A-Z0-9_]*)"\](?!\s*=[^=])/g)) names.add(m[1]!);
  }
  const keep = /const keep = \[([^\]]*)\]/.exec(readFileSync(join(REPO_ROOT, "src/git/exec.ts"), "utf8"));
  for (const m of (keep?.[1] ?? "").matchAll(/"([A-Z_]+)"/g)) names.add(m[1]!);
  return [...names].sort();
}

describe("docs/configuration.md", () => {
  it("names every environment variable the code reads", () => {
    const page = readRepoFile("docs/configuration.md");
    const read = variablesRead();
    expect(read).toEqual(expect.arrayContaining(["ARGOCD_SYNC_WAVE_DELAY", "NAMESPACE", "KUBECONFIG", "PATH"]));
    expect(read.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });
});
