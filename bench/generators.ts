/**
 * Benchmark of the generators: a Matrix of a Git directory generator (500 directories, served by
 * git's smart-HTTP backend on loopback) × a Cluster generator (20 cluster Secrets), rendered
 * offline into 10,000 Applications in goTemplate mode. Prints wall time, peak memory and the git
 * commands run for a cold reconcile, the same reconcile repeated with the repository unchanged
 * (the Git cache at work: one ls-remote, no fetch), and one after a new commit.
 *   npx tsx bench/generators.ts [directories] [clusters]
 */
import { join } from "node:path";
import { parseApplicationSet, type ApplicationSet } from "../src/api/index.js";
import { SystemClock } from "../src/clock/index.js";
import { GitRepoReader } from "../src/git/index.js";
import { createGeneratorRegistry, DEFAULT_GENERATOR_SETTINGS } from "../src/generators/index.js";
import { generateApplications } from "../src/generators/applications.js";
import { portsFromObjects } from "../src/generators/object-ports.js";
import { TemplateEngine } from "../src/template/index.js";
import { commit, git, gitEnv, makeRepo, TempDirs } from "../test/integration/support/git-repos.js";
import { serveGitHttp } from "../test/integration/support/git-http.js";
import type { KubeObject } from "../src/kube/index.js";

const dirs = Number(process.argv[2] ?? 500);
const clusters = Number(process.argv[3] ?? 20);

function appSetFor(repoURL: string): ApplicationSet {
  const res = parseApplicationSet({
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "bench", namespace: "argocd" },
    spec: {
      goTemplate: true,
      goTemplateOptions: ["missingkey=error"],
      generators: [
        {
          matrix: {
            generators: [
              { git: { repoURL, revision: "main", directories: [{ path: "apps/*" }] } },
              { clusters: { selector: { matchLabels: { bench: "yes" } } } },
            ],
          },
        },
      ],
      template: {
        metadata: { name: "{{ .path.basename }}-{{ .name }}", labels: { env: '{{ index .metadata.labels "env" }}' } },
        spec: {
          project: "default",
          source: { repoURL, targetRevision: "main", path: "{{ .path.path }}" },
          destination: { server: "{{ .server }}", namespace: "{{ .path.basename | normalize }}" },
        },
      },
    },
  });
  if (!res.ok) throw res.error;
  return res.value;
}

function clusterSecrets(n: number): KubeObject[] {
  return Array.from({ length: n }, (_, i) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: `c${String(i)}`,
      namespace: "argocd",
      labels: { "argocd.argoproj.io/secret-type": "cluster", bench: "yes", env: i % 2 ? "prod" : "dev" },
    },
    stringData: { name: `cluster-${String(i).padStart(2, "0")}`, server: `https://10.0.0.${String(i)}:6443` },
  }));
}

/** Samples heap and RSS every 5 ms while `fn` runs; returns its wall time and the peaks. */
async function measure<T>(fn: () => Promise<T>): Promise<{ result: T; ms: number; peakHeapMiB: number; peakRssMiB: number }> {
  let peakHeap = 0;
  let peakRss = 0;
  const sample = (): void => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  };
  const timer = setInterval(sample, 5);
  const start = performance.now();
  const result = await fn();
  const ms = performance.now() - start;
  clearInterval(timer);
  sample();
  return { result, ms, peakHeapMiB: peakHeap / 2 ** 20, peakRssMiB: peakRss / 2 ** 20 };
}

async function main(): Promise<void> {
  const temp = new TempDirs();
  const files: Record<string, string> = {};
  for (let i = 0; i < dirs; i++) files[`apps/app-${String(i).padStart(3, "0")}/kustomization.yaml`] = "resources: []\n";
  const work = makeRepo(temp, files);
  const root = temp.make();
  git(root, "clone", "-q", "--bare", work, join(root, "apps.git"));
  const server = await serveGitHttp(root);
  try {
    const repoURL = `${server.url}/apps.git`;
    const reader = new GitRepoReader({ cacheDir: temp.make(), env: gitEnv() });
    const ports = { ...portsFromObjects(clusterSecrets(clusters), "argocd"), git: reader };
    const engine = new TemplateEngine({ now: () => Date.now() });
    const opts = {
      ctx: { ports, settings: DEFAULT_GENERATOR_SETTINGS, clock: new SystemClock() },
      registry: createGeneratorRegistry(),
      engine,
    };
    const appSet = appSetFor(repoURL);
    const run = async (label: string): Promise<void> => {
      const before = { ...reader.stats };
      const requests = server.requests.length;
      const m = await measure(() => generateApplications(appSet, opts));
      const d = (k: keyof typeof before): number => reader.stats[k] - before[k];
      console.log(
        `${label.padEnd(26)} ${String(m.result.length).padStart(6)} apps  ${m.ms.toFixed(0).padStart(6)} ms  ` +
          `peak heap ${m.peakHeapMiB.toFixed(0)} MiB, rss ${m.peakRssMiB.toFixed(0)} MiB  ` +
          `git: ls-remote ${String(d("lsRemote"))}, fetch ${String(d("fetch"))}, ls-tree ${String(d("lsTree"))}; HTTP requests ${String(server.requests.length - requests)}`,
      );
    };
    console.log(`Matrix: git directories (${String(dirs)}) x clusters (${String(clusters)}), goTemplate, smart HTTP on loopback`);
    await run("cold (fetch)");
    for (let i = 1; i <= 3; i++) await run(`unchanged repository #${String(i)}`);
    commit(work, { "apps/app-new/kustomization.yaml": "resources: []\n" });
    git(work, "push", "-q", join(root, "apps.git"), "main");
    await run("after a new commit");
    await run("unchanged again");
  } finally {
    await server.stop();
    temp.cleanup();
  }
}

await main();
