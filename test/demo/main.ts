/**
 * The demo (`npm run demo`): starts the local control plane with the CRDs, then runs the scenario
 * (the controller with progressive syncs and the sync engine, the guestbook repository, the RollingSync
 * rollout and the Reverse deletion) with a live view, stops everything and prints the wall time of
 * each phase. Ctrl-C at any point stops everything too.
 *   tsx test/demo/main.ts [--keep-cluster] [--print-kubeconfig]
 * --keep-cluster   after the rollout, keep the control plane and the controller up until Ctrl-C
 * --print-kubeconfig  print the control plane's kubeconfig once it is up
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startControlPlane, type ControlPlane } from "../cluster/control-plane.js";
import { parseFlags, type DemoFlags } from "./flags.js";
import { renderSummary } from "./render.js";
import { plainReporter, Stopwatch, ttyReporter, type Reporter } from "./reporter.js";
import { runScenario } from "./scenario.js";
import type { View } from "./view.js";

const NAMESPACE = "argocd";

function keepHint(kubeconfig: string): (view: View) => string {
  return (view) =>
    [
      `The control plane and the controller stay up until Ctrl-C (${view.total} Applications deployed). Try:`,
      `  export KUBECONFIG=${kubeconfig}`,
      `  kubectl -n ${NAMESPACE} get applicationsets,applications`,
      `  kubectl get deployments,services,pods -A -l app=guestbook-ui`,
      `  kubectl -n ${NAMESPACE} delete applicationset guestbook   # watch the Reverse deletion here`,
    ].join("\n");
}

/**
 * `work`, or a rejection as soon as `signal` aborts. On Ctrl-C the control plane's processes are
 * already killed (see processes.ts), and its data directory goes with the watchdog when we exit, so
 * the start in flight need not be waited for.
 */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error("interrupted"));
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

async function run(flags: DemoFlags, reporter: Reporter, stopwatch: Stopwatch, signal: AbortSignal): Promise<void> {
  reporter.phase("Local control plane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok; CRDs");
  let cp: ControlPlane | undefined;
  const workDir = mkdtempSync(join(tmpdir(), "appset-demo-"));
  const removeWorkDir = (): void => rmSync(workDir, { recursive: true, force: true });
  process.on("exit", removeWorkDir); // also on a forced exit
  try {
    cp = await stopwatch.time("control plane start", () => abortable(startControlPlane(), signal));
    const kubeconfigPath = cp.kubeconfigPath;
    reporter.note(`  apiserver ${cp.server}, ready in ${((cp.timings["ready"] ?? 0) / 1000).toFixed(1)} s`);
    if (flags.printKubeconfig) reporter.note(`  kubeconfig (${kubeconfigPath}):\n${readFileSync(kubeconfigPath, "utf8")}`);
    await runScenario({
      kubeconfigPath,
      namespace: NAMESPACE,
      namespacePrefix: "guestbook",
      workDir,
      reporter,
      stopwatch,
      signal,
      ...(flags.keepCluster ? { keep: keepHint(kubeconfigPath) } : {}),
    });
  } finally {
    const started = cp;
    if (started !== undefined) {
      reporter.phase("Stopping the control plane");
      await stopwatch.time("control plane stop", () => started.stop());
    }
    removeWorkDir();
  }
}

async function main(): Promise<number> {
  const flags = parseFlags(process.argv.slice(2));
  const tty = process.stdout.isTTY;
  const reporter = tty ? ttyReporter(process.stdout) : plainReporter((line) => process.stdout.write(`${line}\n`));
  const stopwatch = new Stopwatch();
  const abort = new AbortController();
  let interruptedAt = 0;
  const onSignal = (): void => {
    // A second Ctrl-C (not the same one delivered twice) exits at once: the process groups die with us.
    if (abort.signal.aborted && performance.now() - interruptedAt > 1_000) process.exit(130);
    if (abort.signal.aborted) return;
    interruptedAt = performance.now();
    reporter.note("Interrupted: stopping everything.");
    abort.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let code = 0;
  try {
    await run(flags, reporter, stopwatch, abort.signal);
  } catch (err) {
    if (!abort.signal.aborted) {
      reporter.note(`The demo failed: ${err instanceof Error ? err.message : String(err)}`);
      code = 1;
    }
  } finally {
    reporter.close();
  }
  const { phases, totalMs } = stopwatch.report();
  process.stdout.write(`${renderSummary(phases, totalMs).join("\n")}\n`);
  const outcome = abort.signal.aborted ? "Stopped" : code === 0 ? "Done" : "Failed";
  process.stdout.write(`${outcome}; nothing is left running.\n`);
  return abort.signal.aborted ? 130 : code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
