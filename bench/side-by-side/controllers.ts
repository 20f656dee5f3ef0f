/**
 * The two controllers of the side-by-side benchmark, each a process of its own for one namespace:
 * Argo CD's `argocd-applicationset-controller` (the reference binary of the beside-Argo-CD harness)
 * and ours as the image runs it (`node dist/cli/main.js controller` with the Node flags of its first
 * line and the environment the Dockerfile's final stage sets, compiled JavaScript, no loader).
 * Both get the same flags and the same client limits (`ARGOCD_K8S_CLIENT_QPS` / `_BURST`).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { argoCommand, argocdHome, type RepoServer } from "../../test/argocd/support/argocd.js";
import { freePort } from "../../test/cluster/control-plane.js";
import { startProcessWith, stopProcess, type Managed } from "../../test/cluster/processes.js";
import { programArgs } from "../../test/support/program.js";
import { dockerfile, envOf } from "../../test/unit/deploy/dockerfile.js";

/** Which controller. */
export type Side = "argo" | "ours";

/** A running controller. */
export interface RunningSide {
  readonly side: Side;
  readonly pid: number;
  readonly logPath: string;
  /** Milliseconds from the spawn to its workers running. */
  readonly startMs: number;
  stop(): Promise<void>;
}

/** What one run adds: Argo CD's repo-server (which does its Git work) and a known webhook port. */
export interface SideExtras {
  readonly repoServer?: RepoServer;
  readonly webhookPort?: number;
  /** The process's name (its log is `<dataDir>/<name>.log`): `<side>-<namespace>` unless set. */
  readonly name?: string;
  /** Flags added after the common ones (ours only). */
  readonly args?: readonly string[];
  /** `--loglevel` unless `BENCH_LOGLEVEL` is set: `info` unless set. */
  readonly logLevel?: string;
}

/** What both controllers share. */
export interface SideSettings {
  readonly kubeconfigPath: string;
  readonly dataDir: string;
  /** `--concurrent-application-updates`. */
  readonly concurrentApplicationUpdates: number;
  /** Client QPS and burst (`ARGOCD_K8S_CLIENT_QPS` / `ARGOCD_K8S_CLIENT_BURST`). */
  readonly qps: number;
  readonly burst: number;
}

const ROOT = join(import.meta.dirname, "..", "..");
const READY: Record<Side, RegExp> = { argo: /"msg":"Starting workers"/, ours: /"msg":"caches synced, starting workers"/ };

/** Bundles the product into `dist/` (`npm run build`: what the image ships). */
export function buildOurs(): void {
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.ts")], { stdio: "inherit" });
}

/** The environment the Dockerfile's final stage sets (MALLOC_ARENA_MAX among it), read once. */
let imageEnvironment: Record<string, string> | undefined;

function environment(side: Side, s: SideSettings): NodeJS.ProcessEnv {
  const tmp = join(s.dataDir, "tmp");
  mkdirSync(tmp, { recursive: true });
  return {
    // Ours runs with the image's ENV, as its container does.
    ...(side === "ours" ? (imageEnvironment ??= envOf(dockerfile().at(-1)!)) : {}),
    PATH: process.env["PATH"] ?? "",
    HOME: s.dataDir,
    TMPDIR: tmp,
    KUBECONFIG: s.kubeconfigPath,
    ARGOCD_FAKE_IN_CLUSTER: "true",
    ARGOCD_K8S_CLIENT_QPS: String(s.qps),
    ARGOCD_K8S_CLIENT_BURST: String(s.burst),
    ...(process.env["BENCH_NODE_OPTIONS"] === undefined ? {} : { NODE_OPTIONS: process.env["BENCH_NODE_OPTIONS"] }),
  };
}

async function command(side: Side, namespace: string, s: SideSettings, extras: SideExtras): Promise<[string, string[]]> {
  const common = [
    "--kubeconfig",
    s.kubeconfigPath,
    "--namespace",
    namespace,
    "--metrics-addr",
    "127.0.0.1:0",
    "--probe-addr",
    "127.0.0.1:0",
    "--webhook-addr",
    `127.0.0.1:${String(extras.webhookPort ?? 0)}`,
    "--loglevel",
    process.env["BENCH_LOGLEVEL"] ?? extras.logLevel ?? "info",
    "--logformat",
    "json",
    "--concurrent-application-updates",
    String(s.concurrentApplicationUpdates),
  ];
  if (side === "ours") {
    const main = join(ROOT, "dist", "cli", "main.js");
    // Ours refuses more than 10,000 parameter sets per ApplicationSet by default (Argo CD has no such
    // limit); the 20,000 fan-out needs more.
    return [process.execPath, programArgs(main, ["controller", ...common, "--max-parameter-sets", "1000000", ...(extras.args ?? [])])];
  }
  argocdHome();
  // Without a repo-server (no Git generator in the run), an address nothing listens on: Argo CD's
  // controller dials it lazily.
  const repo = extras.repoServer?.address ?? `127.0.0.1:${String(await freePort())}`;
  return [
    "env",
    argoCommand("argocd-applicationset-controller", extras.repoServer?.env ?? {}, [
      ...common,
      "--argocd-repo-server",
      repo,
      "--repo-server-plaintext",
    ]),
  ];
}

/** Starts `side` for `namespace`; resolves once its workers run. */
export async function startSide(side: Side, namespace: string, s: SideSettings, extras: SideExtras = {}): Promise<RunningSide> {
  const [program, args] = await command(side, namespace, s, extras);
  const name = extras.name ?? `${side}-${namespace}`;
  const t0 = performance.now();
  const proc: Managed = startProcessWith(name, program, args, { dataDir: s.dataDir, env: environment(side, s) });
  const logPath = join(s.dataDir, `${name}.log`);
  for (;;) {
    if (!proc.isRunning()) throw new Error(`${name} exited before its workers ran; see ${logPath}`);
    let text = "";
    try {
      text = readFileSync(logPath, "utf8");
    } catch {
      // not written yet
    }
    if (READY[side].test(text)) break;
    if (performance.now() - t0 > 60_000) throw new Error(`${name} did not start its workers within 60 s; see ${logPath}`);
    await sleep(20);
  }
  return { side, pid: proc.pid, logPath, startMs: performance.now() - t0, stop: () => stopProcess(proc, 10_000) };
}
