/**
 * The frame of a CLI integration file: a control plane of its own (etcd and kube-apiserver with
 * Argo CD's CRDs, and those of `crdDir` when given), a client on it, and `appset` run through the
 * CLI entry (src/cli/run.ts) against it. Call at module level: the plane starts before the file's
 * own `beforeAll` hooks and stops after its `afterAll` hooks.
 */
import { afterAll, beforeAll } from "vitest";
import { run as runCli } from "../../../../src/cli/run.js";
import { KubeApiClient } from "../../../../src/kube/index.js";
import { startControlPlane, type ControlPlane } from "../../../cluster/control-plane.js";

/** What one `appset` run returned and printed. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** The file's control plane, read once its `beforeAll` has run. */
export interface CliPlane {
  readonly client: () => KubeApiClient;
  readonly plane: () => ControlPlane;
  /** Runs `appset ARGS --kubeconfig <the plane's>` (`kubeconfig` in its place when given). */
  appset(args: readonly string[], kubeconfig?: string): Promise<CliRun>;
}

/** Starts a control plane for the file's tests (`crdDir`: more CRDs to install) and stops it after them. */
export function cliPlane(o: { crdDir?: string } = {}): CliPlane {
  let cp: ControlPlane | undefined;
  let client: KubeApiClient | undefined;
  beforeAll(async () => {
    cp = await startControlPlane({ components: ["etcd", "apiserver"], ...(o.crdDir === undefined ? {} : { crdDir: o.crdDir }) });
    client = KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath });
  }, 120_000);
  afterAll(async () => {
    await client?.transport.close();
    await cp?.stop();
  }, 60_000);
  const plane = (): ControlPlane => {
    if (cp === undefined) throw new Error("the control plane has not started");
    return cp;
  };
  return {
    plane,
    client: () => {
      if (client === undefined) throw new Error("the control plane has not started");
      return client;
    },
    async appset(args, kubeconfig) {
      let out = "";
      let err = "";
      const code = await runCli(
        [...args, "--kubeconfig", kubeconfig ?? plane().kubeconfigPath],
        (s) => (out += s),
        (s) => (err += s),
      );
      return { code, out, err };
    },
  };
}
