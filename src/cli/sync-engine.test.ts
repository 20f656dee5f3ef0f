import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { parseConfig, SYNC_ENGINE_SETTINGS, type Config } from "../config/index.js";
import type { GitReader } from "../git/index.js";
import { KubeApiClient } from "../kube/index.js";
import { SharedCache } from "../manager/index.js";
import { createMetricsRegistry, RestClientMetrics } from "../metrics/index.js";
import { capturedLogger } from "../../test/support/captured-logger.js";
import { ScriptedSource } from "../../test/support/scripted-informer.js";
import { gitService } from "./git.js";
import { kubeClientOptions } from "./kube.js";
import { buildSyncEngine, syncEngineCommand, syncEngineShardGroup, type SyncEngineDeps } from "./sync-engine.js";

describe("appset sync-engine", () => {
  const io = (): { out: string; err: string; io: Parameters<typeof syncEngineCommand>[1] } => {
    const r = { out: "", err: "", io: undefined as unknown as Parameters<typeof syncEngineCommand>[1] };
    r.io = { out: (s) => (r.out += s), err: (s) => (r.err += s), env: {}, onSignal: () => () => undefined };
    return r;
  };

  it("rejects an unknown flag with exit code 1 and says which", async () => {
    const r = io();
    expect(await syncEngineCommand(["--no-such-flag"], r.io)).toBe(1);
    expect(r.err).toContain("appset sync-engine:");
    expect(r.err).toContain("no-such-flag");
  });

  it("prints only the flags it reads under its own usage line for --help", async () => {
    const r = io();
    expect(await syncEngineCommand(["--help"], r.io)).toBe(0);
    expect(r.out.split("\n")[0]).toBe("Usage: appset sync-engine [flags]");
    const own = [
      "--application-namespaces",
      "--enable-leader-election",
      "--enable-sharding",
      "--shard-group",
      "--kubeconfig",
      "--probe-addr",
    ];
    for (const flag of [...own, "--helm-chart-max-bytes"]) expect(r.out).toContain(`${flag} `);
    for (const flag of ["--enable-sync-engine", "--policy", "--webhook-addr", "--concurrent-reconciliations", "--max-parameter-sets"])
      expect(r.out).not.toContain(`${flag} `);
    expect(r.out).toContain("The controller's other flags are accepted and ignored.");
    expect(r.out).not.toContain("appset controller");
  });

  it("accepts a controller flag it ignores, as a Deployment sharing the controller's arguments passes it", () => {
    expect(parseConfig(["--policy", "create-only", "--enable-sync-engine"], {}).kind).toBe("config");
  });
});

describe("the settings the sync engine's help lists", () => {
  it("hold every setting the engine and its Git service read", async () => {
    const read = new Set<string>();
    const deps = engineDeps();
    const config = new Proxy(deps.config, {
      get(target, key, receiver) {
        if (typeof key === "string") read.add(key);
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    buildSyncEngine({ ...deps, config });
    gitService({ config, env: {}, clock: deps.clock }, deps.credentials);
    kubeClientOptions(config);
    expect(read.size).toBeGreaterThan(5);
    expect([...read].filter((k) => !SYNC_ENGINE_SETTINGS.has(k as keyof Config))).toEqual([]);
    await deps.client.transport.close();
  });
});

/** What buildSyncEngine needs, at the default flags, with `extra` on top. */
function engineDeps(extra: Partial<SyncEngineDeps> = {}): SyncEngineDeps & { client: KubeApiClient } {
  const parsed = parseConfig([], {});
  if (parsed.kind !== "config") throw new Error("default flags refused");
  const clock = new FakeClock(0);
  return {
    config: parsed.config,
    env: {},
    logger: capturedLogger().logger,
    clock,
    client: KubeApiClient.fromOptions({ server: "https://apiserver.invalid:6443" }),
    namespace: "argocd",
    cache: new SharedCache({ source: new ScriptedSource(), clock }),
    git: {} as GitReader,
    credentials: () => Promise.resolve(undefined),
    clusters: {
      resolve: () => ({ ok: true as const, server: "https://kubernetes.default.svc", cluster: undefined }),
      waitForSync: () => Promise.resolve(),
      clusters: () => [],
    },
    ...extra,
  };
}

describe("buildSyncEngine", () => {
  it("registers client-go's rest_client_requests_total (for remote clusters' clients) beside the application metrics", async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    const deps = engineDeps({ registry });
    buildSyncEngine(deps);
    // In the controller process the controller's client counts on the same registry: one counter.
    new RestClientMetrics(registry).observe({ code: "200", host: "apiserver.invalid:6443", method: "GET" });
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === "rest_client_requests_total");
    expect(metric).toMatchObject({ type: "counter", help: "Number of HTTP requests, partitioned by status code, method, and host." });
    expect(metric?.values).toEqual([{ value: 1, labels: { code: "200", host: "apiserver.invalid:6443", method: "GET" } }]);
    expect(registry.getSingleMetric("argocd_app_sync_total")).toBeDefined();
    await deps.client.transport.close();
  });

  it("has the engine's work queue follow the apiserver coming back", async () => {
    const listeners: Array<() => void> = [];
    const deps = engineDeps({
      apiserverBack: (listener) => {
        listeners.push(listener);
        return () => undefined;
      },
    });
    buildSyncEngine(deps);
    expect(listeners).toHaveLength(1);
    expect(() => listeners[0]!()).not.toThrow();
    await deps.client.transport.close();
  });

  it("shares the Applications by the process's shard: the engine then runs in every replica", async () => {
    const deps = engineDeps({ shard: { identity: "replica-1", owns: () => true, onChange: () => () => undefined } });
    expect(buildSyncEngine(deps).loop().leaderOnly).toBe(false);
    const plain = engineDeps();
    expect(buildSyncEngine(plain).loop().leaderOnly).toBe(true);
    await Promise.all([deps.client.transport.close(), plain.client.transport.close()]);
  });
});

describe("syncEngineShardGroup", () => {
  it.each([
    {
      name: "the controller's default gives the engine's own group",
      shardGroup: "applicationset-controller",
      want: "applicationset-sync-engine",
    },
    { name: "another group is kept", shardGroup: "team-a", want: "team-a" },
  ])("$name", ({ shardGroup, want }) => {
    expect(syncEngineShardGroup({ shardGroup })).toBe(want);
  });
});
