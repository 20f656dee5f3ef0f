/**
 * The two sync engines a case runs under, each for a namespace of its own: Argo CD's application
 * controller (the reference binary, with the run's shared repo-server) and ours (`appset
 * sync-engine`, a Node process as users run it). Both log into the run's data directory.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { argocdHome, startApplicationController, type RepoServer } from "../../argocd/support/argocd.js";
import { startProcessWith, stopProcess, type Managed } from "../../cluster/processes.js";

/** Which engine. */
export type SideName = "argo" | "ours";
export const SIDES: readonly SideName[] = ["argo", "ours"];

/** A running engine for one namespace. */
export interface Engine {
  readonly side: SideName;
  readonly logPath: string;
  /** Whether it exited (a crash is a finding of its own). */
  exited(): boolean;
  stop(): Promise<void>;
}

/** Where both engines connect and log. */
export interface SideEnv {
  readonly kubeconfigPath: string;
  readonly repoServer: RepoServer;
  readonly dataDir: string;
}

/** Starts `side`'s engine for `namespace`; resolves once it runs its workers (or after 30 s). */
export async function startEngine(side: SideName, namespace: string, env: SideEnv, appNamespaces: readonly string[] = []): Promise<Engine> {
  const served = appNamespaces.length > 0 ? ["--application-namespaces", appNamespaces.join(",")] : [];
  const name = `${side}-${namespace}`;
  const logPath = join(env.dataDir, `${name}.log`);
  if (side === "argo") {
    const procs: Managed[] = [];
    // Our engine always stores each resource's health in the Application's status; Argo CD 3.6
    // does so only with --persist-resource-health (docs/differential.md#the-sync-engine-suite).
    const controllerFlags = ["--persist-resource-health", ...served];
    const opts = { kubeconfigPath: env.kubeconfigPath, namespace, logName: name, controllerFlags };
    await startApplicationController(env.repoServer, opts, env.dataDir, procs);
    const proc = procs[0]!;
    return { side, logPath, exited: () => !proc.isRunning(), stop: () => stopProcess(proc, 5_000) };
  }
  // Helm and Kustomize sources render with the same helm and kustomize Argo CD's repo-server runs.
  const path = `${join(argocdHome(), "bin")}:${process.env["PATH"] ?? ""}`;
  const proc = startProcessWith(
    name,
    process.execPath,
    [
      "--import",
      "tsx",
      join(import.meta.dirname, "../../../src/cli/main.ts"),
      "sync-engine",
      "--kubeconfig",
      env.kubeconfigPath,
      "--namespace",
      namespace,
      "--metrics-addr",
      "127.0.0.1:0",
      "--probe-addr",
      "127.0.0.1:0",
      "--loglevel",
      "info",
      "--logformat",
      "json",
      ...served,
    ],
    { dataDir: env.dataDir, env: { ...process.env, PATH: path } },
  );
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline && proc.isRunning()) {
    let text = "";
    try {
      text = readFileSync(logPath, "utf8");
    } catch {
      // not written yet
    }
    if (text.includes('"msg":"caches synced, loops started"')) break;
    await sleep(50);
  }
  return { side, logPath, exited: () => !proc.isRunning(), stop: () => stopProcess(proc, 5_000) };
}
