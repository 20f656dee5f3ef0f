/**
 * Where the tests find helm and kustomize: beside the Argo CD reference binary
 * (`$APPSET_ARGOCD_HOME/bin`, built by test/argocd/build.sh at the versions Argo CD v3.6 ships), so
 * our engine renders with the very programs Argo CD's repo-server runs.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

/** The directory holding `helm` and `kustomize`; throws with what to do when they are missing. */
export function renderToolsDir(): string {
  const home = process.env["APPSET_ARGOCD_HOME"];
  if (home === undefined || !existsSync(join(home, "bin", "helm")) || !existsSync(join(home, "bin", "kustomize"))) {
    throw new Error(
      "helm and kustomize are missing: run through `npm test`, or set APPSET_ARGOCD_HOME to the output of `bash test/argocd/build.sh` without /bin",
    );
  }
  return join(home, "bin");
}

/** This process's environment with helm and kustomize first on PATH. */
export function withRenderTools(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, PATH: `${renderToolsDir()}:${env["PATH"] ?? ""}` };
}
