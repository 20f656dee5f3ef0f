/**
 * Repository access beyond username and password, against real local servers: HTTPS verified by a
 * CA from the certificates directory (Argo CD's `argocd-tls-certs-cm`), client certificates, basic
 * auth sent on challenge or forced, a GitHub App installation token exchanged with a local API
 * server, and a repository's own HTTP proxy (plain HTTP relayed, HTTPS tunnelled with CONNECT).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicKey, createVerify, generateKeyPairSync } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { githubAppTokens } from "../../../src/cli/git.js";
import { SystemClock } from "../../../src/clock/index.js";
import { githubAppCredsExpirationMs, processProxy } from "../../../src/config/index.js";
import { credentialsFromSecrets } from "../../../src/git/credentials.js";
import { GitRepoReader, type GitHubAppTokenSource, type GitRepoReaderOptions } from "../../../src/git/reader.js";
import { ScmHttpClient } from "../../../src/scm/http.js";
import { git, gitEnv, makeRepo, TempDirs, repoSecret } from "../support/git-repos.js";
import { serveGitHttp, type GitHttpServer } from "../support/git-http.js";
import { FakeProxy } from "../support/scm-proxy-server.js";
import { makeTestCa, type TestCa } from "../support/test-ca.js";

const temp = new TempDirs();
afterAll(() => temp.cleanup());

let root = "";
let head = "";
beforeAll(() => {
  const work = makeRepo(temp, { "apps/a/config.json": '{"a":1}' });
  root = temp.make("appset-served-");
  git(root, "clone", "-q", "--bare", work, join(root, "repo.git"));
  head = git(work, "rev-parse", "HEAD").trim();
});

function reader(url: string, data: Record<string, string>, more: Partial<GitRepoReaderOptions> = {}): GitRepoReader {
  return new GitRepoReader({
    localRepositories: true,
    cacheDir: temp.make("appset-cache-"),
    env: gitEnv(),
    credentials: credentialsFromSecrets([repoSecret(url, data)]),
    revisionCacheMs: 0,
    ...more,
  });
}

describe("HTTPS with a private CA and client certificates", () => {
  let ca: TestCa;
  let server: GitHttpServer;
  let mtls: GitHttpServer;
  let certsDir = "";
  beforeAll(async () => {
    ca = makeTestCa(temp.make("appset-ca-"));
    certsDir = temp.make("appset-tls-certs-");
    const tls = { key: ca.serverKey, cert: ca.serverCert };
    server = await serveGitHttp(root, undefined, { tls });
    mtls = await serveGitHttp(root, undefined, { tls: { ...tls, ca: ca.caCert, requestCert: true, rejectUnauthorized: true } });
  });
  afterAll(async () => {
    await server.stop();
    await mtls.stop();
  });

  it("is refused while no CA for the host is in the certificates directory, and read once one is (looked up live)", async () => {
    const url = `${server.url}/repo.git`;
    const r = reader(url, {}, { tlsCertsDir: certsDir });
    await expect(r.resolveRevision(url, "HEAD")).rejects.toThrow(/SSL certificate problem|certificate/);
    writeFileSync(join(certsDir, "localhost"), ca.caCert);
    try {
      await expect(r.resolveRevision(url, "HEAD")).resolves.toBe(head);
      const tree = await r.listTree(url, head);
      expect(tree.map((e) => e.path)).toContain("apps/a/config.json");
    } finally {
      rmSync(join(certsDir, "localhost"));
    }
  });

  it("skips verification for an insecure repository", async () => {
    const url = `${server.url}/repo.git`;
    await expect(reader(url, { insecure: "true" }, { tlsCertsDir: certsDir }).resolveRevision(url, "HEAD")).resolves.toBe(head);
  });

  it("presents the client certificate of the repository Secret", async () => {
    const url = `${mtls.url}/repo.git`;
    const dir = temp.make("appset-tls-certs-");
    writeFileSync(join(dir, "localhost"), ca.caCert);
    await expect(reader(url, {}, { tlsCertsDir: dir }).resolveRevision(url, "HEAD")).rejects.toThrow(/git ls-remote/);
    const withCert = reader(url, { tlsClientCertData: ca.clientCert, tlsClientCertKey: ca.clientKey }, { tlsCertsDir: dir });
    await expect(withCert.resolveRevision(url, "HEAD")).resolves.toBe(head);
  });
});

describe("basic auth on challenge or forced (forceHttpBasicAuth)", () => {
  const user = { username: "alice", password: "s3cret" };
  let challenging: GitHttpServer;
  let silent: GitHttpServer;
  beforeAll(async () => {
    challenging = await serveGitHttp(root, user);
    silent = await serveGitHttp(root, user, { noChallenge: true });
  });
  afterAll(async () => {
    await challenging.stop();
    await silent.stop();
  });

  it("sends the credentials only once the server challenges", async () => {
    const url = `${challenging.url}/repo.git`;
    await expect(reader(url, user).resolveRevision(url, "HEAD")).resolves.toBe(head);
    expect(challenging.authorizations[0]).toBe("");
    expect(challenging.authorizations.at(-1)).toBe(`Basic ${Buffer.from("alice:s3cret").toString("base64")}`);
  });

  it("reaches a server that never challenges only when basic auth is forced", async () => {
    const url = `${silent.url}/repo.git`;
    await expect(reader(url, user).resolveRevision(url, "HEAD")).rejects.toThrow(/git ls-remote/);
    const before = silent.authorizations.length;
    await expect(reader(url, { ...user, forceHttpBasicAuth: "true" }).resolveRevision(url, "HEAD")).resolves.toBe(head);
    expect(silent.authorizations[before]).toMatch(/^Basic /);
  });

  it("never shows the password in an error", async () => {
    const url = `${challenging.url}/repo.git`;
    const err = await reader(url, { username: "alice", password: "wrong-pass" })
      .resolveRevision(url, "HEAD")
      .catch((e: unknown) => e);
    expect(String(err)).not.toContain("wrong-pass");
  });
});

/** A GitHub API stand-in: checks the App's JWT and hands out installation tokens. */
async function serveGithubApi(publicKeyPem: string, token: string): Promise<{ url: string; exchanges: string[]; stop(): Promise<void> }> {
  const exchanges: string[] = [];
  const server: Server = createServer((req, res) => {
    const jwt = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    const [h = "", b = "", sig = ""] = jwt.split(".");
    const valid = createVerify("RSA-SHA256").update(`${h}.${b}`).verify(createPublicKey(publicKeyPem), Buffer.from(sig, "base64url"));
    const m = /^\/api\/v3\/app\/installations\/(\d+)\/access_tokens$/.exec(req.url ?? "");
    if (!valid || req.method !== "POST" || m === null) {
      res.writeHead(401, { "Content-Type": "application/json" }).end('{"message":"Bad credentials"}');
      return;
    }
    const claims = JSON.parse(Buffer.from(b, "base64url").toString("utf8")) as { iss: unknown };
    exchanges.push(`${String(claims.iss)}/${m[1]!}`);
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    res.writeHead(201, { "Content-Type": "application/json" }).end(JSON.stringify({ token, expires_at: expires }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/api/v3`,
    exchanges,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token exchange as the controller wires it, with no proxy in the environment. */
function appTokens(): GitHubAppTokenSource {
  return githubAppTokens(new ScmHttpClient({ clock: new SystemClock() }), {
    proxy: processProxy({}),
    maxAgeMs: githubAppCredsExpirationMs({}),
  });
}

describe("GitHub App credentials", () => {
  it("exchange the App's JWT for an installation token and read as x-access-token, reusing the token", async () => {
    const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const api = await serveGithubApi(keys.publicKey.export({ type: "spki", format: "pem" }).toString(), "ghs_installation");
    const server = await serveGitHttp(root, { username: "x-access-token", password: "ghs_installation" });
    try {
      const url = `${server.url}/org/repo.git`;
      mkdirSync(join(root, "org"), { recursive: true });
      git(root, "clone", "-q", "--bare", join(root, "repo.git"), join(root, "org", "repo.git"));
      const app = {
        githubAppID: "123",
        githubAppInstallationID: "456",
        githubAppPrivateKey: keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
        githubAppEnterpriseBaseUrl: api.url,
      };
      const r = reader(url, app, { githubAppToken: appTokens() });
      await expect(r.resolveRevision(url, "HEAD")).resolves.toBe(head);
      await r.listTree(url, head);
      expect(api.exchanges).toEqual(["123/456"]);
      const wrong = reader(
        url,
        { ...app, githubAppInstallationID: "abc" },
        {
          githubAppToken: appTokens(),
        },
      );
      await expect(wrong.resolveRevision(url, "HEAD")).rejects.toThrow(/failed to get a GitHub App installation token/);
      await expect(reader(url, app).resolveRevision(url, "HEAD")).rejects.toThrow(/GitHub App credentials .* cannot be used/);
    } finally {
      await server.stop();
      await api.stop();
    }
  });
});

/** A forward HTTP proxy that counts what it relays. */
async function serveProxy(): Promise<{ url: string; relayed: string[]; stop(): Promise<void> }> {
  const relayed: string[] = [];
  const server: Server = createServer((req, res) => {
    relayed.push(req.url ?? "");
    const up = request(req.url ?? "", { method: req.method ?? "GET", headers: req.headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on("error", () => res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    relayed,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("a repository's proxy (proxy, noProxy)", () => {
  it("sends git through the repository's proxy unless its host is in noProxy", async () => {
    const proxy = await serveProxy();
    const server = await serveGitHttp(root);
    try {
      const url = `${server.url}/repo.git`;
      await expect(reader(url, { proxy: proxy.url }).resolveRevision(url, "HEAD")).resolves.toBe(head);
      expect(proxy.relayed.some((u) => u.startsWith(`${server.url}/repo.git/info/refs`))).toBe(true);
      const seen = proxy.relayed.length;
      await expect(reader(url, { proxy: proxy.url, noProxy: "127.0.0.1" }).resolveRevision(url, "HEAD")).resolves.toBe(head);
      expect(proxy.relayed.length).toBe(seen);
    } finally {
      await server.stop();
      await proxy.stop();
    }
  });

  it("tunnels HTTPS git through the proxy with CONNECT, verified by the CA of the certificates directory, unless noProxy names the host", async () => {
    // git.test resolves nowhere but in the proxy, which sends every host to 127.0.0.1.
    const ca = makeTestCa(temp.make("appset-ca-"), ["git.test", "localhost"]);
    const certsDir = temp.make("appset-tls-certs-");
    writeFileSync(join(certsDir, "git.test"), ca.caCert);
    writeFileSync(join(certsDir, "localhost"), ca.caCert);
    const server = await serveGitHttp(root, undefined, { tls: { key: ca.serverKey, cert: ca.serverCert } });
    const proxy = new FakeProxy();
    await proxy.start();
    try {
      const port = new URL(server.url).port;
      const url = `https://git.test:${port}/repo.git`;
      await expect(reader(url, { proxy: proxy.url }, { tlsCertsDir: certsDir }).resolveRevision(url, "HEAD")).resolves.toBe(head);
      const tree = await reader(url, { proxy: proxy.url }, { tlsCertsDir: certsDir }).listTree(url, head);
      expect(tree.map((e) => e.path)).toContain("apps/a/config.json");
      // Only tunnels: the proxy never saw a request line of git's, so never a path or a header.
      expect(proxy.relayed.length).toBeGreaterThan(0);
      expect(proxy.relayed.every((r) => r.method === "CONNECT" && r.target === `git.test:${port}`)).toBe(true);
      expect(server.requests.some((r) => r.startsWith("GET /repo.git/info/refs"))).toBe(true);

      // Without the CA the tunnelled TLS is refused: the certificate is checked end to end, not by the proxy.
      await expect(
        reader(url, { proxy: proxy.url }, { tlsCertsDir: temp.make("appset-tls-certs-") }).resolveRevision(url, "HEAD"),
      ).rejects.toThrow(/SSL certificate problem|certificate/);

      // noProxy: git connects itself, and the proxy sees nothing.
      const seen = proxy.relayed.length;
      const direct = `https://localhost:${port}/repo.git`;
      await expect(
        reader(direct, { proxy: proxy.url, noProxy: "localhost" }, { tlsCertsDir: certsDir }).resolveRevision(direct, "HEAD"),
      ).resolves.toBe(head);
      await expect(
        reader(url, { proxy: proxy.url, noProxy: "git.test" }, { tlsCertsDir: certsDir }).resolveRevision(url, "HEAD"),
      ).rejects.toThrow(/resolve|git ls-remote/);
      expect(proxy.relayed.length).toBe(seen);
    } finally {
      await server.stop();
      await proxy.stop();
    }
  });
});
