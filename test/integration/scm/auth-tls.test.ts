/**
 * GitHub App authentication against a local server that checks the JWT signature, and custom CA
 * certificates (`caRef`, `--scm-root-ca-path`, `insecure`) against a local HTTPS server with a
 * self-signed certificate. A missing App Secret, refused before any request, is in
 * src/scm/providers/github-app.test.ts.
 */
import { createVerify, generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { encodeSecretData, type Secret } from "../../../src/api/index.js";
import { createScmProviderGenerator } from "../../../src/generators/scm-provider.js";
import { githubBranch, githubRepo, gitlabProject, sha } from "../../fixtures/scm/payloads.js";
import { appSet } from "../../unit/generators/builders.js";
import { harness, scmSecret } from "../../unit/scm/support.js";
import { FakeApi } from "../support/scm-server.js";

const api = new FakeApi();
beforeAll(() => api.start());
afterAll(() => api.stop());
beforeEach(() => api.reset());

describe("GitHub App authentication", () => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const appSecret = (installation?: string): Secret => ({
    metadata: { name: "gh-app", namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "repo-creds" } },
    data: encodeSecretData({
      githubAppID: "1234",
      githubAppPrivateKey: pem,
      ...(installation ? { githubAppInstallationID: installation } : {}),
    }),
  });
  const verified = (auth: string | undefined): boolean => {
    const [h, b, s] = (auth ?? "").replace(/^Bearer /, "").split(".");
    const payload = JSON.parse(Buffer.from(b ?? "", "base64url").toString()) as { iss: number; exp: number; iat: number };
    const ok = createVerify("RSA-SHA256")
      .update(`${h ?? ""}.${b ?? ""}`)
      .verify(publicKey, Buffer.from(s ?? "", "base64url"));
    return ok && payload.iss === 1234 && payload.exp - payload.iat === 600;
  };

  it.each([
    // name; installation id in the Secret; calls expected before the listing
    {
      name: "exchanges a signed JWT for an installation token and reuses it",
      installation: "77",
      setup: ["POST /api/v3/app/installations/77/access_tokens"],
    },
    {
      name: "discovers the installation of the organisation when the Secret has none",
      installation: undefined,
      setup: ["GET /api/v3/orgs/acme/installation", "POST /api/v3/app/installations/77/access_tokens"],
    },
  ])("$name", async ({ installation, setup }) => {
    api.on("GET", "/api/v3/orgs/acme/installation", (req) =>
      verified(req.headers.authorization)
        ? { body: { id: 77, account: { login: "acme" } } }
        : { status: 401, body: { message: "bad JWT" } },
    );
    api.on("POST", "/api/v3/app/installations/77/access_tokens", (req) =>
      verified(req.headers.authorization)
        ? { status: 201, body: { token: "ghs_installation", expires_at: "2126-01-01T00:00:00Z" } }
        : { status: 401, body: { message: "bad JWT" } },
    );
    api.on("GET", "/api/v3/orgs/acme/repos", (req) =>
      req.headers.authorization === "Bearer ghs_installation" ? { body: [githubRepo("acme", "a")] } : { status: 401, body: {} },
    );
    api.on("GET", "/api/v3/repos/acme/a/branches/main", { body: githubBranch("main", sha("a")) });
    const h = harness({
      ports: { secrets: { getSecret: (name) => Promise.resolve(name === "gh-app" ? appSecret(installation) : undefined) } },
    });
    const gen = createScmProviderGenerator(h.services);
    const spec = { github: { organization: "acme", api: api.url, appSecretName: "gh-app" } };
    expect(await gen.generate(spec, appSet([]), h.ctx)).toHaveLength(1);
    expect(await gen.generate(spec, appSet([]), h.ctx)).toHaveLength(1);
    const calls = api.seen.map((s) => `${s.method} ${s.path}`);
    expect(calls.slice(0, setup.length)).toEqual(setup);
    expect(calls.filter((c) => c.startsWith("POST"))).toHaveLength(1);
  });
});

describe("custom CA certificates", () => {
  const cert = readFileSync(new URL("../../fixtures/scm/tls/server.crt", import.meta.url), "utf8");
  const key = readFileSync(new URL("../../fixtures/scm/tls/server.key", import.meta.url), "utf8");
  let server: Server;
  let url = "";
  beforeAll(async () => {
    server = createServer({ cert, key }, (req, res) => {
      const body = req.url?.startsWith("/api/v4/groups/") ? [gitlabProject("g", "p", 1)] : { name: "main", commit: { id: sha("p") } };
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `https://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each([
    // name; gitlab options; ConfigMaps; root CA; expected outcome
    { name: "an unknown issuer is refused", opts: {}, error: /self[- ]signed certificate/ },
    {
      name: "a caRef ConfigMap of the ApplicationSet namespace is trusted",
      opts: { caRef: { configMapName: "ca", key: "ca.crt" } },
      configMaps: { ca: { "ca.crt": cert } },
      ok: true,
    },
    { name: "the --scm-root-ca-path certificates are trusted", opts: {}, rootCa: cert, ok: true },
    { name: "insecure skips verification", opts: { insecure: true }, ok: true },
    {
      name: "a missing caRef key is named",
      opts: { caRef: { configMapName: "ca", key: "x" } },
      configMaps: { ca: {} },
      error: "error fetching CA certificates from ConfigMap: key x not found in ConfigMap ca",
    },
  ])("$name", async ({ opts, configMaps, rootCa, ok, error }) => {
    const h = harness({
      secrets: [scmSecret("t", { t: "x" })],
      configMaps: (configMaps ?? {}) as Record<string, Record<string, string>>,
      extra: rootCa === undefined ? {} : { rootCa },
    });
    const run = createScmProviderGenerator(h.services).generate({ gitlab: { group: "g", api: url, ...opts } }, appSet([]), h.ctx);
    if (ok === true) expect(await run).toHaveLength(1);
    else await expect(run).rejects.toThrow(error);
  });
});
