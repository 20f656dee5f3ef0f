/**
 * The differential suite: each case of the corpus under Argo CD's ApplicationSet controller and
 * under ours (support/run-case.ts), the observations compared (support/compare.ts) and held against
 * the documented deviations. `APPSET_DIFFERENTIAL` picks the cases: `subset` (default, the cases
 * marked `subset: true`), `all`, or a comma-separated list of names. With
 * `APPSET_DIFFERENTIAL_REPORT=FILE`, one JSON line per case goes to FILE (the full command's summary).
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { parse } from "yaml";
import { KubeApiClient } from "../../src/kube/index.js";
import { logTail, startRepoServer, type RepoServer } from "../argocd/support/argocd.js";
import { startWatchdog, stopProcess, type Managed } from "../cluster/processes.js";
import { TempDirs } from "../integration/support/git-repos.js";
import { CASES_DIR, loadCases, type Case } from "./support/case.js";
import { Deviations, differences, verdict, type Difference } from "./support/compare.js";
import { runCase, type SideResult } from "./support/run-case.js";

function selected(all: readonly Case[]): Case[] {
  const mode = process.env["APPSET_DIFFERENTIAL"] ?? "subset";
  if (mode === "all") return [...all];
  if (mode === "subset") return all.filter((c) => c.subset);
  const names = new Set(mode.split(",").map((s) => s.trim()));
  const cases = all.filter((c) => names.has(c.name));
  if (cases.length !== names.size)
    throw new Error(
      `APPSET_DIFFERENTIAL names cases that do not exist: ${[...names].filter((n) => !cases.some((c) => c.name === n)).join(", ")}`,
    );
  return cases;
}

const cases = selected(loadCases());
const deviations = Deviations.parse(parse(readFileSync(join(CASES_DIR, "..", "deviations.yaml"), "utf8")) ?? []);

/** What is compared of one side. */
function compared(c: Case, r: SideResult): Record<string, unknown> {
  return { obs: r.observations, ...(c.compareOrder ? { order: r.timeline } : {}) };
}

function show(d: Difference): string {
  return `  ${d.path}\n    argo: ${JSON.stringify(d.argo)}\n    ours: ${JSON.stringify(d.ours)}`;
}

let client: KubeApiClient;
let repoServer: RepoServer;
let dataDir: string;
const procs: Managed[] = [];
const temp = new TempDirs();

beforeAll(async () => {
  const kubeconfigPath = inject("kubeconfigPath");
  client = KubeApiClient.fromConfig({ kind: "file", path: kubeconfigPath });
  dataDir = mkdtempSync(join(tmpdir(), "appset-differential-"));
  startWatchdog(process.pid, dataDir);
  repoServer = await startRepoServer(dataDir, kubeconfigPath, procs);
});

afterAll(async () => {
  for (const p of procs.reverse()) await stopProcess(p);
  await client.transport.close();
  temp.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("differential: ours against Argo CD's ApplicationSet controller", () => {
  // Two cases at a time (one per core): each runs two controllers that mostly wait.
  it.concurrent.each(cases.map((c) => [c.name, c] as const))(
    "%s",
    async (name, c) => {
      const started = performance.now();
      const r = await runCase(c, client, { kubeconfigPath: inject("kubeconfigPath"), repoServer, dataDir }, temp);
      const v = verdict(name, differences(compared(c, r.argo) as never, compared(c, r.ours) as never), deviations);
      const report = process.env["APPSET_DIFFERENTIAL_REPORT"];
      if (report)
        appendFileSync(
          report,
          JSON.stringify({
            name,
            verdict: v.kind,
            ...(v.kind === "deviation" ? { ids: v.ids } : {}),
            seconds: Math.round((performance.now() - started) / 100) / 10,
          }) + "\n",
        );
      const problems: string[] = [];
      for (const side of ["argo", "ours"] as const) {
        if (r[side].crashed) problems.push(`${side}: the controller exited`);
        if (r[side].unsettled.length > 0) problems.push(`${side}: did not settle after step(s) ${r[side].unsettled.join(", ")}`);
      }
      if (v.kind === "different")
        problems.push(`differences not documented in test/differential/deviations.yaml:\n${v.unexplained.map(show).join("\n")}`);
      if (problems.length > 0) {
        const logs = ["argo", "ours"].map((s) => logTail(join(dataDir, `${s}-${r.namespaces[s as "argo" | "ours"]}.log`), 15)).join("");
        throw new Error(`${description(c)}\n${problems.join("\n")}\n${logs}`);
      }
    },
    600_000,
  );
});

function description(c: Case): string {
  return `case ${c.name}: ${c.description}`;
}
