/**
 * The real `appset controller` process for the demo, run from source through tsx with progressive
 * syncs and the sync engine on, in a process group of its own (so it never outlives the demo), its
 * JSON log in a file.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { startProcess, stopProcess, type Managed } from "../cluster/processes.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** A running controller and where it logs. */
export interface DemoController {
  readonly process: Managed;
  readonly logPath: string;
  stop(): Promise<void>;
}

/** The controller's command line: the flags the demo is about, and ports nobody else uses. */
export function controllerArgs(kubeconfigPath: string, namespace: string): string[] {
  return [
    "--import",
    "tsx",
    join(repoRoot, "src", "cli", "main.ts"),
    "controller",
    "--kubeconfig",
    kubeconfigPath,
    "--namespace",
    namespace,
    "--enable-progressive-syncs",
    "--enable-sync-engine",
    // the demo's guestbook repository is a folder of this machine
    "--allow-local-repositories",
    "--probe-addr",
    "127.0.0.1:0",
    "--metrics-addr",
    "127.0.0.1:0",
    "--webhook-addr",
    "127.0.0.1:0",
  ];
}

/** The parsed JSON lines of a log file (lines that are not JSON are skipped). */
export function readLog(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** Starts the controller and waits until its caches have synced (or it exits, or `signal` aborts). */
export async function startDemoController(
  kubeconfigPath: string,
  namespace: string,
  logDir: string,
  signal: AbortSignal,
): Promise<DemoController> {
  const proc = startProcess("controller", process.execPath, controllerArgs(kubeconfigPath, namespace), logDir);
  const logPath = join(logDir, "controller.log");
  const controller = { process: proc, logPath, stop: () => stopProcess(proc, 10_000) };
  try {
    const deadline = performance.now() + 120_000;
    while (!readLog(logPath).some((l) => l["msg"] === "caches synced, starting workers")) {
      if (!proc.isRunning()) throw new Error(`the controller exited; its log: ${logPath}`);
      if (performance.now() > deadline) throw new Error(`the controller did not start within 120 s; its log: ${logPath}`);
      await sleep(100, undefined, { signal });
    }
  } catch (err) {
    await controller.stop();
    throw err;
  }
  return controller;
}
