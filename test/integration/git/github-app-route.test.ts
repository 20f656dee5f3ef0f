/**
 * A Git repository's GitHub App token exchange goes the repository's way, as Argo CD sends it
 * through the repository's HTTP client: against a real HTTPS GitHub API stand-in signed by a private
 * CA, the CA bundle of the API host in the certificates directory (Argo CD's `argocd-tls-certs-cm`),
 * `insecure`, the client certificate, and a real forward proxy (the repository's `proxy`/`noProxy`,
 * else the process's `HTTPS_PROXY`/`NO_PROXY`). The proxy resolves every host to 127.0.0.1, so the
 * API addressed as `ghe.test` is only reachable through it.
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { githubAppTokens } from "../../../src/cli/git.js";
import { SystemClock } from "../../../src/clock/index.js";
import { githubAppCredsExpirationMs, processProxy, type ProcessProxy } from "../../../src/config/index.js";
import { credentialsFromSecrets } from "../../../src/git/credentials.js";
import { GitRepoReader, type GitHubAppTokenSource } from "../../../src/git/reader.js";
import { ScmHttpClient } from "../../../src/scm/http.js";
import { serveGithubAppApi, type GithubAppApi } from "../support/github-app-api.js";
import { serveGitHttp, type GitHttpServer } from "../support/git-http.js";
import { git, gitEnv, makeRepo, repoSecret, TempDirs } from "../support/git-repos.js";
import { FakeProxy } from "../support/scm-proxy-server.js";
import { makeTestCa, type TestCa } from "../support/test-ca.js";

const TOKEN = "ghs_routed";
const temp = new TempDirs();
const proxy = new FakeProxy();
const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
let ca: TestCa;
let api: GithubAppApi;
let mtlsApi: GithubAppApi;
let server: GitHttpServer;
let head = "";

beforeAll(async () => {
  const work = makeRepo(temp, { "apps/a/config.json": '{"a":1}' });
  const root = temp.make("appset-served-");
  mkdirSync(join(root, "org"));
  git(root, "clone", "-q", "--bare", work, join(root, "org", "repo.git"));
  head = git(work, "rev-parse", "HEAD").trim();
  ca = makeTestCa(temp.make("appset-ca-"), ["ghe.test", "localhost"]);
  const publicKeyPem = keys.publicKey.export({ type: "spki", format: "pem" }).toString();
  const tls = { cert: ca.serverCert, key: ca.serverKey };
  api = await serveGithubAppApi({ publicKeyPem, token: TOKEN, tls });
  mtlsApi = await serveGithubAppApi({
    publicKeyPem,
    token: TOKEN,
    tls: { ...tls, ca: ca.caCert, requestCert: true, rejectUnauthorized: true },
  });
  server = await serveGitHttp(root, { username: "x-access-token", password: TOKEN });
  await proxy.start();
});
afterAll(async () => {
  await Promise.all([api.stop(), mtlsApi.stop(), server.stop(), proxy.stop()]);
  temp.cleanup();
});
beforeEach(() => {
  proxy.relayed.length = 0;
  proxy.requireAuth = undefined;
});

const NO_PROXY_ENV: ProcessProxy = processProxy({});

/** The repository Secret's keys of a GitHub App whose API is at `apiBase`. */
function app(apiBase: string, more: Record<string, string> = {}): Record<string, string> {
  return {
    githubAppID: "123",
    githubAppInstallationID: "456",
    githubAppPrivateKey: keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    githubAppEnterpriseBaseUrl: `${apiBase}/api/v3`,
    ...more,
  };
}

/** A certificates directory holding the CA bundle for each host named. */
function certsFor(...hosts: string[]): string {
  const dir = temp.make("appset-tls-certs-");
  for (const h of hosts) writeFileSync(join(dir, h), ca.caCert);
  return dir;
}

function tokens(env: ProcessProxy = NO_PROXY_ENV): GitHubAppTokenSource {
  return githubAppTokens(new ScmHttpClient({ clock: new SystemClock() }), { proxy: env, maxAgeMs: githubAppCredsExpirationMs({}) });
}

function reader(data: Record<string, string>, o: { certsDir: string; env?: ProcessProxy }): { r: GitRepoReader; url: string } {
  const url = `${server.url}/org/repo.git`;
  const r = new GitRepoReader({
    localRepositories: true,
    cacheDir: temp.make("appset-cache-"),
    env: gitEnv(),
    credentials: credentialsFromSecrets([repoSecret(url, data)]),
    revisionCacheMs: 0,
    tlsCertsDir: o.certsDir,
    githubAppToken: tokens(o.env),
  });
  return { r, url };
}

