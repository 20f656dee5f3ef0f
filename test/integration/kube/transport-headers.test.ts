/**
 * What the transport puts on the wire, seen by a real local HTTP server: the User-Agent, the
 * impersonation headers (as raw header lines: one per group), compression and the compression
 * opt-out.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeApiClient } from "../../../src/kube/client.js";
import { resources } from "../../../src/kube/index.js";
import { Registry, RestClientMetrics } from "../../../src/metrics/index.js";

let server: Server;
let url: string;
const seen: IncomingHttpHeaders[] = [];
/** The raw header lines of each request, names lower-cased, as they came over the socket. */
const lines: Array<Array<[string, string]>> = [];

const NAMESPACE = { apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } };

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    const raw: Array<[string, string]> = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) raw.push([req.rawHeaders[i]!.toLowerCase(), req.rawHeaders[i + 1]!]);
    lines.push(raw);
    res.setHeader("Content-Type", "application/json");
    const body = JSON.stringify(NAMESPACE);
    // As the apiserver does for large answers: gzip when the client accepts it.
    if (/\bgzip\b/.test(req.headers["accept-encoding"] ?? "")) {
      res.setHeader("Content-Encoding", "gzip");
      res.end(gzipSync(body));
    } else res.end(body);
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
  lines.length = 0;
  expect(await client.get(resources.Namespaces, { name: "default" })).toEqual(NAMESPACE);
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

  it("sends one Impersonate-Group line per group, in order, a comma kept inside its group", async () => {
    await headersOf({ impersonate: { user: "alice", groups: ["devs", "ops", "a, b"], uid: "" } });
    const sent = lines[0]!;
    expect(sent.filter(([n]) => n === "impersonate-group")).toEqual([
      ["impersonate-group", "devs"],
      ["impersonate-group", "ops"],
      ["impersonate-group", "a, b"],
    ]);
    expect(sent.filter(([n]) => n === "impersonate-user")).toEqual([["impersonate-user", "alice"]]);
  });

  it("sends one line per header otherwise: the User-Agent and Accept replace, not add to, the defaults", async () => {
    await headersOf({ userAgent: "argocd-applicationset-controller/v0.1.0 (linux/amd64)" });
    const names = lines[0]!.map(([n]) => n);
    expect(names.filter((n) => n === "user-agent")).toHaveLength(1);
    expect(names.filter((n) => n === "accept")).toHaveLength(1);
    expect(names.filter((n) => n === "authorization")).toHaveLength(1);
  });

  it("asks for gzip as client-go does and reads a gzip answer; disableCompression asks for none", async () => {
    expect((await headersOf({}))["accept-encoding"]).toBe("gzip");
    expect((await headersOf({ disableCompression: true }))["accept-encoding"]).toBe("identity");
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
