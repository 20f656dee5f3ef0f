/**
 * The transport's pooled HTTP/2 session (src/kube/h2-connection.ts) against local TLS servers: one
 * session carries every request; a gzip body is decoded; a session the server ends is replaced; a
 * request unanswered in time fails with Timeout and the next one opens a new session; a server that
 * speaks HTTP/1.1 only is reached through undici; a refused connection is a network failure; and an
 * idle session does not keep a finished process alive.
 */
import { execFile } from "node:child_process";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from "node:http2";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { kubeFailure } from "../../support/kube-failure.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { KubeApiClient, resources, type KubeApiClientOptions } from "../../../src/kube/index.js";
import { TempDirs } from "../support/git-repos.js";
import { makeTestCa, type TestCa } from "../support/test-ca.js";

const temp = new TempDirs();
let ca: TestCa;
let h2: Http2SecureServer;
let h1: HttpsServer;
let h2Url: string;
let h1Url: string;
/** What the HTTP/2 server saw: sessions opened, and each request's protocol and path. */
let sessions = 0;
let seen: Array<{ httpVersion: string; path: string }> = [];
/** How the HTTP/2 server answers the next requests (default: a Namespace as JSON). */
let answer: (req: Http2ServerRequest, res: Http2ServerResponse) => void;

const namespace = JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } });

function plain(_req: unknown, res: { setHeader(n: string, v: string): void; end(b: string | Buffer): void }): void {
  res.setHeader("Content-Type", "application/json");
  res.end(namespace);
}

beforeAll(async () => {
  ca = makeTestCa(temp.make("kube-h2-session-ca-"));
  h2 = createSecureServer({ key: ca.serverKey, cert: ca.serverCert, allowHTTP1: true }, (req, res) => {
    seen.push({ httpVersion: req.httpVersion, path: req.url });
    answer(req, res);
  });
  h2.on("session", () => sessions++);
  h1 = createHttpsServer({ key: ca.serverKey, cert: ca.serverCert }, (req, res) => {
    seen.push({ httpVersion: req.httpVersion, path: req.url ?? "" });
    plain(req, res);
  });
  await new Promise<void>((resolve) => h2.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => h1.listen(0, "127.0.0.1", resolve));
  h2Url = `https://127.0.0.1:${(h2.address() as AddressInfo).port}`;
  h1Url = `https://127.0.0.1:${(h1.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => h2.close(() => resolve()));
  h1.closeAllConnections();
  await new Promise<void>((resolve) => h1.close(() => resolve()));
  temp.cleanup();
});

beforeEach(() => {
  sessions = 0;
  seen = [];
  answer = plain;
});

function clientOf(url: string, options: KubeApiClientOptions = {}): KubeApiClient {
  return KubeApiClient.fromOptions({ server: url, caData: Buffer.from(ca.caCert).toString("base64"), token: "t" }, options);
}

async function withClient<T>(url: string, fn: (c: KubeApiClient) => Promise<T>, options: KubeApiClientOptions = {}): Promise<T> {
  const client = clientOf(url, options);
  try {
    return await fn(client);
  } finally {
    await client.transport.close();
  }
}

const get = (c: KubeApiClient): Promise<unknown> => c.get(resources.Namespaces, { name: "default" });

describe("the pooled HTTP/2 session", () => {
  it("carries every request, concurrent ones too, on one session", async () => {
    await withClient(h2Url, async (c) => {
      await get(c);
      await Promise.all(Array.from({ length: 20 }, () => get(c)));
    });
    expect(seen).toHaveLength(21);
    expect(new Set(seen.map((s) => s.httpVersion))).toEqual(new Set(["2.0"]));
    expect(sessions).toBe(1);
  });

  it("decodes a gzip body", async () => {
    answer = (_req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.setHeader("Content-Encoding", "gzip");
      res.end(gzipSync(namespace));
    };
    const got = await withClient(h2Url, get);
    expect(got).toMatchObject({ kind: "Namespace", metadata: { name: "default" } });
  });

  it("opens a new session when the server has ended the one held", async () => {
    answer = (req, res) => {
      const session = req.stream.session;
      plain(req, res);
      // Ends the session once this answer is written.
      res.stream.on("close", () => session?.close());
    };
    await withClient(h2Url, async (c) => {
      await get(c);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await get(c);
    });
    expect(seen.map((s) => s.httpVersion)).toEqual(["2.0", "2.0"]);
    expect(sessions).toBe(2);
  });

  it("fails a request unanswered in time with Timeout, and the next request opens a new session", async () => {
    answer = () => undefined;
    await withClient(
      h2Url,
      async (c) => {
        const err = await kubeFailure(get(c));
        expect(err.reason).toBe("Timeout");
        answer = plain;
        await expect(get(c)).resolves.toMatchObject({ kind: "Namespace" });
      },
      { requestTimeoutMs: 300 },
    );
    expect(sessions).toBe(2);
  });

  it("reaches a server that speaks HTTP/1.1 only through undici, from then on", async () => {
    await withClient(h1Url, async (c) => {
      await get(c);
      await get(c);
    });
    expect(seen.map((s) => s.httpVersion)).toEqual(["1.1", "1.1"]);
  });

  it("reports a refused connection as a network failure", async () => {
    const probe = createHttpsServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const url = `https://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const err = await withClient(url, (c) => kubeFailure(get(c)));
    expect(err.reason).toBe("Network");
  });

  it("does not keep a finished process alive while its session idles", async () => {
    const script = join(import.meta.dirname, "fixtures", "h2-one-request.ts");
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", script, h2Url, ca.caCert], {
      timeout: 30_000,
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    expect(stdout.trim()).toBe("Namespace");
    expect(seen.map((s) => s.httpVersion)).toEqual(["2.0"]);
  });
});
