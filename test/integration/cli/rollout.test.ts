import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { RolloutRun, RolloutRunStatus } from "../../../src/api/rollout-run.js";
import { run as runCli } from "../../../src/cli/run.js";
import { resources, type KubeApiClient } from "../../../src/kube/index.js";
import { REPO_ROOT } from "../../unit/deploy/kustomize.js";
import { cliPlane, type CliRun } from "./support/cli-plane.js";

// `appset rollout status|history|pause|approve|...` through the CLI entry against a real apiserver
// with the RolloutRun CRD of deploy/rollout-crds installed; the status is written through the status
// subresource as the controller writes it. The screens of docs/cli.md come from these commands.

const NS = "argocd";
const plane = cliPlane({ crdDir: join(REPO_ROOT, "deploy", "rollout-crds") });
let client: KubeApiClient;
/** A kubeconfig whose user entry is named differently from the apiserver's name of the caller. */
let kubeconfig: string;

beforeAll(async () => {
  client = plane.client();
  await client.create(resources.Namespaces, { metadata: { name: NS } });
  kubeconfig = join(plane.plane().dataDir, "rollout-kubeconfig");
  writeFileSync(kubeconfig, readFileSync(plane.plane().kubeconfigPath, "utf8").replace(/\badmin\b/g, "kubeconfig-user"));
}, 180_000);

const appset = (...args: string[]): Promise<CliRun> => plane.appset(["rollout", ...args, "-n", NS], kubeconfig);

async function createRun(appSet: string, name: string, status: RolloutRunStatus): Promise<void> {
  await client.create(resources.RolloutRuns, {
    metadata: { name, namespace: NS, labels: { "progressivesync.appset.dev/application-set": appSet } },
    spec: { applicationSet: appSet },
  });
  await writeStatus(name, status);
}

async function writeStatus(name: string, status: RolloutRunStatus): Promise<void> {
  await client.patchStatus(resources.RolloutRuns, { namespace: NS, name }, { type: "merge", body: { status } });
}

const read = (name: string): Promise<RolloutRun> => client.get<RolloutRun>(resources.RolloutRuns, { namespace: NS, name });

const running: RolloutRunStatus = {
  phase: "Running",
  currentStep: 2,
  startedAt: "2026-12-06T10:00:00Z",
  steps: [
    { step: 1, phase: "Completed", counts: { total: 1, ready: 1, failed: 0, pending: 0 }, endedAt: "2026-12-06T10:03:00Z" },
    {
      step: 2,
      phase: "Progressing",
      counts: { total: 2, ready: 1, failed: 0, pending: 1 },
      message: "prod-eu: OutOfSync at 3f2a1c9, wants 9b8c7d6, last reconciled 12 s ago",
    },
  ],
};

/** Resolves once `cond` holds, polling every 100 ms for at most 20 s. */
async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Starts `appset rollout status APPSET --watch` and returns its result and what it printed so far. */
function watch(appSet: string, timeout: string) {
  let out = "";
  let err = "";
  const done = runCli(
    ["rollout", "status", appSet, "--watch", "--timeout", timeout, "-n", NS, "--kubeconfig", kubeconfig],
    (s) => (out += s),
    (s) => (err += s),
  );
  return { done, out: () => out, err: () => err };
}

