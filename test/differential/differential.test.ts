/**
 * The differential suite: each case of the corpus under Argo CD's ApplicationSet controller and
 * under ours (support/run-case.ts), the observations compared (support/compare.ts) and held against
 * the documented deviations. `APPSET_DIFFERENTIAL` picks the cases: `subset` (default, the cases
 * marked `subset: true`), `all`, or a comma-separated list of names. With
 * `APPSET_DIFFERENTIAL_REPORT=FILE`, one JSON line per case goes to FILE (the full command's summary).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { parse } from "yaml";
import { KubeApiClient } from "../../src/kube/index.js";
import { logTail, startRepoServer, type RepoServer } from "../argocd/support/argocd.js";
import { startWatchdog, stopProcess, type Managed } from "../cluster/processes.js";
import { TempDirs } from "../integration/support/git-repos.js";
import { CASES_DIR, loadCases, type Case } from "./support/case.js";
import { caseProblems, reportVerdict, selectCases } from "./support/corpus.js";
import { Deviations, differences, verdict } from "./support/compare.js";
import { runCase, type SideResult } from "./support/run-case.js";

const cases = selectCases(loadCases(), process.env["APPSET_DIFFERENTIAL"] ?? "subset", true);
const deviations = Deviations.parse(parse(readFileSync(join(CASES_DIR, "..", "deviations.yaml"), "utf8")) ?? []);

/** What is compared of one side. */
function compared(c: Case, r: SideResult): Record<string, unknown> {
  return { obs: r.observations, ...(c.compareOrder ? { order: r.timeline } : {}) };
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
      reportVerdict(name, v, started);
      const problems = caseProblems(r, v, "controller", "test/differential/deviations.yaml");
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
