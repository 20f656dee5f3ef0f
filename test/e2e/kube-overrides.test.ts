/**
 * kubectl's overrides on the real apiserver: `--as` impersonation is sent as client-go's headers,
 * so the admin kubeconfig impersonating a user without RBAC is refused with 403, and the same user
 * impersonated together with an authorized group is let through; the token bucket and the agent's
 * timeouts are applied on the real TLS connection.
 */
import { afterEach, describe, expect, inject, it } from "vitest";
import { SystemClock } from "../../src/clock/index.js";
import { KubeApiClient, KubeApiError, KubeReason, resources, TokenBucket } from "../../src/kube/index.js";

const opened: KubeApiClient[] = [];

function adminAs(user: string, groups: string[] = []): KubeApiClient {
  const client = KubeApiClient.fromConfig(
    { kind: "file", path: inject("kubeconfigPath") },
    { overrides: {}, impersonate: { user, groups, uid: "" } },
  );
  opened.push(client);
  return client;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.transport.close()));
});

describe("--as impersonation", () => {
  it("refuses with 403 a request impersonating a user without RBAC, naming that user", async () => {
    const err = await adminAs("appset-nobody")
      .list(resources.Namespaces)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).status).toBe(403);
    expect((err as KubeApiError).reason).toBe(KubeReason.Forbidden);
    expect((err as KubeApiError).message).toContain('User "appset-nobody" cannot list resource "namespaces"');
  });

  it("lets the same user through when it is impersonated in an authorized group", async () => {
    const list = await adminAs("appset-nobody", ["system:masters"]).list(resources.Namespaces);
    expect(list.items.map((n) => n.metadata?.name)).toContain("default");
  });
});

describe("the client-side rate limit and Argo CD's agent settings", () => {
  it("holds requests on the real TLS connection to qps after the burst", async () => {
    const client = KubeApiClient.fromConfig(
      { kind: "file", path: inject("kubeconfigPath") },
      {
        limiter: new TokenBucket({ qps: 20, burst: 2, clock: new SystemClock() }),
        agent: { connectTimeoutMs: 40_000, keepAliveMs: 30_000, idleTimeoutMs: 300_000 },
      },
    );
    opened.push(client);
    const started = performance.now();
    for (let i = 0; i < 6; i++) await client.get(resources.Namespaces, { name: "default" });
    // Two at once, then four more at 50 ms each.
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
  });
});
