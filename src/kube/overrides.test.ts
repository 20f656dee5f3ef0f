import { KubeConfig } from "./kubeconfig.js";
import { describe, expect, it } from "vitest";
import { KubeApiError } from "./errors.js";
import { applyKubeOverrides, impersonationHeaders, withKubeconfigUser } from "./overrides.js";

function twoContexts(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      { name: "a", server: "https://a:6443", caData: "Q0E=", skipTLSVerify: false },
      { name: "b", server: "https://b:6443", skipTLSVerify: false },
    ],
    users: [
      { name: "ua", token: "token-a" },
      { name: "ub", exec: { command: "get-token" }, certData: "Q0VSVA==", keyData: "S0VZ" },
    ],
    contexts: [
      { name: "ca", cluster: "a", user: "ua", namespace: "ns-a" },
      { name: "cb", cluster: "b", user: "ub" },
    ],
    currentContext: "ca",
  });
  return kc;
}

describe("applyKubeOverrides", () => {
  it("leaves the current context as it is with no override", () => {
    const kc = applyKubeOverrides(twoContexts(), {});
    expect(kc.getCurrentContext()).toBe("ca");
    expect(kc.getCurrentCluster()).toMatchObject({ server: "https://a:6443", caData: "Q0E=" });
    expect(kc.getCurrentUser()).toMatchObject({ token: "token-a" });
  });

  it("selects --context, then --cluster and --user inside it", () => {
    const kc = applyKubeOverrides(twoContexts(), { context: "cb", cluster: "a" });
    expect(kc.getCurrentContext()).toBe("cb");
    expect(kc.getCurrentCluster()?.server).toBe("https://a:6443");
    expect(kc.getCurrentUser()?.name).toBe("ub");
    expect(applyKubeOverrides(twoContexts(), { user: "ub" }).getCurrentUser()?.exec).toEqual({ command: "get-token" });
  });

  it("replaces the server, CA, TLS name and proxy of the selected cluster", () => {
    const kc = applyKubeOverrides(twoContexts(), {
      server: "https://other:443",
      certificateAuthority: "/etc/ca.crt",
      tlsServerName: "api.internal",
      proxyUrl: "http://proxy:3128",
    });
    expect(kc.getCurrentCluster()).toMatchObject({
      name: "a",
      server: "https://other:443",
      caFile: "/etc/ca.crt",
      caData: undefined,
      tlsServerName: "api.internal",
      skipTLSVerify: false,
      proxyUrl: "http://proxy:3128",
    });
    expect(kc.getCluster("b")?.server).toBe("https://b:6443");
  });

  it("merges the CA, skip-verify and TLS name as client-go does", () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "c", server: "https://c:6443", caData: "Q0E=", skipTLSVerify: true, tlsServerName: "c.internal" }],
      users: [{ name: "u", token: "t" }],
      contexts: [{ name: "ctx", cluster: "c", user: "u" }],
      currentContext: "ctx",
    });
    // A CA checks the certificate again over a kubeconfig that skips the check.
    expect(applyKubeOverrides(kc, { certificateAuthority: "/ca.crt" }).getCurrentCluster()).toMatchObject({
      caFile: "/ca.crt",
      caData: undefined,
      skipTLSVerify: false,
    });
    // Skipping the check drops the kubeconfig's CA.
    expect(applyKubeOverrides(kc, { insecureSkipTlsVerify: true }).getCurrentCluster()).toMatchObject({
      caFile: undefined,
      caData: undefined,
      skipTLSVerify: true,
    });
    expect(() => applyKubeOverrides(kc, { certificateAuthority: "/ca.crt", insecureSkipTlsVerify: true })).toThrow(
      "specifying a root certificates file with the insecure flag is not allowed",
    );
    // A new server drops the kubeconfig's TLS name; --tls-server-name alone replaces it.
    expect(applyKubeOverrides(kc, { server: "https://10.0.0.1:6443" }).getCurrentCluster()?.tlsServerName).toBeUndefined();
    expect(applyKubeOverrides(kc, { tlsServerName: "other.internal" }).getCurrentCluster()?.tlsServerName).toBe("other.internal");
    expect(applyKubeOverrides(kc, {}).getCurrentCluster()).toMatchObject({
      caData: "Q0E=",
      skipTLSVerify: true,
      tlsServerName: "c.internal",
    });
  });

  it("lets --token replace the exec plugin but keep the client certificate", () => {
    const user = applyKubeOverrides(twoContexts(), { context: "cb", token: "explicit" }).getCurrentUser();
    expect(user).toMatchObject({ name: "ub", token: "explicit", certData: "Q0VSVA==", keyData: "S0VZ" });
    expect(user?.exec).toBeUndefined();
  });

  it("sets basic auth and client certificate files", () => {
    const kc = applyKubeOverrides(twoContexts(), { username: "bob", password: "pw", clientCertificate: "/c.crt", clientKey: "/c.key" });
    expect(kc.getCurrentUser()).toMatchObject({ username: "bob", password: "pw", certFile: "/c.crt", keyFile: "/c.key" });
  });

  it("refuses a context or user the kubeconfig does not have, and a missing cluster without --server", () => {
    expect(() => applyKubeOverrides(twoContexts(), { context: "nope" })).toThrow(/context "nope" does not exist/);
    expect(() => applyKubeOverrides(twoContexts(), { user: "nope" })).toThrow(/user "nope" does not exist/);
    expect(() => applyKubeOverrides(twoContexts(), { cluster: "nope" })).toThrow(KubeApiError);
    expect(applyKubeOverrides(twoContexts(), { cluster: "new", server: "https://new:1" }).getCurrentCluster()?.server).toBe(
      "https://new:1",
    );
  });

  it("builds a cluster and user from --server and --token alone when no kubeconfig has any", () => {
    const kc = applyKubeOverrides(new KubeConfig(), { server: "https://x:6443", token: "t" });
    expect(kc.getCurrentCluster()?.server).toBe("https://x:6443");
    expect(kc.getCurrentUser()?.token).toBe("t");
  });
});

