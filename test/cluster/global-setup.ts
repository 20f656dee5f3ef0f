/**
 * Vitest global setup of the e2e project: one real control plane for the whole run, its kubeconfig
 * handed to the tests with `inject("kubeconfigPath")`, stopped at the end; and the shipped program,
 * bundled once (test/support/program.ts), whose `main.js` the tests that start it as a process get
 * with `inject("programPath")`.
 */
import type { TestProject } from "vitest/node";
import { buildProgram } from "../support/program.js";
import { startControlPlane } from "./control-plane.js";

declare module "vitest" {
  export interface ProvidedContext {
    kubeconfigPath: string;
    programPath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const program = await buildProgram();
  project.provide("programPath", program.main);
  const started = Date.now();
  const cp = await startControlPlane();
  process.stderr.write(`[control plane] ready in ${Date.now() - started} ms at ${cp.server}\n`);
  project.provide("kubeconfigPath", cp.kubeconfigPath);
  return async () => {
    await cp.stop();
    program.remove();
  };
}
