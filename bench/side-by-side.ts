/**
 * Side-by-side benchmark: Argo CD's ApplicationSet controller (the reference binary of the
 * beside-Argo-CD harness, `APPSET_ARGOCD_HOME`) and ours (compiled, as the image runs it), one after
 * the other on one local control plane with Argo CD's CRDs, at equal settings. Runs alternate the
 * order of the two. Prints, per scenario and size, both controllers' times, writes and reads of
 * `argoproj.io` the apiserver served, peak and settled memory (`VmHWM`, `VmRSS`) and CPU, the
 * floor, and the ratios (ours / Argo CD's, ours / floor).
 *
 *   npx tsx bench/side-by-side.ts [--sizes 1000,5000] [--runs 2] [--scenarios fanout,many,single,clusters,idle]
 *     [--idle-seconds 600] [--git-commits 4] [--git-interval 30] [--updates 1] [--qps 10000] [--burst 20000]
 *     [--sides argo,ours] [--audit]
 *
 * - fanout: one List ApplicationSet of N Applications; the floor is the same N creates issued directly,
 *   `--updates` at a time (1: one after the other), from this process, timed by the same watch and
 *   measured in each run before its controllers;
 * - many: N/100 List ApplicationSets of 100 each;
 * - single: N List ApplicationSets of one Application each (the shape of most large installs);
 * - clusters: 1,000 Cluster ApplicationSets over 200 cluster Secrets; one Secret's label changes;
 * - git: a Git directories generator over 100 directories served over HTTP, then `--git-commits`
 *   commits `--git-interval` seconds apart, each adding a directory and announced by a GitHub push
 *   webhook (Argo CD's repo-server does its Git work);
 * - idle: both controllers, converged on the largest fan-out, left alone for `--idle-seconds`.
 *
 * `--qps 50 --burst 100` runs at Argo CD's default client limit (where both meet the limiter's floor).
 * `--audit` has the apiserver log every `argoproj.io` request and prints them counted by namespace,
 * client, verb, resource and response code.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeApiClient } from "../src/kube/index.js";
import { argocdCrdDir } from "../test/argocd/support/argocd.js";
import { startControlPlane } from "../test/cluster/control-plane.js";
import { buildOurs, type Side } from "./side-by-side/controllers.js";
import { auditFlags, printAudit } from "./side-by-side/audit.js";
import { argoRequests, procSample, requestDelta } from "./side-by-side/measure.js";
import { printSummary, type Row } from "./side-by-side/report.js";
import { GIT_DIRECTORIES, gitStream, startGitBench } from "./side-by-side/git-stream.js";
import { clusterChange, dropNamespace, fanOut, floor, type BenchEnv, type Kept } from "./side-by-side/scenarios.js";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,5000" },
    runs: { type: "string", default: "2" },
    scenarios: { type: "string", default: "fanout,many,single,clusters,git,idle" },
    "idle-seconds": { type: "string", default: "600" },
    "git-commits": { type: "string", default: "4" },
    "git-interval": { type: "string", default: "30" },
    sides: { type: "string", default: "argo,ours" },
    updates: { type: "string", default: "1" },
    qps: { type: "string", default: "10000" },
    burst: { type: "string", default: "20000" },
    audit: { type: "boolean", default: false },
  },
});
const sizes = values.sizes.split(",").map(Number);
const runs = Number(values.runs);
const scenarios = new Set(values.scenarios.split(","));
const updates = Number(values.updates);

const sides = new Set(values.sides.split(","));

/** The order of the controllers in run `i`: alternated (only those `--sides` names). */
const order = (i: number): Side[] => (i % 2 === 0 ? ["argo", "ours"] : ["ours", "argo"]).filter((s): s is Side => sides.has(s));

async function fanOuts(env: BenchEnv, rows: Row[]): Promise<void> {
  for (const size of sizes) {
    for (let i = 0; i < runs; i++) {
      // Each run's floor beside its controllers' runs: the control plane slows as etcd's history grows
      // over a session, so floors measured first would flatter the floor against the later runs.
      if (scenarios.has("fanout")) {
        rows.push({ scenario: "floor", size, side: "floor", ...(await floor(env, size, updates)) });
        console.log(`.. floor ${String(size)} run ${String(i + 1)}: ${rows.at(-1)!.seconds.toFixed(1)} s`);
      }
      for (const side of order(i)) {
        if (scenarios.has("fanout")) rows.push({ scenario: "fanout", size, side, ...(await fanOut(env, side, size, size)) });
        if (scenarios.has("many")) rows.push({ scenario: "many", size, side, ...(await fanOut(env, side, size, 100)) });
        if (scenarios.has("single")) rows.push({ scenario: "single", size, side, ...(await fanOut(env, side, size, 1)) });
        const last = rows.at(-1);
        if (last !== undefined)
          console.log(`.. ${last.scenario} ${String(size)} ${side} run ${String(i + 1)}: ${last.seconds.toFixed(1)} s`);
      }
    }
  }
}

