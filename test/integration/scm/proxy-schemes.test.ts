/**
 * `--scm-proxy-url` with each proxy kind it accepts, against real local proxies: an HTTPS proxy
 * (TLS to the proxy itself, its certificate from a private CA made with openssl), a SOCKS5 proxy,
 * and the plain HTTP proxy, with SCM API stand-ins over HTTP and HTTPS behind them. Every proxy
 * connects `scm.test` to 127.0.0.1, so a request for it only works when it went through the proxy.
 * The services are built as the controller builds them, from its flags.
 */
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createScmProviderGenerator } from "../../../src/generators/scm-provider.js";
import { proxyTransport } from "../../../src/scm/proxy.js";
import { nodeTransport, type Transport } from "../../../src/scm/transport.js";
import type { ScmServices } from "../../../src/scm/services.js";
import { githubBranch, githubRepo, sha } from "../../fixtures/scm/payloads.js";
import { appSet } from "../../unit/generators/builders.js";
import { harness } from "../../unit/scm/support.js";
import { TempDirs } from "../support/git-repos.js";
import { FakeProxy } from "../support/scm-proxy-server.js";
import { ControllerScm } from "../support/scm-controller.js";
import { FakeApi } from "../support/scm-server.js";
import { Socks5Proxy } from "../support/socks5-server.js";
import { makeTestCa, type TestCa } from "../support/test-ca.js";

const temp = new TempDirs();
let ca: TestCa;
let caFile = "";
const plainApi = new FakeApi();
let tlsApi: FakeApi;
const httpProxy = new FakeProxy();
let httpsProxy: FakeProxy;
const socks = new Socks5Proxy();
const controller = new ControllerScm();

beforeAll(async () => {
  const dir = temp.make("appset-scm-ca-");
  ca = makeTestCa(dir, ["localhost", "scm.test"]);
  caFile = join(dir, "ca.crt");
  const cert = { cert: ca.serverCert, key: ca.serverKey };
  tlsApi = new FakeApi(cert);
  httpsProxy = new FakeProxy(cert);
  await Promise.all([plainApi.start(), tlsApi.start(), httpProxy.start(), httpsProxy.start(), socks.start()]);
});
afterAll(async () => {
  await Promise.all([plainApi.stop(), tlsApi.stop(), httpProxy.stop(), httpsProxy.stop(), socks.stop()]);
  await controller.close();
  temp.cleanup();
});
beforeEach(() => {
  for (const api of [plainApi, tlsApi]) {
    api.reset();
    api.on("GET", "/api/v3/orgs/acme/repos", { body: [githubRepo("acme", "a"), githubRepo("acme", "b")] });
    api.on("GET", "/api/v3/repos/acme/*/branches/main", (req) => ({ body: githubBranch("main", sha(req.path)) }));
  }
  httpProxy.relayed.length = 0;
  httpsProxy.relayed.length = 0;
  socks.tunnels.length = 0;
  socks.requireAuth = undefined;
});

/** `scm.test` at the port of `api`, over its scheme. */
const scmTest = (api: FakeApi): string => api.url.replace("127.0.0.1", "scm.test");

/** The repositories the SCM Provider generator lists for GitHub organisation acme at `api`. */
async function listed(services: ScmServices, api: string): Promise<unknown[]> {
  const gen = createScmProviderGenerator(services);
  const got = await gen.generate({ github: { organization: "acme", api } }, appSet([]), harness().ctx);
  return got.map((p) => p["repository"]);
}

describe("an https:// SCM proxy", () => {
  it("tunnels HTTPS providers through CONNECT, trusting --scm-root-ca-path for the proxy and for the provider", async () => {
    const services = controller.services(["--scm-proxy-url", httpsProxy.url, "--scm-root-ca-path", caFile]);
    expect(await listed(services, scmTest(tlsApi))).toEqual(["a", "b"]);
    const authority = new URL(scmTest(tlsApi)).host;
    expect(httpsProxy.relayed.map((r) => `${r.method} ${r.target}`)).toEqual(Array(3).fill(`CONNECT ${authority}`));
    expect(tlsApi.seen.map((s) => s.headers.host)).toEqual(Array(3).fill(authority));
  });

  it("sends plain-HTTP providers to it in absolute form over TLS", async () => {
    const services = controller.services(["--scm-proxy-url", httpsProxy.url, "--scm-root-ca-path", caFile]);
    expect(await listed(services, scmTest(plainApi))).toEqual(["a", "b"]);
    expect(httpsProxy.relayed[0]).toMatchObject({ method: "GET", target: `${scmTest(plainApi)}/api/v3/orgs/acme/repos?per_page=100` });
    expect(plainApi.seen).toHaveLength(3);
  });

  it("refuses a proxy whose certificate no trusted CA signed", async () => {
    const services = controller.services(["--scm-proxy-url", httpsProxy.url]);
    await expect(listed(services, scmTest(plainApi))).rejects.toThrow(/unable to verify the first certificate/);
    expect(httpsProxy.relayed).toHaveLength(0);
  });

  it("sends the proxy URL's credentials to the proxy only", async () => {
    httpsProxy.requireAuth = `Basic ${Buffer.from("me:p@ss").toString("base64")}`;
    try {
      const url = httpsProxy.url.replace("https://", "https://me:p%40ss@");
      const services = controller.services(["--scm-proxy-url", url, "--scm-root-ca-path", caFile]);
      expect(await listed(services, scmTest(tlsApi))).toEqual(["a", "b"]);
      expect(httpsProxy.relayed.every((r) => r.auth === httpsProxy.requireAuth)).toBe(true);
      expect(tlsApi.seen.every((s) => s.headers["proxy-authorization"] === undefined)).toBe(true);
    } finally {
      httpsProxy.requireAuth = undefined;
    }
  });
});

