/**
 * Sharding benchmark (docs/sharding.md#benchmark): the fan-out of N small ApplicationSets (a List
 * generator of one Application each) with 1, 2 and 3 replicas of ours (compiled, as the image runs it)
 * with `--enable-sharding`, on one local control plane, a fresh namespace per run. Prints, per replica
 * count and run, the time from the first create until every Application exists and its ratio to one
 * replica, each replica's CPU, their sum, the largest peak memory (`VmHWM`), and how many
 * ApplicationSets each replica planned.
 *
 *   npx tsx bench/sharding.ts [--sets 1000] [--replicas 1,2,3] [--runs 1]
 *
 * Every replica runs on the same machine against the same apiserver: more replicas cannot add CPU
 * or apiserver capacity here. What this shows is the overhead of sharding and whether the work is
 * spread, not the scale-out of replicas on separate nodes.
 */
import pLimit from "p-limit";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeApiClient, resources } from "../src/kube/index.js";
import { startControlPlane } from "../test/cluster/control-plane.js";
import { buildOurs, startSide, type RunningSide } from "./side-by-side/controllers.js";
import { procSample, watchApps } from "./side-by-side/measure.js";
import { listAppSet, numbered } from "./side-by-side/objects.js";
import { allUpToDate, dropNamespace, freshNamespace, type BenchEnv } from "./side-by-side/scenarios.js";

const { values } = parseArgs({
  options: {
    sets: { type: "string", default: "1000" },
    replicas: { type: "string", default: "1,2,3" },
    runs: { type: "string", default: "1" },
  },
});
const sets = Number(values.sets);
const replicaCounts = values.replicas.split(",").map(Number);
const runs = Number(values.runs);

/** Client limits of every replica (the side-by-side benchmark's defaults) and updates at a time. */
const QPS = 10_000;
const BURST = 20_000;
const UPDATES = 1;
/** ApplicationSet creates in flight at once; the client's own limits pace them. */
const CREATES_IN_FLIGHT = 32;
/** A newcomer counts itself live one renew deadline (10 s) after its Lease appears; the rest is slack. */
const MEMBERSHIP_TIMEOUT_MS = 90_000;

const budgetMs = (apps: number): number => 120_000 + apps * 60;

/** One run's figures. */
interface Run {
  readonly replicas: number;
  readonly seconds: number;
  /** Per replica: CPU from the full membership to every ApplicationSet ResourcesUpToDate, seconds. */
  readonly cpuSeconds: readonly number[];
  /** Per replica: `VmHWM` then, MiB. */
  readonly hwmMiB: readonly number[];
  /** Per replica: the distinct ApplicationSets it planned. */
  readonly planned: readonly number[];
}

type LogLine = Record<string, unknown>;

function logLines(path: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {
      // a line cut short
    }
  }
  return lines;
}

/** Whether the replica has logged the group's full membership with itself live. */
const sawMembers = (r: RunningSide, count: number): boolean =>
  logLines(r.logPath).some(
    (l) =>
      l["msg"] === "shard group members changed" && (l["members"] as unknown[] | undefined)?.length === count && l["selfLive"] === true,
  );

/** The distinct ApplicationSets of `ns` a replica planned (its debug "planned" lines). */
function plannedBy(r: RunningSide, ns: string): number {
  const names = new Set<string>();
  for (const l of logLines(r.logPath)) {
    if (l["msg"] !== "planned") continue;
    const set = l["applicationset"] as { Namespace?: string; Name?: string } | undefined;
    if (set?.Name !== undefined && (set.Namespace ?? ns) === ns) names.add(set.Name);
  }
  return names.size;
}