describe("impersonationHeaders", () => {
  it("sends client-go's Impersonate-* headers", () => {
    expect(impersonationHeaders({ user: "alice", groups: ["devs"], uid: "42" })).toEqual([
      ["Impersonate-User", "alice"],
      ["Impersonate-Group", "devs"],
      ["Impersonate-Uid", "42"],
    ]);
    expect(impersonationHeaders({ user: "", groups: [], uid: "" })).toEqual([]);
    expect(impersonationHeaders(undefined)).toEqual([]);
  });

  it("refuses groups or a uid without a user, as client-go does", () => {
    expect(() => impersonationHeaders({ user: "", groups: ["g"], uid: "" })).toThrow(/requires a username/);
  });

  it("gives each group a header of its own, in the order given, commas kept inside a group", () => {
    expect(impersonationHeaders({ user: "alice", groups: ["devs", "ops", "a,b"], uid: "" })).toEqual([
      ["Impersonate-User", "alice"],
      ["Impersonate-Group", "devs"],
      ["Impersonate-Group", "ops"],
      ["Impersonate-Group", "a,b"],
    ]);
  });
});

describe("withKubeconfigUser", () => {
  const kubeconfigAs = (as: string | undefined): KubeConfig => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "c", server: "https://x:6443", skipTLSVerify: false }],
      users: [{ name: "u", ...(as === undefined ? {} : { impersonateUser: as }) }],
      contexts: [{ name: "ctx", cluster: "c", user: "u" }],
      currentContext: "ctx",
    });
    return kc;
  };

  it("takes the kubeconfig user's as when groups or a uid come without --as, as client-go merges them", () => {
    const i = withKubeconfigUser({ user: "", groups: ["devs"], uid: "" }, kubeconfigAs("bob"));
    expect(impersonationHeaders(i)).toEqual([
      ["Impersonate-User", "bob"],
      ["Impersonate-Group", "devs"],
    ]);
  });

  it("keeps --as over the kubeconfig's, and changes nothing when nothing is impersonated", () => {
    expect(withKubeconfigUser({ user: "alice", groups: ["g"], uid: "" }, kubeconfigAs("bob"))?.user).toBe("alice");
    expect(withKubeconfigUser({ user: "", groups: [], uid: "" }, kubeconfigAs("bob"))?.user).toBe("");
    expect(() => impersonationHeaders(withKubeconfigUser({ user: "", groups: ["g"], uid: "" }, kubeconfigAs(undefined)))).toThrow(
      /requires a username/,
    );
  });
});
