/**
 * The differential sync suite: each case of the corpus synced by Argo CD's application controller
 * and by our sync engine (support/run-case.ts), the observations compared (the ApplicationSet
 * suite's compare.ts) and held against the documented deviations (deviations.yaml).
 * `APPSET_DIFFERENTIAL` picks the cases as in the ApplicationSet suite: `subset` (default), `all`,
 * or a comma-separated list of names. With `APPSET_DIFFERENTIAL_REPORT=FILE`, one JSON line per
 * case goes to FILE; with `APPSET_DIFFERENTIAL_DUMP=DIR`, both sides' observations go to DIR/<case>.json.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { parse } from "yaml";
import { KubeApiClient } from "../../src/kube/index.js";
import { logTail, startRepoServer, type RepoServer } from "../argocd/support/argocd.js";
import { startWatchdog, stopProcess, type Managed } from "../cluster/processes.js";
import { Deviations, differences, verdict } from "../differential/support/compare.js";
import { caseProblems, reportVerdict, selectCases } from "../differential/support/corpus.js";
import type { Json } from "../differential/support/observe.js";
import { TempDirs } from "../integration/support/git-repos.js";
import { CASES_DIR, loadCases } from "./support/case.js";
import { runCase } from "./support/run-case.js";

// A list may name cases of either suite: this one runs its own.
const cases = selectCases(loadCases(), process.env["APPSET_DIFFERENTIAL"] ?? "subset", false);
const deviations = Deviations.parse(parse(readFileSync(join(CASES_DIR, "..", "deviations.yaml"), "utf8")) ?? []);

let client: KubeApiClient;
let repoServer: RepoServer;
let dataDir: string;
const procs: Managed[] = [];
const temp = new TempDirs();

beforeAll(async () => {
  if (cases.length === 0) return;
  const kubeconfigPath = inject("kubeconfigPath");
  client = KubeApiClient.fromConfig({ kind: "file", path: kubeconfigPath });
  dataDir = mkdtempSync(join(tmpdir(), "appset-differential-sync-"));
  startWatchdog(process.pid, dataDir);
  repoServer = await startRepoServer(dataDir, kubeconfigPath, procs);
});

afterAll(async () => {
  for (const p of procs.reverse()) await stopProcess(p);
  await client?.transport.close();
  temp.cleanup();
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

describe("differential: our sync engine against Argo CD's application controller", () => {
  it("documents deviations only of cases that exist", () => {
    const names = new Set(loadCases().map((c) => c.name));
    const unknown = deviations.flatMap((d) => d.cases.filter((n) => !names.has(n)).map((n) => `${d.id}: ${n}`));
    if (unknown.length > 0) throw new Error(`deviations.yaml lists cases that do not exist: ${unknown.join(", ")}`);
  });

  // Two cases at a time (one per core): each runs two engines that mostly wait.
  it.concurrent.each(cases.map((c) => [c.name, c] as const))(
    "%s",
    async (name, c) => {
      const started = performance.now();
      const r = await runCase(c, client, { kubeconfigPath: inject("kubeconfigPath"), repoServer, dataDir }, temp);
      const v = verdict(
        name,
        differences(r.argo.observations as unknown as Json, r.ours.observations as unknown as Json, "obs"),
        deviations,
      );
      const dump = process.env["APPSET_DIFFERENTIAL_DUMP"];
      if (dump)
        writeFileSync(join(dump, `${name}.json`), JSON.stringify({ argo: r.argo.observations, ours: r.ours.observations }, null, 1));
      reportVerdict(name, v, started, "sync");
      const problems = caseProblems(r, v, "engine", "test/differential-sync/deviations.yaml");
      if (problems.length > 0) {
        const logs = (["argo", "ours"] as const).map((s) => logTail(join(dataDir, `${s}-${r.namespaces[s]}.log`), 15)).join("");
        throw new Error(`case ${c.name}: ${c.description}\n${problems.join("\n")}\n${logs}`);
      }
    },
    900_000,
  );
});
