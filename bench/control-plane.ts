/**
 * Benchmark of the local control plane: warm start time (to a Ready node with CRDs installed) over a
 * few runs, and the resident memory of its processes once idle.
 *   npx tsx bench/control-plane.ts [runs]
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startControlPlane } from "../test/cluster/control-plane.js";

/** Resident set size (KiB) of every process whose process group is one of `pgids`. */
function rssKiB(pgids: Set<number>): Map<string, number> {
  const byName = new Map<string, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(join("/proc", entry, "stat"), "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pgid = Number(fields[2]);
      if (!pgids.has(pgid)) continue;
      const status = readFileSync(join("/proc", entry, "status"), "utf8");
      const name = /^Name:\s+(\S+)/m.exec(status)?.[1] ?? entry;
      const rss = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      byName.set(name, (byName.get(name) ?? 0) + rss);
    } catch {
      // the process ended while we read it
    }
  }
  return byName;
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 3);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const cp = await startControlPlane();
    times.push(performance.now() - t0);
    console.log(
      `run ${i + 1}: ${Object.entries(cp.timings)
        .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
        .join(", ")}`,
    );
    if (i === runs - 1) {
      await new Promise((r) => setTimeout(r, 10_000));
      const pgids = new Set(readFileSync(join(cp.dataDir, "pgids"), "utf8").trim().split("\n").map(Number));
      const rss = rssKiB(pgids);
      let total = 0;
      for (const [name, kib] of [...rss].sort()) {
        total += kib;
        console.log(`rss ${name.padEnd(24)} ${(kib / 1024).toFixed(0)} MiB`);
      }
      console.log(`rss total                    ${(total / 1024).toFixed(0)} MiB (10 s after ready)`);
    }
    await cp.stop();
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `warm start (ready node, CRDs installed): ${times.map((t) => (t / 1000).toFixed(1)).join(" s, ")} s; median ${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(1)} s`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
