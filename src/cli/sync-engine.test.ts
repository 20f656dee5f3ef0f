import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { parseConfig } from "../config/index.js";
import type { GitReader } from "../git/index.js";
import { KubeApiClient } from "../kube/index.js";
import { SharedCache } from "../manager/index.js";
import { createMetricsRegistry, RestClientMetrics } from "../metrics/index.js";
import { capturedLogger } from "../../test/support/captured-logger.js";
import { ScriptedSource } from "../../test/support/scripted-informer.js";
import { buildSyncEngine, selfHealBackoff, syncDeadlineMs, syncEngineCommand, waveDelayMs } from "./sync-engine.js";

describe("waveDelayMs", () => {
  it.each([
    // name; ARGOCD_SYNC_WAVE_DELAY; the delay in ms
    { name: "unset means no delay", raw: undefined, ms: 0 },
    { name: "empty means no delay", raw: "", ms: 0 },
    { name: "seconds become milliseconds", raw: "2", ms: 2000 },
    { name: "fractions are honoured", raw: "0.5", ms: 500 },
    { name: "a negative value means no delay", raw: "-3", ms: 0 },
    { name: "garbage means no delay", raw: "soon", ms: 0 },
  ])("$name", ({ raw, ms }) => {
    expect(waveDelayMs(raw === undefined ? {} : { ARGOCD_SYNC_WAVE_DELAY: raw })).toBe(ms);
  });
});

describe("selfHealBackoff", () => {
  const P = "ARGOCD_APPLICATION_CONTROLLER_SELF_HEAL_";
  it.each([
    { name: "Argo CD's defaults", env: {}, want: { initialMs: 2_000, factor: 3, capMs: 300_000 } },
    {
      name: "each variable",
      env: { [`${P}BACKOFF_TIMEOUT_SECONDS`]: "5", [`${P}BACKOFF_FACTOR`]: "2", [`${P}BACKOFF_CAP_SECONDS`]: "60" },
      want: { initialMs: 5_000, factor: 2, capMs: 60_000 },
    },
    {
      name: "an invalid value keeps the default",
      env: { [`${P}BACKOFF_FACTOR`]: "x" },
      want: { initialMs: 2_000, factor: 3, capMs: 300_000 },
    },
    {
      name: "a back-off timeout of 0 waits the fixed self-heal timeout",
      env: { [`${P}BACKOFF_TIMEOUT_SECONDS`]: "0", [`${P}TIMEOUT_SECONDS`]: "5" },
      want: { initialMs: 5_000, factor: 1, capMs: 5_000, fixed: true },
    },
  ])("$name", ({ env, want }) => {
    expect(selfHealBackoff(env)).toEqual(want);
  });
});

describe("syncDeadlineMs", () => {
  it.each([
    // name; APPSET_SYNC_DEADLINE_SECONDS; the deadline in ms
    { name: "unset means no deadline", raw: undefined, ms: undefined },
    { name: "empty means no deadline", raw: " ", ms: undefined },
    { name: "seconds become milliseconds", raw: "600", ms: 600_000 },
    { name: "zero means no deadline", raw: "0", ms: undefined },
    { name: "garbage means no deadline", raw: "10m", ms: undefined },
  ])("$name", ({ raw, ms }) => {
    expect(syncDeadlineMs(raw === undefined ? {} : { APPSET_SYNC_DEADLINE_SECONDS: raw })).toBe(ms);
  });
});

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

  it("prints the controller's flags under its own usage line for --help", async () => {
    const r = io();
    expect(await syncEngineCommand(["--help"], r.io)).toBe(0);
    expect(r.out).toContain("--enable-sync-engine");
    expect(r.out.split("\n")[0]).toBe("Usage: appset sync-engine [flags]");
    expect(r.out).not.toContain("appset controller");
  });
});

describe("buildSyncEngine", () => {
  it("registers client-go's rest_client_requests_total (for remote clusters' clients) beside the application metrics", async () => {
    const parsed = parseConfig([], {});
    if (parsed.kind !== "config") throw new Error("default flags refused");
    const registry = createMetricsRegistry({ processMetrics: false });
    const clock = new FakeClock(0);
    const client = KubeApiClient.fromOptions({ server: "https://apiserver.invalid:6443" });
    const deps = {
      config: parsed.config,
      env: {},
      logger: capturedLogger().logger,
      clock,
      client,
      namespace: "argocd",
      cache: new SharedCache({ source: new ScriptedSource(), clock }),
      git: {} as GitReader,
      credentials: () => Promise.resolve(undefined),
      clusters: {
        resolve: () => ({ ok: true as const, server: "https://kubernetes.default.svc", cluster: undefined }),
        waitForSync: () => Promise.resolve(),
        clusters: () => [],
      },
      registry,
    };
    buildSyncEngine(deps);
    // In the controller process the controller's client counts on the same registry: one counter.
    new RestClientMetrics(registry).observe({ code: "200", host: "apiserver.invalid:6443", method: "GET" });
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === "rest_client_requests_total");
    expect(metric).toMatchObject({ type: "counter", help: "Number of HTTP requests, partitioned by status code, method, and host." });
    expect(metric?.values).toEqual([{ value: 1, labels: { code: "200", host: "apiserver.invalid:6443", method: "GET" } }]);
    expect(registry.getSingleMetric("argocd_app_sync_total")).toBeDefined();
    await client.transport.close();
  });
});
