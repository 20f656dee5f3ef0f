/**
 * What the transport puts on the wire, seen by a real local HTTP server: the User-Agent, the
 * impersonation headers and the compression opt-out.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeApiClient } from "../../../src/kube/client.js";
import { resources } from "../../../src/kube/index.js";
import { Registry, RestClientMetrics } from "../../../src/metrics/index.js";

let server: Server;
let url: string;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function headersOf(options: Parameters<typeof KubeApiClient.fromOptions>[1]): Promise<IncomingHttpHeaders> {
  const client = KubeApiClient.fromOptions({ server: url, skipTLSVerify: true, token: "t" }, options);
  seen.length = 0;
  await client.get(resources.Namespaces, { name: "default" });
  await client.transport.close();
  return seen[0]!;
}

describe("request headers", () => {
  it("sends the configured User-Agent", async () => {
    const h = await headersOf({ userAgent: "argocd-applicationset-controller/v0.1.0 (linux/amd64)" });
    expect(h["user-agent"]).toBe("argocd-applicationset-controller/v0.1.0 (linux/amd64)");
    expect(h.authorization).toBe("Bearer t");
  });

  it("sends Impersonate-User, -Group and -Uid", async () => {
    const h = await headersOf({ impersonate: { user: "alice", groups: ["devs"], uid: "42" } });
    expect([h["impersonate-user"], h["impersonate-group"], h["impersonate-uid"]]).toEqual(["alice", "devs", "42"]);
  });

  it("asks for an uncompressed response with disableCompression", async () => {
    expect((await headersOf({ disableCompression: true }))["accept-encoding"]).toBe("identity");
    expect((await headersOf({}))["accept-encoding"]).toMatch(/gzip/);
    expect((await headersOf({}))["impersonate-user"]).toBeUndefined();
  });
});

describe("rest_client_requests_total", () => {
  it("counts every request by code, host and method, and <error> when no response came", async () => {
    const registry = new Registry();
    const metrics = new RestClientMetrics(registry);
    const client = KubeApiClient.fromOptions({ server: url, skipTLSVerify: true }, { observe: metrics.observe });
    await client.get(resources.Namespaces, { name: "default" });
    await client.get(resources.Namespaces, { name: "default" });
    await client.transport.close();
    const dead = KubeApiClient.fromOptions({ server: "http://127.0.0.1:1", skipTLSVerify: true }, { observe: metrics.observe });
    await expect(dead.get(resources.Namespaces, { name: "default" })).rejects.toThrow();
    const text = await registry.metrics();
    const host = new URL(url).host;
    expect(text).toContain(`rest_client_requests_total{code="200",host="${host}",method="GET"} 2`);
    expect(text).toContain('rest_client_requests_total{code="<error>",host="127.0.0.1:1",method="GET"} 1');
  });
});