const connects = (): string[] => proxy.relayed.filter((r) => r.method === "CONNECT").map((r) => r.target);

describe("the GitHub App token exchange over TLS", () => {
  it("refuses the API's certificate until the CA of its host is in the certificates directory", async () => {
    const certsDir = certsFor();
    const { r, url } = reader(app(`https://localhost:${String(api.port)}`), { certsDir });
    const before = api.exchanges.length;
    await expect(r.resolveRevision(url, "HEAD")).rejects.toThrow(/failed to get a GitHub App installation token.*certificate/);
    writeFileSync(join(certsDir, "localhost"), ca.caCert);
    await expect(r.resolveRevision(url, "HEAD")).resolves.toBe(head);
    expect(api.exchanges.slice(before)).toEqual(["123/456"]);
  });

  it("skips verification for an insecure repository", async () => {
    const { r, url } = reader(app(`https://localhost:${String(api.port)}`, { insecure: "true" }), { certsDir: certsFor() });
    await expect(r.resolveRevision(url, "HEAD")).resolves.toBe(head);
  });

  it("presents the repository's client certificate to the API", async () => {
    const base = `https://localhost:${String(mtlsApi.port)}`;
    const without = reader(app(base), { certsDir: certsFor("localhost") });
    await expect(without.r.resolveRevision(without.url, "HEAD")).rejects.toThrow(/failed to get a GitHub App installation token/);
    const cert = { tlsClientCertData: ca.clientCert, tlsClientCertKey: ca.clientKey };
    const withCert = reader(app(base, cert), { certsDir: certsFor("localhost") });
    await expect(withCert.r.resolveRevision(withCert.url, "HEAD")).resolves.toBe(head);
    expect(mtlsApi.exchanges).toEqual(["123/456"]);
  });
});

describe("the GitHub App token exchange through a proxy", () => {
  const base = (): string => `https://ghe.test:${String(api.port)}`;

  it("tunnels through the repository's proxy, checking the API's certificate inside the tunnel", async () => {
    const { r, url } = reader(app(base(), { proxy: proxy.url }), { certsDir: certsFor("ghe.test") });
    await expect(r.resolveRevision(url, "HEAD")).resolves.toBe(head);
    expect(connects()).toEqual([`ghe.test:${String(api.port)}`]);
    const untrusted = reader(app(base(), { proxy: proxy.url }), { certsDir: certsFor() });
    await expect(untrusted.r.resolveRevision(untrusted.url, "HEAD")).rejects.toThrow(/certificate/);
  });

  it("goes direct for a host in the repository's noProxy", async () => {
    const { r, url } = reader(app(base(), { proxy: proxy.url, noProxy: "example.com,ghe.test" }), { certsDir: certsFor("ghe.test") });
    await expect(r.resolveRevision(url, "HEAD")).rejects.toThrow(/failed to get a GitHub App installation token.*(ENOTFOUND|EAI_AGAIN)/);
    expect(connects()).toEqual([]);
  });

  it("names the repository's proxy when it refuses the tunnel", async () => {
    proxy.requireAuth = "Basic nope";
    const { r, url } = reader(app(base(), { proxy: proxy.url }), { certsDir: certsFor("ghe.test") });
    await expect(r.resolveRevision(url, "HEAD")).rejects.toThrow(
      /proxy 127\.0\.0\.1:\d+ \(the repository Secret's proxy\) refused CONNECT ghe\.test:\d+: 407/,
    );
  });

  it("uses the process's HTTPS_PROXY and NO_PROXY when the repository has no proxy", async () => {
    const env = { ...NO_PROXY_ENV, httpsProxy: proxy.url };
    const { r, url } = reader(app(base()), { certsDir: certsFor("ghe.test"), env });
    await expect(r.resolveRevision(url, "HEAD")).resolves.toBe(head);
    expect(connects()).toEqual([`ghe.test:${String(api.port)}`]);
    const bypass = reader(app(base()), { certsDir: certsFor("ghe.test"), env: { ...env, noProxy: ".test" } });
    await expect(bypass.r.resolveRevision(bypass.url, "HEAD")).rejects.toThrow(/ENOTFOUND|EAI_AGAIN/);
    expect(connects()).toHaveLength(1);
  });
});
