/**
 * Every example of the documentation runs: the pages listed in COVERED are read in order and each
 * marked block or table is run or checked (see docs/README.md, "How the examples are tested");
 * an unmarked yaml/json/sh block fails the page. Pages owned elsewhere wait in PENDING: moving one
 * line from PENDING to COVERED puts a page under test.
 */
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { readRepoFile } from "../../unit/deploy/generated.js";
import { REPO_ROOT } from "../../unit/deploy/kustomize.js";
import { PageRun } from "./runner.js";

/** The pages whose examples are run. */
const COVERED = [
  "README.md",
  "docs/README.md",
  "docs/install.md",
  "docs/helm.md",
  "docs/not-supported.md",
  "docs/configuration.md",
  "docs/controller.md",
  "docs/generators.md",
  "docs/templates.md",
  "docs/cli.md",
  "docs/metrics.md",
  "docs/troubleshooting.md",
  "docs/webhooks.md",
  "docs/progressive-syncs.md",
  "docs/sync-engine.md",
  "docs/sync-windows.md",
  "docs/migrate.md",
  "docs/spec-equivalence.md",
  "docs/differential.md",
  "docs/projects.md",
  "docs/security.md",
  "docs/sharding.md",
];

/** Pages not under test yet (each still to be given markers). */
const PENDING: string[] = [];

/** Every Markdown page under docs/, and the README. */
function allPages(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith(".md") ? [`${dir}/${e.name}`] : [],
    );
  return ["README.md", ...walk("docs")];
}

async function runPage(doc: string, markdown: string): Promise<string[]> {
  const page = new PageRun(doc);
  try {
    return await page.run(markdown);
  } finally {
    await page.close();
  }
}

/** The relative link targets of a page that do not exist (pending pages may be linked before they are written). */
function brokenLinks(doc: string, markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!.split("#")[0]!);
  return targets
    .filter((t) => t !== "" && !/^[a-z]+:/.test(t))
    .map((t) => normalize(join(dirname(doc), t)))
    .filter((path) => !PENDING.includes(path) && !existsSync(join(REPO_ROOT, path)));
}

describe("the documentation's examples", () => {
  it.each(COVERED.map((name) => ({ name })))("every example of $name runs as documented", async ({ name }) => {
    expect(await runPage(name, readRepoFile(name))).toEqual([]);
  });

  it.each(COVERED.map((name) => ({ name })))("every relative link of $name leads to a file", ({ name }) => {
    expect(brokenLinks(name, readRepoFile(name))).toEqual([]);
  });

  it("puts every page under test, except the pending ones and the decision records", () => {
    const unlisted = allPages().filter((p) => !COVERED.includes(p) && !PENDING.includes(p) && !p.startsWith("docs/adr/"));
    expect(unlisted).toEqual([]);
  });

  it.each(
    allPages()
      .filter((p) => p.startsWith("docs/adr/"))
      .map((name) => ({ name })),
  )("$name has no example left unmarked", async ({ name }) => {
    expect(await runPage(name, readRepoFile(name))).toEqual([]);
  });
});