describe("socks5:// and socks5h:// SCM proxies", () => {
  it.each(["socks5", "socks5h"])(
    "%s:// hands the host name to the proxy and checks the provider with --scm-root-ca-path",
    async (scheme) => {
      const services = controller.services(["--scm-proxy-url", socks.url.replace("socks5:", `${scheme}:`), "--scm-root-ca-path", caFile]);
      expect(await listed(services, scmTest(tlsApi))).toEqual(["a", "b"]);
      const port = Number(new URL(tlsApi.url).port);
      expect(socks.tunnels).toEqual(Array(3).fill({ addressType: "domain", host: "scm.test", port, user: undefined }));
    },
  );

  it("carries plain-HTTP requests in origin form", async () => {
    const services = controller.services(["--scm-proxy-url", socks.url]);
    expect(await listed(services, scmTest(plainApi))).toEqual(["a", "b"]);
    expect(socks.tunnels).toHaveLength(3);
    expect(plainApi.seen[0]).toMatchObject({ path: "/api/v3/orgs/acme/repos", headers: { host: new URL(scmTest(plainApi)).host } });
  });

  it("still checks the provider's certificate inside the tunnel", async () => {
    const services = controller.services(["--scm-proxy-url", socks.url]);
    await expect(listed(services, scmTest(tlsApi))).rejects.toThrow(/unable to verify the first certificate/);
    expect(socks.tunnels).toHaveLength(1);
  });

  it("authenticates with the proxy URL's username and password", async () => {
    socks.requireAuth = { user: "me", password: "p@ss" };
    const good = controller.services(["--scm-proxy-url", socks.url.replace("socks5://", "socks5://me:p%40ss@")]);
    expect(await listed(good, scmTest(plainApi))).toEqual(["a", "b"]);
    expect(socks.tunnels.every((t) => t.user === "me")).toBe(true);
    const bad = controller.services(["--scm-proxy-url", socks.url.replace("socks5://", "socks5://me:wrong@")]);
    await expect(listed(bad, scmTest(plainApi))).rejects.toThrow(/authentication failed/i);
  });
});

/** Straight to the provider, `scm.test` resolved to 127.0.0.1 as the proxies resolve it. */
const localDirect: Transport = (req) => {
  const url = new URL(req.url);
  const host = url.host;
  url.hostname = "127.0.0.1";
  return nodeTransport({ ...req, url: url.href, headers: { ...req.headers, Host: host } });
};

describe("--scm-no-proxy with each proxy kind", () => {
  it.each([
    { kind: "http", url: () => httpProxy.url, relays: () => httpProxy.relayed.length },
    { kind: "https", url: () => httpsProxy.url, relays: () => httpsProxy.relayed.length },
    { kind: "socks5", url: () => socks.url, relays: () => socks.tunnels.length },
  ])("sends a listed host past the $kind proxy, and the rest through it", async (row) => {
    const via = (noProxy: string): ScmServices =>
      harness({ extra: { transport: proxyTransport({ url: row.url(), noProxy }, localDirect), rootCa: ca.caCert } }).services;
    expect(await listed(via("scm.test"), scmTest(plainApi))).toEqual(["a", "b"]);
    expect(row.relays()).toBe(0);
    expect(plainApi.seen).toHaveLength(3);
    expect(await listed(via("other.test"), scmTest(plainApi))).toEqual(["a", "b"]);
    expect(row.relays()).toBeGreaterThan(0);
  });
});

describe("a proxy URL of another scheme", () => {
  it("fails the requests that would use it with the schemes --scm-proxy-url accepts, and leaves bypassed hosts alone", async () => {
    const services = controller.services(["--scm-proxy-url", "ftp://proxy.corp:21"]);
    await expect(listed(services, scmTest(plainApi))).rejects.toThrow(
      'unsupported SCM proxy scheme "ftp" in --scm-proxy-url: use one of http://, https://, socks5://, socks5h://',
    );
    expect(await listed(services, plainApi.url)).toEqual(["a", "b"]);
  });
});
