/**
 * Runs the real helm (the one Argo CD v3.6 ships, see test/support/render-tools.ts) on the chart in
 * deploy/helm/appset, and reads what `helm template` renders as objects.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments, stringify } from "yaml";
import { REPO_ROOT, type Manifest } from "../../unit/deploy/kustomize.js";
import { renderToolsDir } from "../../support/render-tools.js";

const exec = promisify(execFile);

/** The chart's folder. */
export const CHART_DIR = join(REPO_ROOT, "deploy", "helm", "appset");

/** What one helm run printed. */
export interface HelmRun {
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs helm with `args`; rejects with helm's stderr when it exits non-zero. */
export async function helm(args: readonly string[]): Promise<HelmRun> {
  const home = mkdtempSync(join(tmpdir(), "appset-helm-"));
  try {
    const env = { PATH: process.env["PATH"] ?? "", HOME: home, HELM_CACHE_HOME: home, HELM_CONFIG_HOME: home, HELM_DATA_HOME: home };
    return await exec(join(renderToolsDir(), "helm"), [...args], { env, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`helm ${args.join(" ")} failed: ${e.stderr ?? e.message}`, { cause: err });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** `helm template <release> <chart> --namespace <ns>` with `values` as a values file, parsed. */
export async function helmTemplate(release: string, namespace: string, values: Record<string, unknown> = {}): Promise<Manifest[]> {
  const dir = mkdtempSync(join(tmpdir(), "appset-values-"));
  try {
    const file = join(dir, "values.yaml");
    writeFileSync(file, stringify(values));
    const { stdout } = await helm(["template", release, CHART_DIR, "--namespace", namespace, "--values", file]);
    return parseAllDocuments(stdout).flatMap((d) => {
      if (d.errors.length > 0) throw new Error(`helm template printed invalid YAML: ${d.errors[0]?.message}`);
      return (d.toJS() as Manifest | null) ?? [];
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
