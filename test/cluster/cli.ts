/**
 * Starts the local control plane in the foreground until Ctrl-C (or, with --check, until it is
 * ready, then stops it): the first part of the demo, and a way to poke at the cluster by hand.
 *   tsx test/cluster/cli.ts [--check] [--kubeconfig-out FILE]
 */
import { copyFileSync } from "node:fs";
import { startControlPlane } from "./control-plane.js";

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const check = args.includes("--check");
  const outIdx = args.indexOf("--kubeconfig-out");
  const started = Date.now();
  const cp = await startControlPlane();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  let kubeconfig = cp.kubeconfigPath;
  if (outIdx >= 0 && args[outIdx + 1] !== undefined) {
    kubeconfig = args[outIdx + 1]!;
    copyFileSync(cp.kubeconfigPath, kubeconfig);
  }
  process.stdout.write(
    `Local control plane ready in ${seconds} s: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok\n` +
      `  apiserver:  ${cp.server}\n  kubeconfig: ${kubeconfig}\n` +
      `  CRDs:       applicationsets, applications, appprojects (argoproj.io/v1alpha1)\n` +
      `  try:        KUBECONFIG=${kubeconfig} kubectl get nodes,crds\n`,
  );
  if (check) {
    await cp.stop();
    return;
  }
  process.stdout.write("Press Ctrl-C to stop it and remove everything it created.\n");
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await cp.stop();
  process.stdout.write("Stopped.\n");
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
