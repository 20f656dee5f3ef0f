/**
 * The sync engine side by side with Argo CD's application controller (v3.6.2, the reference binary
 * of test/argocd/build.sh, `APPSET_ARGOCD_HOME`) on one control plane with Argo CD's CRDs: the same
 * Application (200 resources in 5 waves, from one local Git repository) synced by each, runs
 * alternated, each into a fresh namespace; the time is from the Application's creation (with its
 * sync operation) to the operation's Succeeded, as a client polling it sees. Argo CD runs at its
 * default wave delay (`ARGOCD_SYNC_WAVE_DELAY`, 2 s) and again at 0; ours gates waves on observed
 * health only. Run by `bench/syncwaves.ts --argocd`.
 */
import { randomBytes } from "node:crypto";
import type { Application } from "../src/api/index.js";
import { SystemClock } from "../src/clock/index.js";
import { Discovery, KubeApiClient, resources, type KubeObject } from "../src/kube/index.js";
import { silentLogger } from "../src/log/logger.js";
import { SyncEngine } from "../src/syncwaves/engine.js";
import { GitManifestSource } from "../src/syncwaves/git-source.js";
import { createDefaultProject, startArgoCd } from "../test/argocd/support/argocd.js";
import { gitReader, makeRepo, TempDirs } from "../test/integration/support/git-repos.js";

const clock = new SystemClock();

async function namespace(client: KubeApiClient, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString("hex")}`;
  await client.create(resources.Namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

async function appNamespace(client: KubeApiClient, prefix: string): Promise<string> {
  const ns = await namespace(client, prefix);
  await createDefaultProject(client, ns);
  return ns;
}

/** Creates an Application with a sync operation in `appNs`; resolves with the ms until it Succeeded. */
async function syncOnce(client: KubeApiClient, appNs: string, repoURL: string): Promise<number> {
  const dest = await namespace(client, "dest");
  const name = `app-${randomBytes(3).toString("hex")}`;
  const app: Application = {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: appNs },
    spec: {
      project: "default",
      destination: { server: "https://kubernetes.default.svc", namespace: dest },
      source: { repoURL, path: "app", targetRevision: "HEAD" },
    },
    operation: { sync: {}, initiatedBy: { username: "bench" } },
  };
  const t0 = performance.now();
  await client.create(resources.Applications, app);
  const deadline = t0 + 600_000;
  for (;;) {
    const a = await client.get<Application>(resources.Applications, { namespace: appNs, name });
    const phase = a.status?.operationState?.phase;
    if (a.operation === undefined && phase === "Succeeded") return performance.now() - t0;
    if (phase === "Failed" || phase === "Error") throw new Error(`${name}: ${a.status?.operationState?.message ?? ""}`);
    if (performance.now() > deadline) throw new Error(`${name}: not synced in 600 s (phase ${phase ?? "none"})`);
    await clock.sleep(50);
  }
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const secs = (ms: number): string => (ms / 1000).toFixed(2);

/** Runs the comparison: `runs` alternated syncs per side. */
export async function againstArgoCd(kubeconfigPath: string, objs: readonly KubeObject[], runs: number): Promise<void> {
  const client = KubeApiClient.fromConfig({ kind: "file", path: kubeconfigPath });
  const discovery = new Discovery(client.transport);
  const temp = new TempDirs();
  try {
    const files = Object.fromEntries(objs.map((o, i) => [`app/${String(i).padStart(4, "0")}.yaml`, JSON.stringify(o)]));
    const repoURL = `file://${makeRepo(temp, files)}`;
    const oursNs = await appNamespace(client, "ours");
    const engine = new SyncEngine({
      watch: client,
      namespace: oursNs,
      client,
      resolve: (o) => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? ""),
      source: new GitManifestSource(gitReader(temp)),
      clock,
      log: silentLogger(),
      waveDelayMs: 0,
    });
    engine.start();
    const times: Record<string, number[]> = { ours: [], "argo (wave delay 2 s)": [], "argo (wave delay 0)": [] };
    try {
      for (const [label, env] of [
        ["argo (wave delay 2 s)", {}],
        ["argo (wave delay 0)", { ARGOCD_SYNC_WAVE_DELAY: "0" }],
      ] as const) {
        const argoNs = await appNamespace(client, "argo");
        const argo = await startArgoCd(client, { kubeconfigPath, namespace: argoNs, controllerEnv: env });
        try {
          for (let i = 0; i < runs; i++) {
            times[label]!.push(await syncOnce(client, argoNs, repoURL));
            times["ours"]!.push(await syncOnce(client, oursNs, repoURL));
          }
        } finally {
          await argo.stop();
        }
      }
    } finally {
      await engine.stop();
    }
    const ours = median(times["ours"]!);
    console.log(`against Argo CD's application controller: 1 Application × ${String(objs.length)} resources in 5 waves, runs alternated`);
    for (const [label, xs] of Object.entries(times)) {
      const m = median(xs);
      const ratio = label === "ours" ? "" : `   ours / argo ${(ours / m).toFixed(2)}`;
      console.log(`  ${label.padEnd(24)} median ${secs(m)} s  (${xs.map(secs).join(", ")})${ratio}`);
    }
  } finally {
    await client.transport.close();
    temp.cleanup();
  }
}
