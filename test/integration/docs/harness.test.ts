/**
 * The examples harness itself: it passes a page whose examples hold, and fails, naming the line,
 * each way a page can be wrong (an unmarked block, a changed output, a bad manifest, a wrong
 * template row, a dangling or unknown marker). The page runs as the examples test runs it: commands
 * in a scratch directory, `sh` for anything but `appset`. How a page is read is tested in
 * test/unit/docs/markdown.test.ts.
 */
import { describe, expect, it } from "vitest";
import { PageRun } from "./runner.js";

const FENCE = "```";
const block = (lang: string, text: string): string => `${FENCE}${lang}\n${text}${FENCE}\n`;
const APPSET = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: demo
  namespace: argocd
spec:
  goTemplate: true
  generators:
    - list:
        elements:
          - env: dev
  template:
    metadata:
      name: 'demo-{{ .env }}'
    spec:
      project: default
      source: {repoURL: https://example.com/repo.git, path: '{{ .env }}'}
      destination: {server: https://kubernetes.default.svc, namespace: '{{ .env }}'}
`;
const OUTPUT = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: demo-dev
  finalizers:
    - resources-finalizer.argocd.argoproj.io
  namespace: argocd
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: dev
  source:
    repoURL: https://example.com/repo.git
    path: dev
`;
const generate = (output: string): string =>
  `<!-- example: file appset.yaml -->\n${block("yaml", APPSET)}\n<!-- example: run -->\n${block("sh", "appset generate -f appset.yaml\n")}<!-- example: output -->\n${block("yaml", output)}`;

async function failures(markdown: string): Promise<string[]> {
  const page = new PageRun("page.md");
  try {
    return await page.run(markdown);
  } finally {
    await page.close();
  }
}

describe("the examples harness", () => {
  it("passes a page whose generate example prints what the page shows", async () => {
    expect(await failures(generate(OUTPUT))).toEqual([]);
  });

  it.each([
    {
      name: "an output that differs from the command's",
      page: generate(OUTPUT.replace("demo-dev", "demo-prod")),
      failure: "page.md:28 (output): the output of appset generate -f appset.yaml differs",
    },
    {
      name: "a yaml block without a marker",
      page: `text\n\n${block("yaml", "a: 1\n")}`,
      failure: "page.md:3: a yaml block without an example marker",
    },
    {
      name: "an sh block without a marker",
      page: block("sh", "appset version\n"),
      failure: "page.md:1: a sh block without an example marker",
    },
    {
      name: "an ApplicationSet that breaks the schema",
      page: `<!-- example: yaml -->\n${block("yaml", "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: x}\nspec: {generators: 3}\n")}`,
      failure: "ApplicationSet x is invalid",
    },
    {
      name: "a marker followed by prose",
      page: "<!-- example: yaml -->\nsome words\n",
      failure: "page.md: line 1: example marker is not followed by a code block or table",
    },
    {
      name: "an unknown marker",
      page: `<!-- example: frobnicate -->\n${block("yaml", "a: 1\n")}`,
      failure: 'page.md:2: unknown example marker "frobnicate"',
    },
    {
      name: "a command documented to fail that succeeds",
      page: `<!-- example: run fails -->\n${block("sh", "appset version\n")}`,
      failure: "was documented to fail but exited 0",
    },
    {
      name: "a template row with the wrong output",
      page: '<!-- example: template go -->\n| Params | Template | Output |\n| --- | --- | --- |\n| `{"a":"x"}` | `{{ .a \\| upper }}` | `x` |\n',
      failure: 'documented "x", got "X"',
    },
    {
      name: "a controller flag that does not exist",
      page: `<!-- example: check -->\n${block("sh", "appset controller --no-such-flag\n")}`,
      failure: "appset controller --no-such-flag:",
    },
    {
      name: "an npm script that does not exist",
      page: `<!-- example: check -->\n${block("sh", "npm run no-such-script\n")}`,
      failure: 'package.json has no script "no-such-script"',
    },
    {
      name: "a test that does not mention the page",
      page: `<!-- example: tested-by package.json -->\n${block("sh", "kubectl get pods\n")}`,
      failure: "package.json does not mention page.md",
    },
  ])("fails a page with $name", async ({ page, failure }) => {
    const got = await failures(page);
    expect(got).toHaveLength(1);
    expect(got[0]).toContain(failure);
  });
});