async function fanOut(env: BenchEnv, replicas: number): Promise<Run> {
  const ns = await freshNamespace(env, `shard-${String(replicas)}`);
  const running: RunningSide[] = [];
  try {
    // One at a time (each resolves once its workers run): all have joined before the wait below.
    for (let i = 0; i < replicas; i++)
      running.push(
        await startSide("ours", ns, env.settings, {
          name: `ours-${ns}-r${String(i)}`,
          args: ["--enable-sharding"],
          // The "planned" lines that say which replica planned what are debug lines.
          logLevel: "debug",
        }),
      );
    const deadline = performance.now() + MEMBERSHIP_TIMEOUT_MS;
    while (!running.every((r) => sawMembers(r, replicas))) {
      if (performance.now() > deadline)
        throw new Error(
          `the ${String(replicas)} replicas did not all see ${String(replicas)} live members within ${String(MEMBERSHIP_TIMEOUT_MS)} ms`,
        );
      await sleep(200);
    }
    const start = running.map((r) => procSample(r.pid));
    const objects = Array.from({ length: sets }, (_, j) => listAppSet(numbered("s", j), ns, "a", j, j + 1));
    const watch = await watchApps(env.client, ns);
    const limit = pLimit(CREATES_IN_FLIGHT);
    const t0 = performance.now();
    await Promise.all(objects.map((o) => limit(() => env.client.create(resources.ApplicationSets, o))));
    const tApps = await watch.added(sets, budgetMs(sets));
    watch.stop();
    // CPU and memory once the fan-out's work is done: the Applications and every ApplicationSet's status.
    await allUpToDate(env, ns, sets, budgetMs(sets));
    const end = running.map((r) => procSample(r.pid));
    return {
      replicas,
      seconds: (tApps - t0) / 1000,
      cpuSeconds: end.map((e, i) => e.cpuSeconds - start[i]!.cpuSeconds),
      hwmMiB: end.map((e) => e.hwmMiB),
      planned: running.map((r) => plannedBy(r, ns)),
    };
  } finally {
    for (const r of running) await r.stop().catch(() => undefined);
    await dropNamespace(env, ns);
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function printTable(rows: readonly Run[]): void {
  const ones = rows.filter((r) => r.replicas === 1).map((r) => r.seconds);
  const base = ones.length > 0 ? median(ones) : undefined;
  console.log(`\n### ${String(sets)} ApplicationSets of one Application each, sharded replicas on one machine`);
  console.log(
    "| replicas | time (s) | time / 1 replica | CPU per replica (s) | CPU sum (s) | VmHWM max (MiB) | ApplicationSets planned per replica |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const r of rows) {
    const ratio = base !== undefined && base > 0 ? (r.seconds / base).toFixed(2) : "—";
    const cpuSum = r.cpuSeconds.reduce((a, b) => a + b, 0);
    console.log(
      `| ${String(r.replicas)} | ${r.seconds.toFixed(1)} | ${ratio} | ${r.cpuSeconds.map((c) => c.toFixed(2)).join(" / ")} | ${cpuSum.toFixed(2)} | ${Math.max(...r.hwmMiB).toFixed(0)} | ${r.planned.map(String).join(" / ")} |`,
    );
  }
}

async function main(): Promise<void> {
  buildOurs();
  const dataDir = mkdtempSync(join(tmpdir(), "appset-bench-"));
  const cp = await startControlPlane({ controllerManagerFlags: ["--kube-api-qps=1000", "--kube-api-burst=2000"] });
  const client = KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath });
  const env: BenchEnv = {
    client,
    server: cp.server,
    token: cp.token,
    settings: { kubeconfigPath: cp.kubeconfigPath, dataDir, concurrentApplicationUpdates: UPDATES, qps: QPS, burst: BURST },
  };
  const rows: Run[] = [];
  try {
    for (let i = 0; i < runs; i++)
      for (const replicas of replicaCounts) {
        rows.push(await fanOut(env, replicas));
        console.log(`.. ${String(replicas)} replicas run ${String(i + 1)}: ${rows.at(-1)!.seconds.toFixed(1)} s`);
      }
  } finally {
    await client.transport.close();
    await cp.stop();
  }
  console.log(
    `settings: --enable-sharding, --concurrent-application-updates ${String(UPDATES)}, client QPS ${String(QPS)} / burst ${String(BURST)}, --loglevel debug; logs in ${dataDir}`,
  );
  printTable(rows);
}

await main();
