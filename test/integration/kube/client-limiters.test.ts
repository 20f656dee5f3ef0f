/**
 * Which limiter each request of the kube client waits on, against a real local HTTP server: with
 * `limiters`, every request about a resource (reads, writes, watches) waits on that resource's, and
 * a request about none on the transport's own.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeApiClient, LimiterPerResource, resources, type RequestLimiter } from "../../../src/kube/index.js";

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader("Content-Type", "application/json");
    if (req.url?.includes("watch=true")) {
      res.end(JSON.stringify({ type: "BOOKMARK", object: { kind: "Event", apiVersion: "v1", metadata: { resourceVersion: "1" } } }) + "\n");
      return;
    }
    if (req.method === "GET" && req.url === "/api/v1/namespaces/ns/events") {
      res.end(JSON.stringify({ kind: "EventList", metadata: { resourceVersion: "1" }, items: [] }));
      return;
    }
    res.end(JSON.stringify({ kind: "Whatever", apiVersion: "v1", metadata: { name: "x", namespace: "ns" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("the kube client's limiters", () => {
  it("are chosen by the resource of each request; a request about none waits on the transport's", async () => {
    const waited: string[] = [];
    const named = (name: string): RequestLimiter => ({
      wait: () => {
        waited.push(name);
        return Promise.resolve();
      },
    });
    let n = 0;
    const client = KubeApiClient.fromOptions(
      { server: url, skipTLSVerify: true, token: "t" },
      { limiter: named("transport"), limiters: new LimiterPerResource(() => named(`bucket-${String(++n)}`)) },
    );
    const app = { metadata: { name: "x", namespace: "ns" } };
    try {
      await client.create(resources.Applications, app);
      await client.patchStatus(resources.ApplicationSets, { namespace: "ns", name: "x" }, { type: "merge", body: { status: {} } });
      await client.create(resources.Events, app);
      await client.update(resources.Applications, app);
      await client.get(resources.ApplicationSets, { namespace: "ns", name: "x" });
      await client.list(resources.Events, { namespace: "ns" });
      await client.watch(resources.Events, { namespace: "ns" }, () => undefined);
      await client.delete(resources.Applications, { namespace: "ns", name: "x" });
      await client.transport.request({ method: "GET", path: "/version" });
    } finally {
      await client.transport.close();
    }
    expect(waited).toEqual(["bucket-1", "bucket-2", "bucket-3", "bucket-1", "bucket-2", "bucket-3", "bucket-3", "bucket-1", "transport"]);
  });
});
