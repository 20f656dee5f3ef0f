/**
 * `--scm-proxy-url` / `--scm-no-proxy` against a real local forward proxy that resolves every host
 * to 127.0.0.1: a provider addressed as `scm.test` is only reachable through it. Which targets
 * `--scm-no-proxy` sends direct is tested in src/scm/proxy-rules.test.ts; the other proxy kinds
 * (https://, socks5://) in proxy-schemes.test.ts.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createScmProviderGenerator } from "../../../src/generators/scm-provider.js";
import { proxyTransport } from "../../../src/scm/proxy.js";
import { githubBranch, githubRepo, gitlabProject, sha } from "../../fixtures/scm/payloads.js";
import { appSet } from "../../unit/generators/builders.js";
import { harness } from "../../unit/scm/support.js";
import { FakeProxy } from "../support/scm-proxy-server.js";
import { FakeApi } from "../support/scm-server.js";

const api = new FakeApi();
const proxy = new FakeProxy();
const cert = readFileSync(new URL("../../fixtures/scm/tls/server.crt", import.meta.url), "utf8");
const key = readFileSync(new URL("../../fixtures/scm/tls/server.key", import.meta.url), "utf8");
let tlsServer: Server;
let tlsPort = 0;

beforeAll(async () => {
  await Promise.all([api.start(), proxy.start()]);
  tlsServer = createServer({ cert, key }, (req, res) => {
    const body = req.url?.startsWith("/api/v4/groups/") ? [gitlabProject("g", "p", 1)] : { name: "main", commit: { id: sha("p") } };
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => tlsServer.listen(0, "127.0.0.1", resolve));
  tlsPort = (tlsServer.address() as AddressInfo).port;
});
afterAll(async () => {
  tlsServer.closeAllConnections();
  await Promise.all([api.stop(), proxy.stop(), new Promise<void>((resolve) => tlsServer.close(() => resolve()))]);
});
beforeEach(() => {
  api.reset();
  proxy.relayed.length = 0;
  proxy.requireAuth = undefined;
});

const apiPort = (): string => new URL(api.url).port;

function serveGithub(): void {
  api.on("GET", "/api/v3/orgs/acme/repos", { body: [githubRepo("acme", "a"), githubRepo("acme", "b")] });
  api.on("GET", "/api/v3/repos/acme/*/branches/main", (req) => ({ body: githubBranch("main", sha(req.path)) }));
}

function withProxy(url: string, noProxy = ""): ReturnType<typeof harness> {
  return harness({ extra: { transport: proxyTransport({ url, noProxy }) } });
}

describe("SCM requests through --scm-proxy-url", () => {
  it("sends plain-HTTP requests to the proxy in absolute form, conditional requests included", async () => {
    serveGithub();
    const h = withProxy(proxy.url);
    const gen = createScmProviderGenerator(h.services);
    const spec = { github: { organization: "acme", api: `http://scm.test:${apiPort()}` } };
    const first = await gen.generate(spec, appSet([]), h.ctx);
    expect(await gen.generate(spec, appSet([]), h.ctx)).toEqual(first);
    expect(first.map((p) => p["repository"])).toEqual(["a", "b"]);
    expect(proxy.relayed).toHaveLength(4);
    expect(proxy.relayed[0]).toMatchObject({ method: "GET", target: `http://scm.test:${apiPort()}/api/v3/orgs/acme/repos?per_page=100` });
    expect(api.seen.every((s) => s.headers.host === `scm.test:${apiPort()}`)).toBe(true);
    expect(api.seen[3]!.headers["if-none-match"]).toMatch(/^"/);
  });

  it("tunnels HTTPS through CONNECT with TLS end to end", async () => {
    const h = withProxy(proxy.url);
    const got = await createScmProviderGenerator(h.services).generate(
      { gitlab: { group: "g", api: `https://scm.test:${String(tlsPort)}`, insecure: true } },
      appSet([]),
      h.ctx,
    );
    expect(got).toHaveLength(1);
    expect(proxy.relayed.map((r) => `${r.method} ${r.target}`)).toEqual([
      `CONNECT scm.test:${String(tlsPort)}`,
      `CONNECT scm.test:${String(tlsPort)}`,
    ]);
  });

  it("still checks the provider's certificate inside the tunnel", async () => {
    const h = harness({ extra: { transport: proxyTransport({ url: proxy.url, noProxy: "" }), rootCa: cert } });
    const run = createScmProviderGenerator(h.services).generate(
      { gitlab: { group: "g", api: `https://scm.test:${String(tlsPort)}` } },
      appSet([]),
      h.ctx,
    );
    await expect(run).rejects.toThrow(/Hostname\/IP does not match certificate's altnames/);
    expect(proxy.relayed).toHaveLength(1);
  });

  it("sends the proxy URL's credentials as Proxy-Authorization and never to the provider", async () => {
    serveGithub();
    proxy.requireAuth = `Basic ${Buffer.from("me:p@ss").toString("base64")}`;
    const h = withProxy(proxy.url.replace("http://", "http://me:p%40ss@"));
    await createScmProviderGenerator(h.services).generate(
      { github: { organization: "acme", api: `http://scm.test:${apiPort()}` } },
      appSet([]),
      h.ctx,
    );
    expect(proxy.relayed.every((r) => r.auth === proxy.requireAuth)).toBe(true);
    expect(api.seen.every((s) => s.headers["proxy-authorization"] === undefined)).toBe(true);
  });

  it("reports a refused CONNECT", async () => {
    proxy.requireAuth = "Basic nope";
    const h = withProxy(proxy.url);
    const run = createScmProviderGenerator(h.services).generate(
      { gitlab: { group: "g", api: `https://scm.test:${String(tlsPort)}`, insecure: true } },
      appSet([]),
      h.ctx,
    );
    await expect(run).rejects.toThrow(/SCM proxy 127\.0\.0\.1:\d+ refused CONNECT scm\.test:\d+: 407/);
  });

  it("sends loopback providers direct", async () => {
    serveGithub();
    const h = withProxy(proxy.url);
    await createScmProviderGenerator(h.services).generate({ github: { organization: "acme", api: api.url } }, appSet([]), h.ctx);
    expect(proxy.relayed).toHaveLength(0);
    expect(api.seen).toHaveLength(3);
  });
});
