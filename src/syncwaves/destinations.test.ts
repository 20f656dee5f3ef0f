import { afterAll, describe, expect, it } from "vitest";
import { encodeSecretData, type Application, type Cluster } from "../api/index.js";
import { FakeClock } from "../clock/index.js";
import { KubeApiClient, type KubeObject } from "../kube/index.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { list, ScriptedSource } from "../../test/support/scripted-informer.js";
import { SharedCache } from "../manager/cache.js";
import { ClusterDirectory, clusterSecretsSpec } from "../manager/clusters.js";
import { ClusterSecretDestinations, INVALID_DESTINATION, LocalDestinations, clusterConfigFor, type ClusterAccess } from "./destinations.js";
import { trackedName } from "./watches.js";

const cluster = (config: Cluster["config"]): Cluster => ({
  name: "c",
  server: "https://10.0.0.1:6443",
  project: "",
  namespaces: [],
  clusterResources: false,
  config,
  labels: {},
  annotations: {},
  secretName: "c",
});

describe("the client configuration of a cluster Secret", () => {
  it.each([
    {
      name: "a bearer token with TLS verification off",
      config: { bearerToken: "t0k", tlsClientConfig: { insecure: true } },
      want: { server: "https://10.0.0.1:6443", skipTLSVerify: true, token: "t0k" },
    },
    {
      name: "a CA, a server name and a client certificate",
      config: { tlsClientConfig: { caData: "Q0E=", serverName: "api", certData: "Q0VSVA==", keyData: "S0VZ" } },
      want: {
        server: "https://10.0.0.1:6443",
        skipTLSVerify: false,
        caData: "Q0E=",
        tlsServerName: "api",
        certData: "Q0VSVA==",
        keyData: "S0VZ",
      },
    },
    {
      name: "basic authentication",
      config: { username: "u", password: "p" },
      want: { server: "https://10.0.0.1:6443", skipTLSVerify: false, username: "u", password: "p" },
    },
  ])("carries $name", ({ config, want }) => {
    expect(clusterConfigFor(cluster(config))).toEqual(want);
  });

  it("builds a client in memory that targets the Secret's server", async () => {
    const client = KubeApiClient.fromOptions(clusterConfigFor(cluster({ bearerToken: "t0k", tlsClientConfig: { insecure: true } })));
    expect(client.transport.server).toBe("https://10.0.0.1:6443");
    await client.transport.close();
  });

  it("refuses exec authentication it cannot run", () => {
    expect(() => clusterConfigFor(cluster({ execProviderConfig: { command: "x" } }))).toThrow(
      expect.objectContaining({ reason: INVALID_DESTINATION }) as unknown,
    );
  });
});

