/**
 * kubectl's overrides on the real apiserver: `--as` impersonation is sent as client-go's headers,
 * so the admin kubeconfig impersonating a user without RBAC is refused with 403, and the same user
 * impersonated together with an authorized group is let through. Repeated `--as-group` flags,
 * parsed as the controller parses them, reach RBAC as separate groups: a Role bound only to the
 * second group lets the user in. The token bucket and the agent's timeouts are applied on the real
 * TLS connection.
 */
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { kubeClient } from "../../src/cli/kube.js";
import { SystemClock } from "../../src/clock/index.js";
import { parseConfig } from "../../src/config/index.js";
import {
  isForbidden,
  KubeApiClient,
  KubeApiError,
  KubeReason,
  resources,
  TokenBucket,
  type ResourceDescriptor,
} from "../../src/kube/index.js";
import { eventually } from "./support/controller.js";

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

/** The controller's client from its command line (the shared control plane's kubeconfig). */
function fromFlags(flags: string[]): KubeApiClient {
  const parsed = parseConfig(["--kubeconfig", inject("kubeconfigPath"), ...flags], {});
  if (parsed.kind !== "config") throw new Error(`flags refused: ${JSON.stringify(parsed)}`);
  const client = kubeClient(parsed.config, process.env, { fieldManager: "appset-e2e", clock: new SystemClock(), program: "appset-e2e" });
  opened.push(client);
  return client;
}

const rbac = (plural: string, kind: string): ResourceDescriptor => ({
  group: "rbac.authorization.k8s.io",
  version: "v1",
  plural,
  kind,
  namespaced: true,
});

describe("repeated --as-group", () => {
  const run = randomBytes(3).toString("hex");
  const ns = `as-groups-${run}`;
  const [first, second] = [`appset-first-${run}`, `appset-second-${run}`];
  let admin: KubeApiClient;

  beforeAll(async () => {
    admin = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
    await admin.create(resources.Namespaces, { metadata: { name: ns } });
    await admin.create(resources.ConfigMaps, { metadata: { name: "guarded", namespace: ns }, data: {} });
    await admin.create(rbac("roles", "Role"), {
      metadata: { name: "reader", namespace: ns },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
    });
    // Only the second group is bound: sending the first alone, or both joined into one value, is refused.
    await admin.create(rbac("rolebindings", "RoleBinding"), {
      metadata: { name: "second-group-reads", namespace: ns },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: second }],
    });
  });

  afterAll(async () => {
    await admin.delete(resources.Namespaces, { name: ns }).catch(() => undefined);
    await admin.transport.close();
  });

  const read = (client: KubeApiClient): Promise<unknown> => client.get(resources.ConfigMaps, { namespace: ns, name: "guarded" });

  it("sends every group to the apiserver: RBAC granted through the second group lets the user in", async () => {
    const both = fromFlags(["--as", "appset-nobody", "--as-group", first, "--as-group", second]);
    // RBAC's authorizer sees a new binding once its informer has it: wait for the first success.
    const cm = await eventually("the ConfigMap read through the second group", async () => {
      try {
        return await read(both);
      } catch (e) {
        if (isForbidden(e)) return undefined;
        throw e;
      }
    });
    expect((cm as { metadata?: { name?: string } }).metadata?.name).toBe("guarded");
  });

  it("is refused with the first group alone, or with both groups joined into one value", async () => {
    await eventually("the binding in force", () => read(fromFlags(["--as", "appset-nobody", "--as-group", second])).catch(() => undefined));
    for (const flags of [["--as-group", first], [`--as-group=${first}, ${second}`]]) {
      const err = await read(fromFlags(["--as", "appset-nobody", ...flags])).catch((e: unknown) => e);
      expect(isForbidden(err), `refused with ${flags.join(" ")}`).toBe(true);
      expect((err as KubeApiError).message).toContain('User "appset-nobody" cannot get resource "configmaps"');
    }
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
