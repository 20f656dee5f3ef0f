/**
 * `--scm-proxy-url` / `--scm-no-proxy` against a real local forward proxy that resolves every host
 * to 127.0.0.1: a provider addressed as `scm.test` is only reachable through it.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { githubBranch, githubRepo, gitlabProject, sha } from "../../test/fixtures/scm/payloads.js";
import { appSet } from "../../test/unit/generators/support.js";
import { FakeProxy } from "../../test/unit/scm/proxy-server.js";
import { FakeApi } from "../../test/unit/scm/server.js";
import { harness } from "../../test/unit/scm/support.js";
import { createScmProviderGenerator } from "../generators/scm-provider.js";
import { proxyFor, proxyTransport } from "./proxy.js";

const api = new FakeApi();
const proxy = new FakeProxy();
const cert = readFileSync(new URL("../../test/fixtures/scm/tls/server.crt", import.meta.url), "utf8");
const key = readFileSync(new URL("../../test/fixtures/scm/tls/server.key", import.meta.url), "utf8");
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
    const got = await createScmProviderGenerator(h.services).generate({ gitlab: { group: "g", api: `https://scm.test:${String(tlsPort)}`, insecure: true } }, appSet([]), h.ctx);
    expect(got).toHaveLength(1);
    expect(proxy.relayed.map((r) => `${r.method} ${r.target}`)).toEqual([`CONNECT scm.test:${String(tlsPort)}`, `CONNECT scm.test:${String(tlsPort)}`]);
  });

  it("still checks the provider's certificate inside the tunnel", async () => {
    const h = harness({ extra: { transport: proxyTransport({ url: proxy.url, noProxy: "" }), rootCa: cert } });
    const run = createScmProviderGenerator(h.services).generate({ gitlab: { group: "g", api: `https://scm.test:${String(tlsPort)}` } }, appSet([]), h.ctx);
    await expect(run).rejects.toThrow(/Hostname\/IP does not match certificate's altnames/);
    expect(proxy.relayed).toHaveLength(1);
  });

  it("sends the proxy URL's credentials as Proxy-Authorization and never to the provider", async () => {
    serveGithub();
    proxy.requireAuth = `Basic ${Buffer.from("me:p@ss").toString("base64")}`;
    const h = withProxy(proxy.url.replace("http://", "http://me:p%40ss@"));
    await createScmProviderGenerator(h.services).generate({ github: { organization: "acme", api: `http://scm.test:${apiPort()}` } }, appSet([]), h.ctx);
    expect(proxy.relayed.every((r) => r.auth === proxy.requireAuth)).toBe(true);
    expect(api.seen.every((s) => s.headers["proxy-authorization"] === undefined)).toBe(true);
  });

  it("reports a refused CONNECT", async () => {
    proxy.requireAuth = "Basic nope";
    const h = withProxy(proxy.url);
    const run = createScmProviderGenerator(h.services).generate({ gitlab: { group: "g", api: `https://scm.test:${String(tlsPort)}`, insecure: true } }, appSet([]), h.ctx);
    await expect(run).rejects.toThrow(/SCM proxy 127\.0\.0\.1:\d+ refused CONNECT scm\.test:\d+: 407/);
  });

  it("refuses a proxy URL that is not http", async () => {
    const h = withProxy("https://proxy.corp:3128");
    const run = createScmProviderGenerator(h.services).generate({ github: { organization: "acme", api: `http://scm.test:${apiPort()}` } }, appSet([]), h.ctx);
    await expect(run).rejects.toThrow("unsupported SCM proxy scheme https: only http proxies are supported");
  });

  it("sends loopback providers direct", async () => {
    serveGithub();
    const h = withProxy(proxy.url);
    await createScmProviderGenerator(h.services).generate({ github: { organization: "acme", api: api.url } }, appSet([]), h.ctx);
    expect(proxy.relayed).toHaveLength(0);
    expect(api.seen).toHaveLength(3);
  });
});

describe("which requests --scm-no-proxy sends direct", () => {
  it.each([
    // name; target; no-proxy list; proxied?
    { name: "no list proxies everything remote", target: "https://api.github.com/x", noProxy: "", proxied: true },
    { name: "a star bypasses everything", target: "https://api.github.com/x", noProxy: "*", proxied: false },
    { name: "a domain matches itself", target: "https://github.com/x", noProxy: "github.com", proxied: false },
    { name: "a domain matches its subdomains", target: "https://api.github.com/x", noProxy: "example.org, github.com", proxied: false },
    { name: "a domain does not match a longer name that merely ends the same", target: "https://notgithub.com/x", noProxy: "github.com", proxied: true },
    { name: "a leading dot matches subdomains only", target: "https://github.com/x", noProxy: ".github.com", proxied: true },
    { name: "a star-dot entry matches subdomains", target: "https://api.github.com/x", noProxy: "*.github.com", proxied: false },
    { name: "a port must match when given", target: "https://ghe.corp:8443/x", noProxy: "ghe.corp:443", proxied: true },
    { name: "the default port counts as the port", target: "https://ghe.corp/x", noProxy: "ghe.corp:443", proxied: false },
    { name: "an IP matches exactly", target: "http://10.1.2.3/x", noProxy: "10.1.2.3", proxied: false },
    { name: "a CIDR matches addresses inside it", target: "http://10.1.2.3/x", noProxy: "10.0.0.0/8", proxied: false },
    { name: "a CIDR does not match addresses outside it", target: "http://11.1.2.3/x", noProxy: "10.0.0.0/8", proxied: true },
    { name: "an IPv6 CIDR works", target: "http://[fd00::5]/x", noProxy: "fd00::/8", proxied: false },
    { name: "names are compared case-insensitively", target: "https://GHE.Corp/x", noProxy: "ghe.CORP", proxied: false },
    { name: "localhost is never proxied", target: "http://localhost:8080/x", noProxy: "", proxied: false },
    { name: "loopback addresses are never proxied", target: "http://127.0.0.2/x", noProxy: "", proxied: false },
  ])("$name", ({ target, noProxy, proxied }) => {
    expect(proxyFor(new URL(target), { url: "http://proxy.corp:3128", noProxy }) !== undefined).toBe(proxied);
  });

  it("reads a proxy without a scheme as http and no proxy URL as none", () => {
    expect(proxyFor(new URL("https://github.com"), { url: "proxy.corp:3128", noProxy: "" })?.href).toBe("http://proxy.corp:3128/");
    expect(proxyFor(new URL("https://github.com"), { url: "", noProxy: "" })).toBeUndefined();
  });
});