/** Both controllers converge on the largest fan-out (one more run each), then idle side by side. */
async function idle(env: BenchEnv, rows: Row[], kept: Kept[]): Promise<void> {
  const size = Math.max(...sizes);
  for (const side of order(runs))
    rows.push({ scenario: "fanout", size, side, ...(await fanOut(env, side, size, size, (k) => kept.push(k))) });
  const seconds = Number(values["idle-seconds"]);
  const before = kept.map((k) => procSample(k.running.pid));
  const req = await argoRequests(env.server, env.token);
  await sleep(seconds * 1000);
  const d = requestDelta(req, await argoRequests(env.server, env.token));
  kept.forEach((k, i) => {
    const after = procSample(k.running.pid);
    rows.push({
      scenario: `idle ${String(seconds)} s`,
      size,
      side: k.running.side,
      seconds,
      // Both controllers idle at once: the apiserver's counters are their sum.
      writes: d.writes,
      reads: d.reads,
      settledRssMiB: after.rssMiB,
      cpuSeconds: after.cpuSeconds - before[i]!.cpuSeconds,
    });
  });
  for (const k of kept.splice(0)) {
    await k.running.stop();
    await dropNamespace(env, k.namespace);
  }
}

/** The Git runs, alternated, with one Git server and one Argo CD repo-server for all of them. */
async function gitRuns(env: BenchEnv, rows: Row[]): Promise<void> {
  const bench = await startGitBench(env);
  const stream = { commits: Number(values["git-commits"]), intervalMs: Number(values["git-interval"]) * 1000 };
  try {
    for (let i = 0; i < runs; i++)
      for (const side of order(i)) {
        rows.push({ scenario: "git push → Application", size: GIT_DIRECTORIES, side, ...(await gitStream(env, bench, side, stream)) });
        console.log(`.. git ${side} run ${String(i + 1)}: ${rows.at(-1)!.seconds.toFixed(1)} s`);
      }
  } finally {
    await bench.stop();
  }
}

async function main(): Promise<void> {
  buildOurs();
  const dataDir = mkdtempSync(join(tmpdir(), "appset-bench-"));
  const audit = values.audit ? auditFlags(dataDir) : undefined;
  // The garbage collector reads every Application of a deleted namespace at kube-controller-manager's
  // client limit (20 QPS by default: 1,000 s after a 20,000 fan-out); the runs wait for it.
  const cp = await startControlPlane({
    crdDir: argocdCrdDir(),
    controllerManagerFlags: ["--kube-api-qps=1000", "--kube-api-burst=2000"],
    ...(audit === undefined ? {} : { apiServerFlags: audit.flags }),
  });
  const client = KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath });
  const env: BenchEnv = {
    client,
    server: cp.server,
    token: cp.token,
    settings: {
      kubeconfigPath: cp.kubeconfigPath,
      dataDir,
      concurrentApplicationUpdates: updates,
      qps: Number(values.qps),
      burst: Number(values.burst),
    },
  };
  const rows: Row[] = [];
  const kept: Kept[] = [];
  try {
    await fanOuts(env, rows);
    if (scenarios.has("clusters"))
      for (let i = 0; i < runs; i++)
        for (const side of order(i)) rows.push({ scenario: "clusters", size: 1000, side, ...(await clusterChange(env, side)) });
    if (scenarios.has("git")) await gitRuns(env, rows);
    if (scenarios.has("idle")) await idle(env, rows, kept);
  } finally {
    for (const k of kept) await k.running.stop().catch(() => undefined);
    await client.transport.close();
    await cp.stop();
  }
  console.log(
    `settings: --concurrent-application-updates ${String(updates)}, client QPS ${values.qps} / burst ${values.burst}; logs in ${env.settings.dataDir}`,
  );
  printSummary(rows);
  if (audit !== undefined) printAudit(audit.logPath);
}

await main();