describe("finding an Application's destination", () => {
  const fake = new FakeKubeClient();
  const clusterSecret = (name: string, clusterName: string, server: string): KubeObject => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "cluster" } },
    data: encodeSecretData({ name: clusterName, server, config: JSON.stringify({ bearerToken: "t" }) }),
  });
  const secrets = new ScriptedSource();
  secrets.lists = [
    () =>
      list(
        "1",
        clusterSecret("remote", "remote", "https://10.0.0.1:6443"),
        clusterSecret("twin-a", "twin", "https://10.0.0.2:6443"),
        clusterSecret("twin-b", "twin", "https://10.0.0.3:6443"),
      ),
  ];
  const local = {
    id: "local",
    client: fake as unknown as ClusterAccess["client"],
    resolve: (_o: KubeObject) => Promise.reject(new Error("unused")),
  };
  const cache = new SharedCache({ source: secrets, clock: new FakeClock(0) });
  const directory = new ClusterDirectory(cache.informer(clusterSecretsSpec("argocd")));
  cache.start();
  afterAll(() => cache.stop());
  const destinations = new ClusterSecretDestinations({ local, clusters: directory });
  const appTo = (destination: Application["spec"]["destination"]): Application => ({
    metadata: { name: "a" },
    spec: { project: "default", destination },
  });

  it.each([
    { name: "the in-cluster server is the local cluster", destination: { server: "https://kubernetes.default.svc" }, want: "local" },
    { name: "the name in-cluster is the local cluster", destination: { name: "in-cluster" }, want: "local" },
    { name: "a Secret's server reaches that server", destination: { server: "https://10.0.0.1:6443/" }, want: "https://10.0.0.1:6443" },
    { name: "a Secret's name reaches its server", destination: { name: "remote" }, want: "https://10.0.0.1:6443" },
  ])("$name", async ({ destination, want }) => {
    expect((await destinations.access(appTo(destination))).id).toBe(want);
  });

  it("builds one client per cluster and reuses it", async () => {
    const a = await destinations.access(appTo({ name: "remote" }));
    const b = await destinations.access(appTo({ server: "https://10.0.0.1:6443" }));
    expect(a).toBe(b);
  });

  it.each([
    {
      name: "an unknown server",
      destination: { server: "https://nowhere" },
      message: 'error getting cluster by server "https://nowhere": rpc error: code = NotFound desc = cluster "https://nowhere" not found',
    },
    { name: "an unknown name", destination: { name: "nowhere" }, message: "there are no clusters with this name: nowhere" },
    {
      name: "a name and a server together (the controller's rule, not a silent preference)",
      destination: { name: "remote", server: "https://10.0.0.1:6443" },
      message: "application destination can't have both name and server defined: remote https://10.0.0.1:6443",
    },
    {
      name: "a name two clusters share (not the first of them)",
      destination: { name: "twin" },
      message: "there are 2 clusters with the same name: [https://10.0.0.2:6443 https://10.0.0.3:6443]",
    },
  ])("rejects $name", async ({ destination, message }) => {
    await expect(destinations.access(appTo(destination))).rejects.toMatchObject({ reason: INVALID_DESTINATION, message });
  });
});

describe("reaching the local cluster as a service account (sync impersonation)", () => {
  const engine = {
    id: "local",
    client: new FakeKubeClient() as unknown as ClusterAccess["client"],
    resolve: () => Promise.reject(new Error("x")),
  };
  const app: Application = { metadata: { name: "a" }, spec: { project: "default", destination: { name: "in-cluster", namespace: "ns" } } };
  const directory: ConstructorParameters<typeof ClusterSecretDestinations>[0]["clusters"] = {
    waitForSync: () => Promise.resolve(),
    resolve: () => ({ ok: true, server: "https://kubernetes.default.svc", cluster: undefined }),
  };
  const user = "system:serviceaccount:ns:deployer";

  it("reaches the local cluster through the factory the process gives, once per account", async () => {
    const made: string[] = [];
    const factory = (u: string): ClusterAccess["client"] => {
      made.push(u);
      return new FakeKubeClient() as unknown as ClusterAccess["client"];
    };
    const local = new ClusterSecretDestinations({
      local: engine,
      clusters: directory,
      localImpersonating: factory,
    });
    const a = await local.access(app, { impersonate: user });
    expect(await local.access(app, { impersonate: user })).toBe(a);
    expect(await local.access(app)).toBe(engine);
    expect(a).toMatchObject({ id: "local", resolve: engine.resolve });
    expect(made).toEqual([user]);
    expect((await new LocalDestinations(engine, factory).access(app, { impersonate: user })).client).not.toBe(engine.client);
  });

  it("refuses to impersonate on the local cluster without a factory", async () => {
    const message = "cluster local: impersonation is not available";
    await expect(new LocalDestinations(engine).access(app, { impersonate: user })).rejects.toMatchObject({
      reason: INVALID_DESTINATION,
      message,
    });
    const secrets = new ClusterSecretDestinations({ local: engine, clusters: directory });
    await expect(secrets.access(app, { impersonate: user })).rejects.toMatchObject({ message });
  });
});

describe("the tracking name of a watched object", () => {
  const rows: { name: string; annotations: Record<string, string>; want: string | undefined }[] = [
    {
      name: "a tracking id names its Application",
      annotations: { "argocd.argoproj.io/tracking-id": "web:apps/Deployment:ns/web" },
      want: "web",
    },
    { name: "no tracking id names none", annotations: { other: "x" }, want: undefined },
    { name: "a malformed id names none", annotations: { "argocd.argoproj.io/tracking-id": ":x" }, want: undefined },
  ];
  it.each(rows)("$name", ({ annotations, want }) => {
    expect(trackedName({ metadata: { name: "x", annotations } })).toBe(want);
  });
});
