/**
 * Benchmark of the whole controller process with its sync engine (`appset controller
 * --enable-sync-engine`) at scale, on a local control plane of etcd and kube-apiserver only (so the
 * process is the only watcher the apiserver serves).
 *   npx tsx bench/manager.ts [apps=1000] [entry=dist/cli/main.js]
 *
 * Builds a local Git repository with one ConfigMap, creates `apps / 100` ApplicationSets of 100
 * Applications each (List generator, every Application synced from that repository by the engine
 * into a namespace of its own), starts the process from `entry` (run `npm run build` first), waits
 * until every Application exists and carries a sync status, lets it settle, and prints:
 * - the process's resident memory (VmRSS, MiB) at that point and its peak (VmHWM);
 * - the watches the process opened, per resource: the apiserver's `apiserver_longrunning_requests
 *   {verb="WATCH"}` now, less what it served before the process started (its own watches): one per
 *   informer of the process;
 * - the time from start to converged.
 */
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeApiClient, resources, type KubeObject } from "../src/kube/index.js";
import { startControlPlane } from "../test/cluster/control-plane.js";
import { httpCall } from "../test/cluster/http.js";

const PER_APPSET = 100;
const NS = "bench";

function gitRepo(dir: string): string {
  const work = join(dir, "work");
  mkdirSync(join(work, "manifests"), { recursive: true });
  writeFileSync(join(work, "manifests", "cm.yaml"), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bench\ndata:\n  version: "1"\n');
  const git = (...args: string[]): void => void execFileSync("git", args, { cwd: work, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "one ConfigMap");
  return `file://${work}`;
}

function appSet(name: string, repoURL: string, count: number): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name, namespace: NS },
    spec: {
      generators: [{ list: { elements: Array.from({ length: count }, (_, i) => ({ n: `${name}-${String(i).padStart(3, "0")}` })) } }],
      template: {
        metadata: { name: "{{n}}" },
        spec: {
          project: "default",
          source: { repoURL, path: "manifests", targetRevision: "main" },
          destination: { server: "https://kubernetes.default.svc", namespace: "{{n}}" },
          syncPolicy: { automated: {}, syncOptions: ["CreateNamespace=true"] },
        },
      },
    },
  };
}

function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${String(pid)}/status`, "utf8");
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

async function watches(server: string, token: string): Promise<Record<string, number>> {
  const res = await httpCall("GET", `${server}/metrics`, { token });
  const out: Record<string, number> = {};
  for (const line of res.body.split("\n")) {
    if (!line.startsWith("apiserver_longrunning_requests{") || !line.includes('verb="WATCH"')) continue;
    const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? "?";
    const n = Number(line.slice(line.lastIndexOf(" ") + 1));
    if (n > 0) out[resource] = (out[resource] ?? 0) + n;
  }
  return out;
}

async function main(): Promise<void> {
  const apps = Number(process.argv[2] ?? 1000);
  const entry = resolve(process.argv[3] ?? "dist/cli/main.js");
  const dir = mkdtempSync(join(tmpdir(), "appset-bench-manager-"));
  const cp = await startControlPlane({ components: ["etcd", "apiserver"] });
  const child = { pid: 0, kill: (): void => {} };
  try {
    const client = KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath });
    await client.create(resources.Namespaces, { metadata: { name: NS } });
    await client.create(resources.AppProjects, {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "AppProject",
      metadata: { name: "default", namespace: NS },
      spec: { sourceRepos: ["*"], destinations: [{ server: "*", namespace: "*" }], clusterResourceWhitelist: [{ group: "*", kind: "*" }] },
    });
    const repoURL = gitRepo(dir);
    for (let i = 0; i < Math.ceil(apps / PER_APPSET); i++) {
      await client.create(
        resources.ApplicationSets,
        appSet(`set-${String(i).padStart(2, "0")}`, repoURL, Math.min(PER_APPSET, apps - i * PER_APPSET)),
      );
    }
    const baseline = await watches(cp.server, cp.token);
    const started = performance.now();
    const proc = spawn(
      process.execPath,
      [
        entry,
        "controller",
        "--enable-sync-engine",
        "--kubeconfig",
        cp.kubeconfigPath,
        "--namespace",
        NS,
        "--probe-addr",
        "127.0.0.1:0",
        "--metrics-addr",
        "127.0.0.1:0",
        "--webhook-addr",
        "127.0.0.1:0",
        "--loglevel",
        "warn",
      ],
      { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, TMPDIR: dir } },
    );
    child.pid = proc.pid ?? 0;
    child.kill = () => void proc.kill("SIGTERM");
    for (;;) {
      // The apiserver answers 429 while its watch cache of a new resource initializes: ask again.
      const list = await client.list(resources.Applications, { namespace: NS }).catch(() => ({ items: [] as KubeObject[] }));
      const synced = list.items.filter((a) => (a as { status?: { sync?: { status?: string } } }).status?.sync?.status === "Synced").length;
      if (list.items.length >= apps && synced >= apps) break;
      if (performance.now() - started > 1_800_000)
        throw new Error(`not converged: ${String(list.items.length)} Applications, ${String(synced)} synced`);
      await sleep(2_000);
    }
    const converged = (performance.now() - started) / 1000;
    await sleep(20_000);
    const m = memory(child.pid);
    const now = await watches(cp.server, cp.token);
    const w = Object.fromEntries(
      Object.entries(now)
        .map(([r, n]) => [r, n - (baseline[r] ?? 0)])
        .filter(([, n]) => Number(n) > 0),
    ) as Record<string, number>;
    const total = Object.values(w).reduce((s, n) => s + n, 0);
    console.log(`converged: ${String(apps)} Applications synced ${converged.toFixed(1)} s after the process started`);
    console.log(`resident memory: ${m.rss.toFixed(0)} MiB (peak ${m.peak.toFixed(0)} MiB)`);
    console.log(
      `watches the process opened: ${String(total)} (${Object.entries(w)
        .map(([r, n]) => `${r} ${String(n)}`)
        .join(", ")})`,
    );
  } finally {
    child.kill();
    await sleep(3_000);
    await cp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
