/**
 * Vitest global setup of the beside-Argo-CD project: one real control plane with Argo CD v3.6's own
 * CRDs (not ours), its kubeconfig handed to the tests with `inject("kubeconfigPath")`, stopped at
 * the end. Each test file starts Argo CD's application controller and repo-server for its namespaces
 * (support/argocd.ts).
 */
import type { TestProject } from "vitest/node";
import { startControlPlane } from "../cluster/control-plane.js";
import { argocdCrdDir } from "./support/argocd.js";

declare module "vitest" {
  export interface ProvidedContext {
    kubeconfigPath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const cp = await startControlPlane({ crdDir: argocdCrdDir() });
  process.stderr.write(`[control plane, Argo CD CRDs] ready in ${Date.now() - started} ms at ${cp.server}\n`);
  project.provide("kubeconfigPath", cp.kubeconfigPath);
  return async () => {
    await cp.stop();
  };
}
