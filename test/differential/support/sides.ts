/**
 * The two controllers a case runs under, each for a namespace of its own: Argo CD's
 * `argocd-applicationset-controller` (the reference binary, with the shared repo-server for the Git
 * generators) and ours (`appset controller`, a Node process as users run it). Both take the case's
 * flags; both log into the run's data directory.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { argoCommand, type RepoServer } from "../../argocd/support/argocd.js";
import { startProcess, stopProcess, type Managed } from "../../cluster/processes.js";

/** Which controller. */
export type SideName = "argo" | "ours";
export const SIDES: readonly SideName[] = ["argo", "ours"];

/** A running controller for one namespace. */
export interface Controller {
  readonly side: SideName;
  readonly namespace: string;
  readonly logPath: string;
  /** Whether it exited (a crash is a finding of its own). */
  exited(): boolean;
  stop(): Promise<void>;
}

/** Where both controllers connect and log. */
export interface SideEnv {
  readonly kubeconfigPath: string;
  readonly repoServer: RepoServer;
  readonly dataDir: string;
}

const ADDRS = ["--metrics-addr", "127.0.0.1:0", "--probe-addr", "127.0.0.1:0", "--webhook-addr", "127.0.0.1:0"];

/** The marker each controller logs once its workers run. */
const READY: Record<SideName, RegExp> = { argo: /"msg":"Starting workers"/, ours: /"msg":"caches synced, starting workers"/ };

/** Starts `side`'s controller for `namespace` with `flags`; resolves once it logs that its workers run (or after 20 s). */
export async function startController(side: SideName, namespace: string, flags: readonly string[], env: SideEnv): Promise<Controller> {
  const name = `${side}-${namespace}`;
  const common = ["--kubeconfig", env.kubeconfigPath, "--namespace", namespace, ...ADDRS, "--loglevel", "info", "--logformat", "json"];
  let proc: Managed;
  if (side === "argo") {
    proc = startProcess(
      name,
      "env",
      argoCommand("argocd-applicationset-controller", env.repoServer.env, [
        ...common,
        "--argocd-repo-server",
        env.repoServer.address,
        "--repo-server-plaintext",
        ...flags,
      ]),
      env.dataDir,
    );
  } else {
    proc = startProcess(
      name,
      process.execPath,
      ["--import", "tsx", join(import.meta.dirname, "../../../src/cli/main.ts"), "controller", ...common, ...flags],
      env.dataDir,
    );
  }
  const logPath = join(env.dataDir, `${name}.log`);
  const deadline = performance.now() + 20_000;
  while (performance.now() < deadline && proc.isRunning()) {
    let text = "";
    try {
      text = readFileSync(logPath, "utf8");
    } catch {
      // not written yet
    }
    if (READY[side].test(text)) break;
    await sleep(50);
  }
  return { side, namespace, logPath, exited: () => !proc.isRunning(), stop: () => stopProcess(proc, 5_000) };
}
