/**
 * `appset controller` as a process on the real control plane: it serves health, readiness and
 * metrics; SIGTERM in the middle of a reconcile stops it cleanly (exit 0) and a restarted controller
 * finishes the work with every Application whole; with leader election only one of two processes
 * writes, and when the leader is killed the other takes over and writes only what is missing (the
 * writes are counted by a proxy in front of the apiserver, one per process).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { resources, type KubeApiClient } from "../../src/kube/index.js";
import { PROFILER_DISABLED } from "../../src/server/index.js";
import { applications, eventually, listAppSet, readAppSet, spawnController, type ControllerProcess } from "./support/controller.js";
import { CountingProxy } from "./support/proxy-counting.js";
import { e2eSuite } from "./support/suite.js";

const { client: suiteClient, procs: running, namespace } = e2eSuite();
let client: KubeApiClient;

beforeAll(() => {
  client = suiteClient();
});

function spawn(ns: string, extra: string[] = [], kubeconfigPath?: string): ControllerProcess {
  const p = spawnController(
    ["--namespace", ns, "--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", ...extra],
    "controller",
    kubeconfigPath,
  );
  running.push(p);
  return p;
}

const names = (n: number, prefix = "app"): string[] => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`);

describe("appset controller (process)", () => {
  it("serves health, readiness and metrics, and exits 0 on SIGTERM", async () => {
    const ns = await namespace("proc-probe");
    const p = spawn(ns);
    const start = await p.waitForLog("applicationset controller starting");
    await p.waitForLog("caches synced, starting workers");
    const probe = String(start["probe"]);
    const metrics = String(start["metrics"]);
    expect((await fetch(`${probe}/healthz`)).status).toBe(200);
    expect((await fetch(`${probe}/readyz`)).status).toBe(200);
    const text = await (await fetch(`${metrics}/metrics`)).text();
    expect(text).toContain("controller_runtime_reconcile_total");
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
  });

  it("stamps its log lines with log.format.timestamp's Go layout and serves the profiler while its gate file says true", async () => {
    const ns = await namespace("proc-profiler");
    const dir = await mkdtemp(join(tmpdir(), "appset-gate-"));
    const gate = join(dir, "profiler.enabled");
    const env = { ...process.env, ARGOCD_ENABLE_PROFILER_FILE_PATH: gate, ARGOCD_LOG_FORMAT_TIMESTAMP: "Jan _2 15:04:05.000" };
    const p = spawnController(
      ["--namespace", ns, "--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
      "controller",
      undefined,
      env,
    );
    running.push(p);
    try {
      const start = await p.waitForLog("applicationset controller starting");
      const metrics = String(start["metrics"]);
      const before = await fetch(`${metrics}/debug/pprof/`);
      expect({ status: before.status, body: await before.text() }).toEqual({ status: 401, body: PROFILER_DISABLED });
      await writeFile(gate, "true");
      const after = await fetch(`${metrics}/debug/pprof/cmdline`);
      expect({ status: after.status, args: (await after.text()).split("\0").slice(-6, -4) }).toEqual({
        status: 200,
        args: ["--namespace", ns],
      });
      expect(String(start["time"])).toMatch(/^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d\.\d{3}$/);
      p.child.kill("SIGTERM");
      expect(await p.exited).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("stops cleanly on SIGTERM mid-reconcile, and a restarted controller completes every Application", async () => {
    const ns = await namespace("proc-sigterm");
    const want = names(600);
    const p = spawn(ns, ["--concurrent-application-updates", "1"]);
    await p.waitForLog("caches synced, starting workers");
    await client.create(resources.ApplicationSets, listAppSet("big", ns, want));
    await eventually("some Applications", async () => ((await applications(client, ns)).size >= 10 ? true : undefined));
    const termAt = performance.now();
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
    // Running reconciles get a 10 s grace period, then their writes are abandoned.
    expect(performance.now() - termAt).toBeLessThan(15_000);
    const partial = (await applications(client, ns)).size;
    expect(partial).toBeGreaterThanOrEqual(10);

    const q = spawn(ns, ["--concurrent-application-updates", "8"]);
    await q.waitForLog("caches synced, starting workers");
    await eventually("every Application", async () => ((await applications(client, ns)).size === want.length ? true : undefined), 110_000);
    const apps = await applications(client, ns);
    for (const app of apps.values()) {
      expect(app.metadata.ownerReferences?.[0]?.name).toBe("big");
      expect(app.spec.destination.namespace).toBe(app.metadata.name);
    }
    q.child.kill("SIGTERM");
    expect(await q.exited).toBe(0);
  });

  it("with leader election lets only one of two processes write, and after the leader is SIGKILLed the other writes only what is missing", async () => {
    const ns = await namespace("proc-leader");
    const proxies = await Promise.all([CountingProxy.start(inject("kubeconfigPath")), CountingProxy.start(inject("kubeconfigPath"))]);
    try {
      const [pa, pb] = proxies;
      const a = spawn(ns, ["--enable-leader-election"], pa.kubeconfigPath);
      const b = spawn(ns, ["--enable-leader-election"], pb.kubeconfigPath);
      await client.create(resources.ApplicationSets, listAppSet("web", ns, ["one", "two"]));
      await eventually(
        "the first leader's status",
        async () => ((await readAppSet(client, ns, "web")).status?.resourcesCount === 2 ? true : undefined),
        90_000,
      );
      const leads = (p: ControllerProcess): boolean => p.logs.some((l) => l["msg"] === "caches synced, starting workers");
      expect([leads(a), leads(b)].filter(Boolean)).toHaveLength(1);
      const [leader, follower, leaderProxy, followerProxy] = leads(a) ? [a, b, pa, pb] : [b, a, pb, pa];
      expect(leaderProxy.writes("applications")).toEqual(["POST applications", "POST applications"]);
      expect(followerProxy.writes().filter((w) => !w.startsWith("PUT leases") && !w.startsWith("POST leases"))).toEqual([]);

      leader.child.kill("SIGKILL");
      await leader.exited;
      await client.patch(
        resources.ApplicationSets,
        { namespace: ns, name: "web" },
        { type: "merge", body: { spec: { generators: [{ list: { elements: [{ name: "one" }, { name: "two" }, { name: "three" }] } }] } } },
      );
      await follower.waitForLog("caches synced, starting workers", 60_000);
      await eventually(
        "the new leader's status",
        async () => ((await readAppSet(client, ns, "web")).status?.resourcesCount === 3 ? true : undefined),
        60_000,
      );
      expect(followerProxy.writes("applications")).toEqual(["POST applications"]);
      expect([...(await applications(client, ns)).keys()].sort()).toEqual(["one", "three", "two"]);
      expect(leaderProxy.writes("applications")).toEqual(["POST applications", "POST applications"]);
      follower.child.kill("SIGTERM");
      expect(await follower.exited).toBe(0);
    } finally {
      await Promise.all(proxies.map((p) => p.close()));
    }
  });
});
