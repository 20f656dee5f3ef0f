/**
 * Sync impersonation on a remote cluster: the client the destinations build for a service account
 * sends `Impersonate-User` with the cluster Secret's credentials, and the engine's own client does
 * not. A cluster Secret points at a real local HTTP server standing in for a remote apiserver.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Application, Cluster } from "../../../src/api/index.js";
import { resources } from "../../../src/kube/index.js";
import { ClusterSecretDestinations, type ClusterAccess } from "../../../src/syncwaves/destinations.js";
import { FakeKubeClient } from "../../support/fake-kube-client.js";

const cluster = (server: string): Cluster => ({
  name: "remote",
  server,
  project: "",
  namespaces: [],
  clusterResources: false,
  config: { bearerToken: "t0k", tlsClientConfig: { insecure: true } },
  labels: {},
  annotations: {},
  secretName: "remote",
});

describe("reaching a destination as a service account (sync impersonation)", () => {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "ns" } }));
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));
  const engine = {
    id: "local",
    client: new FakeKubeClient() as unknown as ClusterAccess["client"],
    resolve: () => Promise.reject(new Error("x")),
  };
  const app: Application = { metadata: { name: "a" }, spec: { project: "default", destination: { name: "remote", namespace: "ns" } } };
  const directory = (server: string): ConstructorParameters<typeof ClusterSecretDestinations>[0]["clusters"] => ({
    waitForSync: () => Promise.resolve(),
    resolve: () => ({ ok: true, server, cluster: cluster(server) }),
  });
  const user = "system:serviceaccount:ns:deployer";

  it("sends Impersonate-User to a remote cluster as the account, and nothing as the engine", async () => {
    const destinations = new ClusterSecretDestinations({ local: engine, clusters: directory(url) });
    seen.length = 0;
    await (await destinations.access(app)).client.get(resources.ConfigMaps, { namespace: "ns", name: "x" });
    await (await destinations.access(app, { impersonate: user })).client.get(resources.ConfigMaps, { namespace: "ns", name: "x" });
    expect(seen.map((h) => h["impersonate-user"])).toEqual([undefined, user]);
    expect(seen.map((h) => h["authorization"])).toEqual(["Bearer t0k", "Bearer t0k"]);
  });

  it("builds one client per cluster and account, keeping the cluster's discovery", async () => {
    const destinations = new ClusterSecretDestinations({ local: engine, clusters: directory(url) });
    const base = await destinations.access(app);
    const a = await destinations.access(app, { impersonate: user });
    expect(await destinations.access(app, { impersonate: user })).toBe(a);
    expect(await destinations.access(app, { impersonate: "system:serviceaccount:ns:other" })).not.toBe(a);
    expect(a).toMatchObject({ id: base.id, resolve: base.resolve });
    expect(a.client).not.toBe(base.client);
  });
});
