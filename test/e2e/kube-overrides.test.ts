/**
 * kubectl's overrides on the real apiserver: `--as` impersonation is sent as client-go's headers,
 * so the admin kubeconfig impersonating a user without RBAC is refused with 403, and the same user
 * impersonated together with an authorized group is let through.
 */
import { afterEach, describe, expect, inject, it } from "vitest";
import { KubeApiClient, KubeApiError, KubeReason, resources } from "../../src/kube/index.js";

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
