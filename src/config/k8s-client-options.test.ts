import { describe, expect, it } from "vitest";
import { parseConfig, type Config, type Env } from "./config.js";
import { clientRateLimit } from "./k8s-client-options.js";
import { configReference, deploymentEnv } from "./reference.js";

function config(env: Env): { config: Config; warnings: string[] } {
  const r = parseConfig([], env);
  if (r.kind !== "config") throw new Error(`expected a config, got ${JSON.stringify(r)}`);
  return r;
}

describe("Argo CD's Kubernetes client settings", () => {
  it("default to QPS 50, burst 100 and Argo CD's transport timeouts", () => {
    expect(config({}).config).toMatchObject({
      k8sClientQps: 50,
      k8sClientBurst: 100,
      k8sClientMaxIdleConnections: 500,
      k8sTcpTimeoutMs: 30_000,
      k8sTcpKeepaliveMs: 30_000,
      k8sTlsHandshakeTimeoutMs: 10_000,
      k8sTcpIdleTimeoutMs: 300_000,
    });
  });

  it("read a fractional QPS, default the burst to twice it, and take an explicit burst", () => {
    expect(config({ ARGOCD_K8S_CLIENT_QPS: "12.5" }).config).toMatchObject({ k8sClientQps: 12.5, k8sClientBurst: 25 });
    expect(config({ ARGOCD_K8S_CLIENT_QPS: "150", ARGOCD_K8S_CLIENT_BURST: "300" }).config).toMatchObject({ k8sClientBurst: 300 });
    expect(config({ ARGOCD_K8S_TCP_IDLE_TIMEOUT: "90s" }).config.k8sTcpIdleTimeoutMs).toBe(90_000);
  });

  it.each([
    // client-go's rest.Config: a QPS of 0 is DefaultQPS (5), a burst of 0 DefaultBurst (10), each on its own
    {
      name: "QPS 0 (burst defaulting to 2 × 0) is 5 QPS with a burst of 10",
      env: { ARGOCD_K8S_CLIENT_QPS: "0" },
      want: { qps: 5, burst: 10 },
    },
    {
      name: "QPS 0 keeps an explicit burst",
      env: { ARGOCD_K8S_CLIENT_QPS: "0", ARGOCD_K8S_CLIENT_BURST: "40" },
      want: { qps: 5, burst: 40 },
    },
    { name: "burst 0 is 10 under the QPS given", env: { ARGOCD_K8S_CLIENT_BURST: "0" }, want: { qps: 50, burst: 10 } },
    { name: "the defaults are left alone", env: {}, want: { qps: 50, burst: 100 } },
  ])("limit requests as client-go does when $name", ({ env, want }) => {
    expect(clientRateLimit(config(env).config)).toEqual(want);
  });

  it("fall back to the default with a warning on an unreadable value", () => {
    const { config: c, warnings } = config({ ARGOCD_K8S_CLIENT_QPS: "fast" });
    expect(c.k8sClientQps).toBe(50);
    expect(c.k8sClientBurst).toBe(100);
    expect(warnings).toEqual(['ARGOCD_K8S_CLIENT_QPS: invalid number "fast"; using the default 50']);
  });

  it("map each applicationsetcontroller.k8s.* key to its environment variable", () => {
    const k8s = deploymentEnv().filter((e) => e.valueFrom.configMapKeyRef.key.startsWith("applicationsetcontroller.k8s."));
    expect(k8s.map((e) => [e.name, e.valueFrom.configMapKeyRef.key])).toEqual([
      ["ARGOCD_K8S_CLIENT_QPS", "applicationsetcontroller.k8s.client.qps"],
      ["ARGOCD_K8S_CLIENT_BURST", "applicationsetcontroller.k8s.client.burst"],
      ["ARGOCD_K8S_CLIENT_MAX_IDLE_CONNECTIONS", "applicationsetcontroller.k8s.client.max.idle.connections"],
      ["ARGOCD_K8S_TCP_TIMEOUT", "applicationsetcontroller.k8s.tcp.timeout"],
      ["ARGOCD_K8S_TCP_KEEPALIVE", "applicationsetcontroller.k8s.tcp.keepalive"],
      ["ARGOCD_K8S_TLS_HANDSHAKE_TIMEOUT", "applicationsetcontroller.k8s.tls.handshake.timeout"],
      ["ARGOCD_K8S_TCP_IDLE_TIMEOUT", "applicationsetcontroller.k8s.tcp.idle.timeout"],
    ]);
    expect(configReference().find((r) => r.env === "ARGOCD_K8S_CLIENT_BURST")?.default).toBe("2 × ARGOCD_K8S_CLIENT_QPS (100)");
  });
});
