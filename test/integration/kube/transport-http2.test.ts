/**
 * The transport against a local TLS server that speaks HTTP/2 and HTTP/1.1, as the apiserver does:
 * undici's HTTP/2 client joins repeated header names into one value, so a request with several
 * `Impersonate-Group` lines must go over HTTP/1.1 with each line kept; every other request keeps
 * HTTP/2. The server records the protocol and the raw header lines it received.
 */
import { createSecureServer, type Http2SecureServer } from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeApiClient, resources, type KubeApiClientOptions } from "../../../src/kube/index.js";
import { TempDirs } from "../support/git-repos.js";
import { makeTestCa, type TestCa } from "../support/test-ca.js";

interface Seen {
  readonly httpVersion: string;
  readonly lines: Array<[string, string]>;
}

const temp = new TempDirs();
let ca: TestCa;
let server: Http2SecureServer;
let url: string;
const seen: Seen[] = [];

beforeAll(async () => {
  ca = makeTestCa(temp.make("kube-h2-ca-"));
  server = createSecureServer({ key: ca.serverKey, cert: ca.serverCert, allowHTTP1: true }, (req, res) => {
    const lines: Array<[string, string]> = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push([req.rawHeaders[i]!.toLowerCase(), req.rawHeaders[i + 1]!]);
    seen.push({ httpVersion: req.httpVersion, lines });
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  temp.cleanup();
});

async function sent(options: KubeApiClientOptions): Promise<Seen> {
  const client = KubeApiClient.fromOptions({ server: url, caData: Buffer.from(ca.caCert).toString("base64"), token: "t" }, options);
  seen.length = 0;
  try {
    await client.get(resources.Namespaces, { name: "default" });
    await client.get(resources.Namespaces, { name: "default" });
  } finally {
    await client.transport.close();
  }
  expect(seen).toHaveLength(2);
  return seen[1]!;
}

describe("impersonated groups over a server that speaks HTTP/2", () => {
  it("keeps one Impersonate-Group line per group, over HTTP/1.1", async () => {
    const s = await sent({ impersonate: { user: "alice", groups: ["first", "second"], uid: "7" } });
    expect(s.httpVersion).toBe("1.1");
    expect(s.lines.filter(([n]) => n.startsWith("impersonate-"))).toEqual([
      ["impersonate-user", "alice"],
      ["impersonate-group", "first"],
      ["impersonate-group", "second"],
      ["impersonate-uid", "7"],
    ]);
  });

  it("keeps HTTP/2 when no header repeats, one group included", async () => {
    const s = await sent({ impersonate: { user: "alice", groups: ["first"], uid: "" } });
    expect(s.httpVersion).toBe("2.0");
    expect(s.lines.filter(([n]) => n === "impersonate-group")).toEqual([["impersonate-group", "first"]]);
    expect((await sent({})).httpVersion).toBe("2.0");
  });
});
