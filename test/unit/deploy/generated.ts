/**
 * The parts of deploy/ and docs/ generated from code: the Deployments' `env` (the controller's and
 * the sync engine's, from the settings table's `deploymentEnv()`), the single-file install bundles (rendered from their
 * kustomizations), the reference table of docs/configuration.md (from `configReference()`) and the
 * values table of the chart's README (from the comments of its values.yaml).
 * `generate.ts` writes them; `generated.test.ts` fails when a committed file differs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument, stringify } from "yaml";
import { configReference, deploymentEnv, type ConfigReferenceRow } from "../../../src/config/index.js";
import { CHART_PATH, withGeneratedValues } from "./chart.js";
import { REPO_ROOT, renderKustomization } from "./kustomize.js";

/** One generated file: where it lives and what it must contain, given its current text. */
export interface GeneratedFile {
  readonly path: string;
  readonly expected: (current: string) => string;
}

/** Where the Deployment keeps the controller container's env. */
export const ENV_PATH = ["spec", "template", "spec", "containers", 0, "env"] as const;

/**
 * The controller container's env: its namespace from the downward API (read when no kubeconfig
 * context names one), then every `argocd-cmd-params-cm` key.
 */
export function containerEnv(): unknown[] {
  return [{ name: "NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } }, ...deploymentEnv()];
}

/** deployment.yaml with its env replaced by the generated one (comments and layout kept). */
export function withGeneratedEnv(text: string): string {
  const doc = parseDocument(text);
  doc.setIn(ENV_PATH, doc.createNode(containerEnv()));
  return doc.toString({ lineWidth: 0 });
}

/** A kustomization rendered to one multi-document YAML file. */
export function renderBundle(dir: string): string {
  const header = `# Generated from deploy/${dir}/kustomization.yaml by test/unit/deploy/generate.ts; do not edit.\n`;
  const docs = renderKustomization(join("deploy", dir)).map((o) => stringify(o, { lineWidth: 0 }));
  return header + docs.map((d) => `---\n${d}`).join("");
}

const BEGIN = "<!-- BEGIN GENERATED: configuration reference -->";
const END = "<!-- END GENERATED: configuration reference -->";

function cell(text: string): string {
  return text === "" ? "" : `\`${text.replaceAll("|", "\\|")}\``;
}

function tableOf(rows: readonly ConfigReferenceRow[]): string {
  const head = "| Flag | Environment variable | `argocd-cmd-params-cm` key | Default | Description |\n| --- | --- | --- | --- | --- |\n";
  const body = rows.map(
    (r) => `| ${cell(r.flag)} | ${cell(r.env)} | ${cell(r.cmKey)} | ${cell(r.default)} | ${r.description.replaceAll("|", "\\|")} |\n`,
  );
  return head + body.join("");
}

const SECTIONS: ReadonlyArray<{ origin: ConfigReferenceRow["origin"]; title: string }> = [
  { origin: "argo-cd", title: "Argo CD's settings" },
  { origin: "appset", title: "Settings this controller adds" },
  { origin: "kubectl", title: "Kubernetes client" },
];

/** The reference tables of every setting, one per origin, from `configReference()`. */
export function configurationTables(): string {
  const rows = configReference();
  const parts = SECTIONS.map(({ origin, title }) => `### ${title}\n\n${tableOf(rows.filter((r) => r.origin === origin))}`);
  return `${BEGIN}\n${parts.join("\n")}${END}`;
}

/** docs/configuration.md with its generated section replaced. */
export function withGeneratedTables(markdown: string): string {
  const start = markdown.indexOf(BEGIN);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/configuration.md must contain the markers ${BEGIN} and ${END}`);
  return markdown.slice(0, start) + configurationTables() + markdown.slice(end + END.length);
}

/** Every generated file. */
export const GENERATED_FILES: readonly GeneratedFile[] = [
  { path: "deploy/base/deployment.yaml", expected: withGeneratedEnv },
  { path: "deploy/sync-engine-workload/deployment.yaml", expected: withGeneratedEnv },
  { path: "deploy/install.yaml", expected: () => renderBundle("install") },
  { path: "deploy/install-with-sync-engine.yaml", expected: () => renderBundle("install-with-sync-engine") },
  { path: "deploy/install-cluster-wide.yaml", expected: () => renderBundle("install-cluster-wide") },
  { path: "deploy/beside-argocd.yaml", expected: () => renderBundle("beside-argocd") },
  { path: "docs/configuration.md", expected: withGeneratedTables },
  { path: `${CHART_PATH}/README.md`, expected: (current) => withGeneratedValues(current, readRepoFile(`${CHART_PATH}/values.yaml`)) },
];

/** The committed text of a repository file. */
export function readRepoFile(path: string): string {
  return readFileSync(join(REPO_ROOT, path), "utf8");
}
