/**
 * The Git run of the side-by-side benchmark: one ApplicationSet with a Git directories generator
 * over a repository of 100 directories, served by git's own smart-HTTP backend; once converged, a
 * stream of commits, each adding a directory and announced by a signed GitHub push webhook to the
 * controller. Argo CD's controller does its Git work in Argo CD's repo-server (started for the run,
 * with its Redis); ours runs git itself. Only the controller process is measured on either side.
 */
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { resources } from "../../src/kube/index.js";
import { createSettings, startRepoServer, type RepoServer } from "../../test/argocd/support/argocd.js";
import { freePort } from "../../test/cluster/control-plane.js";
import { stopProcess, type Managed } from "../../test/cluster/processes.js";
import { serveGitHttp, type GitHttpServer } from "../../test/integration/support/git-http.js";
import { commit, git, makeRepo, TempDirs } from "../../test/integration/support/git-repos.js";
import { startSide, type Side } from "./controllers.js";
import { argoRequests, procSample, requestDelta, watchApps, type ProcSample } from "./measure.js";
import { gitAppSet, githubPush, numbered } from "./objects.js";
import { allUpToDate, dropNamespace, freshNamespace, type BenchEnv, type Measured } from "./scenarios.js";

/** Directories of the repository at the start. */
export const GIT_DIRECTORIES = 100;
const SECRET = "side-by-side";

/** The commit stream: how many commits, how far apart. */
export interface Stream {
  readonly commits: number;
  readonly intervalMs: number;
}

/** What the Git runs share: the Git server (and its repositories' root) and Argo CD's repo-server. */
export interface GitBench {
  readonly server: GitHttpServer;
  readonly root: string;
  readonly repoServer: RepoServer;
  /** The repo-server's process id. */
  readonly repoServerPid: number;
  stop(): Promise<void>;
}

/** Starts the Git server and Argo CD's repo-server (with its Redis) for the Git runs. */
export async function startGitBench(env: BenchEnv): Promise<GitBench> {
  const root = mkdtempSync(join(tmpdir(), "appset-bench-git-"));
  const server = await serveGitHttp(root);
  const procs: Managed[] = [];
  const repoServer = await startRepoServer(mkdtempSync(join(env.settings.dataDir, "repo-server-")), env.settings.kubeconfigPath, procs);
  const repoServerPid = procs.find((p) => p.name === "repo-server")?.pid;
  if (repoServerPid === undefined) throw new Error("the repo-server did not start");
  return {
    server,
    root,
    repoServer,
    repoServerPid,
    stop: async () => {
      for (const p of procs.reverse()) await stopProcess(p);
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A signed GitHub push event for `url` at commit `sha`, sent to the webhook on `port`. */
async function push(port: number, url: string, sha: string): Promise<void> {
  const body = Buffer.from(JSON.stringify(githubPush(url, sha)));
  const sign = (alg: "sha1" | "sha256"): string => `${alg}=${createHmac(alg, SECRET).update(body).digest("hex")}`;
  const res = await fetch(`http://127.0.0.1:${String(port)}/api/webhook`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "push",
      "x-github-delivery": sha,
      "x-hub-signature": sign("sha1"),
      "x-hub-signature-256": sign("sha256"),
    },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  if (res.status >= 300) throw new Error(`webhook: HTTP ${String(res.status)}: ${await res.text()}`);
}

/** CPU so far of the Git work: Argo CD's repo-server (with its children), or our controller's git children. */
function gitCpu(side: Side, bench: GitBench, controller: ProcSample): number {
  if (side === "ours") return controller.childCpuSeconds;
  const r = procSample(bench.repoServerPid);
  return r.cpuSeconds + r.childCpuSeconds;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

/**
 * One Git run of `side`: converge on the repository's 100 directories, then the commit stream.
 * `seconds` is the median time from a push to its new Application; the writes, reads, CPU and
 * Git requests are those of the stream.
 */
export async function gitStream(env: BenchEnv, bench: GitBench, side: Side, stream: Stream): Promise<Measured> {
  const ns = await freshNamespace(env, `git-${side}`);
  await createSettings(env.client, ns);
  await env.client.patch(
    resources.Secrets,
    { namespace: ns, name: "argocd-secret" },
    { type: "merge", body: { stringData: { "webhook.github.secret": SECRET } } },
  );
  const temp = new TempDirs();
  const work = makeRepo(
    temp,
    Object.fromEntries(
      Array.from({ length: GIT_DIRECTORIES }, (_, i) => [`apps/${numbered("d", i)}/kustomization.yaml`, "resources: []\n"]),
    ),
  );
  const bare = join(bench.root, `${ns}.git`);
  git(bench.root, "clone", "-q", "--bare", work, bare);
  const url = `${bench.server.url}/${ns}.git`;
  const webhookPort = await freePort();
  const running = await startSide(
    side,
    ns,
    env.settings,
    side === "argo" ? { repoServer: bench.repoServer, webhookPort } : { webhookPort },
  );
  try {
    const watch = await watchApps(env.client, ns);
    const t0 = performance.now();
    await env.client.create(resources.ApplicationSets, gitAppSet(ns, url));
    await watch.added(GIT_DIRECTORIES, 120_000);
    const { at: tConverged } = await allUpToDate(env, ns, 1, 120_000);
    await sleep(5_000);
    const start = procSample(running.pid);
    const gitStart = gitCpu(side, bench, start);
    const before = await argoRequests(env.server, env.token);
    const gitBefore = bench.server.requests.length;
    const latencies: number[] = [];
    for (let k = 0; k < stream.commits; k++) {
      const next = performance.now() + stream.intervalMs;
      const sha = commit(work, { [`apps/${numbered("n", k)}/kustomization.yaml`]: "resources: []\n" }, `add n-${String(k)}`);
      git(work, "push", "-q", bare, "main");
      const tPush = performance.now();
      await push(webhookPort, url, sha);
      latencies.push(((await watch.added(GIT_DIRECTORIES + k + 1, 120_000)) - tPush) / 1000);
      await sleep(Math.max(0, next - performance.now()));
    }
    const end = procSample(running.pid);
    const gitEnd = gitCpu(side, bench, end);
    const d = requestDelta(before, await argoRequests(env.server, env.token));
    watch.stop();
    return {
      seconds: median(latencies),
      statusSeconds: (tConverged - t0) / 1000,
      writes: d.writes,
      reads: d.reads,
      gitRequests: bench.server.requests.length - gitBefore,
      startRssMiB: start.rssMiB,
      hwmMiB: end.hwmMiB,
      settledRssMiB: end.rssMiB,
      cpuSeconds: end.cpuSeconds - start.cpuSeconds,
      gitCpuSeconds: gitEnd - gitStart,
    };
  } finally {
    await running.stop();
    await dropNamespace(env, ns);
    temp.cleanup();
  }
}