describe("appset rollout on a real apiserver (docs/cli.md)", () => {
  it("shows the newest run's steps, progress and why a step waits", async () => {
    await createRun("status-app", "status-app-old", { ...running, phase: "Completed", startedAt: "2026-12-05T10:00:00Z" });
    await createRun("status-app", "status-app-new", running);
    const res = await appset("status", "status-app");
    expect(res).toMatchObject({ code: 0, err: "" });
    expect(res.out).toContain("ApplicationSet: status-app (namespace argocd)\nRun:            status-app-new\nPhase:          Running\n");
    expect(res.out).toMatch(
      / {2}Step 2 {2}Progressing {6}.*1\/2\n {6}prod-eu: OutOfSync at 3f2a1c9, wants 9b8c7d6, last reconciled 12 s ago\n/,
    );
    const json = await appset("status", "status-app", "-o", "json");
    expect((JSON.parse(json.out) as RolloutRun).metadata.name).toBe("status-app-new");
    expect(await appset("status", "missing-app")).toMatchObject({
      code: 3,
      err: expect.stringContaining("no RolloutRun of ApplicationSet missing-app"),
    });
  });

  it("appends pause and approve requests signed with the apiserver's name of the caller", async () => {
    await createRun("control-app", "control-app-1", running);
    const paused = await appset("pause", "control-app");
    expect(paused).toMatchObject({ code: 0, err: "" });
    expect(paused.out).toMatch(/^Sent pause to RolloutRun control-app-1 \(namespace argocd\) as request #0: /);
    const approved = await appset("approve", "control-app", "--step", "2");
    expect(approved).toMatchObject({ code: 0, err: "" });
    const requests = (await read("control-app-1")).spec.requests ?? [];
    expect(requests.map((r) => [r.action, r.step, r.by])).toEqual([
      ["pause", undefined, "admin"],
      ["approve", 2, "admin"],
    ]);
    for (const r of requests) expect(r.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it("lands two requests sent at once: the one that loses the race re-reads and sends again", async () => {
    await createRun("race-app", "race-app-1", running);
    const results = await Promise.all([appset("pause", "race-app"), appset("resume", "race-app"), appset("promote", "race-app")]);
    expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
    const actions = ((await read("race-app-1")).spec.requests ?? []).map((r) => r.action).sort();
    expect(actions).toEqual(["pause", "promote", "resume"]);
  });

  it("refuses a request to a completed run", async () => {
    await createRun("done-app", "done-app-1", { ...running, phase: "Completed", endedAt: "2026-12-06T10:30:00Z" });
    const res = await appset("abort", "done-app");
    expect(res).toMatchObject({ code: 3, out: "" });
    expect(res.err).toContain("RolloutRun done-app-1 is Completed: it takes no more requests");
    expect((await read("done-app-1")).spec.requests).toBeUndefined();
  });

  it.each([
    ["Completed", 0],
    ["Halted", 1],
  ] as const)("--watch exits when the run moves to %s, with code %i", async (phase, code) => {
    const app = `watch-${phase.toLowerCase()}`;
    await createRun(app, `${app}-1`, running);
    const w = watch(app, "30s");
    await until("the first screen", () => w.out().includes("Phase:          Running"));
    await writeStatus(`${app}-1`, { phase: "Paused" });
    await until("the paused screen", () => w.out().includes("Phase:          Paused"));
    await writeStatus(`${app}-1`, { phase, ...(phase === "Halted" ? { haltReason: "ProgressDeadlineExceeded" } : {}) });
    expect(await w.done).toBe(code);
    expect(w.out()).toContain(`Phase:          ${phase}`);
  });

  it("--watch exits 2 when --timeout passes first", async () => {
    await createRun("slow-app", "slow-app-1", running);
    const w = watch("slow-app", "2s");
    expect(await w.done).toBe(2);
    expect(w.err()).toContain("appset rollout status: timed out after 2s: RolloutRun slow-app-1 is still Running");
  });

  it("lists the history newest first", async () => {
    await createRun("hist-app", "hist-app-b", {
      phase: "Halted",
      haltReason: "FailureBudgetExceeded",
      startedAt: "2026-12-06T09:00:00Z",
      endedAt: "2026-12-06T09:20:00Z",
      rollback: { at: "2026-12-06T09:20:01Z" },
    });
    await createRun("hist-app", "hist-app-a", { phase: "Completed", startedAt: "2026-12-06T08:00:00Z", endedAt: "2026-12-06T08:30:00Z" });
    await createRun("hist-app", "hist-app-c", running);
    const res = await appset("history", "hist-app");
    expect(res).toMatchObject({ code: 0, err: "" });
    const rows = res.out.trimEnd().split("\n");
    expect(rows.map((r) => r.split(/\s+/)[0])).toEqual(["RUN", "hist-app-c", "hist-app-b", "hist-app-a"]);
    expect(rows[2]).toMatch(/Halted +FailureBudgetExceeded +2026-12-06T09:00:00Z +2026-12-06T09:20:00Z +20m0s +0\/0 +yes$/);
  });
});
