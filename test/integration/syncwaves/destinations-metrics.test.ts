/**
 * The sync engine's clients of remote clusters count their requests in `rest_client_requests_total`,
 * as client-go's global metrics count every client of Argo CD's application controller: a cluster
 * Secret points at a real local HTTP server standing in for a remote apiserver.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeSecretData, type Application } from "../../../src/api/index.js";
import { FakeClock } from "../../../src/clock/index.js";
import { KubeApiClient, resources, type KubeObject } from "../../../src/kube/index.js";
import { ClusterDirectory, clusterSecretsSpec, SharedCache } from "../../../src/manager/index.js";
import { Registry, RestClientMetrics } from "../../../src/metrics/index.js";
import { ClusterSecretDestinations, type ClusterAccess } from "../../../src/syncwaves/destinations.js";
import { list, ScriptedSource } from "../../support/scripted-informer.js";

let server: Server;
let remote: string;
const agents: Array<string | undefined> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    agents.push(req.headers["user-agent"]);
    res.statusCode = req.url === "/api/v1/namespaces/default" ? 200 : 404;
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify(res.statusCode === 200 ? { apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } } : {}));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  remote = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("the clients of remote clusters", () => {
  it("count every request by code, host and method on the engine's counter, and carry the engine's User-Agent", async () => {
    const secrets = new ScriptedSource();
    const secret: KubeObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "remote", namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "cluster" } },
      data: encodeSecretData({ name: "remote", server: remote, config: JSON.stringify({ tlsClientConfig: { insecure: true } }) }),
    };
    secrets.lists = [() => list("1", secret)];
    const cache = new SharedCache({ source: secrets, clock: new FakeClock(0) });
    const clusters = new ClusterDirectory(cache.informer(clusterSecretsSpec("argocd")));
    cache.start();
    const registry = new Registry();
    const local = { id: "local", client: {} as ClusterAccess["client"], resolve: () => Promise.reject(new Error("unused")) };
    const destinations = new ClusterSecretDestinations({
      local,
      clusters,
      observe: new RestClientMetrics(registry).observe,
      userAgent: "argocd-application-controller/v0.0.0 (linux/amd64)",
    });
    try {
      const app: Application = { metadata: { name: "a" }, spec: { project: "default", destination: { name: "remote" } } };
      const access = await destinations.access(app);
      await access.client.get(resources.Namespaces, { name: "default" });
      await expect(access.client.get(resources.Namespaces, { name: "missing" })).rejects.toThrow();
      const host = new URL(remote).host;
      const text = await registry.getSingleMetricAsString("rest_client_requests_total");
      expect(text).toContain(`rest_client_requests_total{code="200",host="${host}",method="GET"} 1`);
      expect(text).toContain(`rest_client_requests_total{code="404",host="${host}",method="GET"} 1`);
      expect(agents).toEqual(["argocd-application-controller/v0.0.0 (linux/amd64)", "argocd-application-controller/v0.0.0 (linux/amd64)"]);
      if (access.client instanceof KubeApiClient) await access.client.transport.close();
    } finally {
      await cache.stop();
    }
  });
});
