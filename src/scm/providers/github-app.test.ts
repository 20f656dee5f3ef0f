import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { appSet } from "../../../test/unit/generators/builders.js";
import { harness } from "../../../test/unit/scm/support.js";
import { FakeClock } from "../../clock/index.js";
import { createScmProviderGenerator } from "../../generators/scm-provider.js";
import { ScmHttpClient } from "../http.js";
import type { Transport } from "../transport.js";
import { githubAppToken } from "./github-app.js";
import { repositoryProxy, repositoryTls, REPOSITORY_PROXY_SETTING } from "./github-app-route.js";

// GitHub App authentication against a server checking the JWT is tested in
// test/integration/scm/auth-tls.test.ts; a Git repository's exchange over its own proxy and TLS
// settings in test/integration/git/github-app-route.test.ts.

describe("GitHub App authentication", () => {
  it("names a missing App Secret with Argo CD's message", async () => {
    const h = harness({ ports: { secrets: { getSecret: () => Promise.resolve(undefined) } } });
    await expect(
      createScmProviderGenerator(h.services).generate({ github: { organization: "acme", appSecretName: "nope" } }, appSet([]), h.ctx),
    ).rejects.toThrow("scm provider: error fetching Github app secret: no github app found for nope");
  });
});

const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const MINUTE = 60_000;

/** A client whose transport hands out a new token per exchange, valid for an hour from `clock`. */
function exchanging(clock: FakeClock): { http: ScmHttpClient; posts: string[] } {
  const posts: string[] = [];
  const transport: Transport = (req) => {
    posts.push(req.url);
    const body = { token: `ghs_${String(posts.length)}`, expires_at: new Date(clock.now() + 60 * MINUTE).toISOString() };
    return Promise.resolve({ status: 201, headers: {}, body: JSON.stringify(body) });
  };
  return { http: new ScmHttpClient({ clock, transport }), posts };
}

describe("githubAppToken's cache lifetime", () => {
  const app = { appId: "1", installationId: "2", privateKey };

  it("reuses a token no longer than the caller's lifetime", async () => {
    const clock = new FakeClock();
    const { http, posts } = exchanging(clock);
    const t = { http, provider: "github", baseUrl: "https://ghe.example.com/api/v3", headers: {} };
    expect(await githubAppToken(t, app, "org", 10 * MINUTE)).toBe("ghs_1");
    clock.advance(10 * MINUTE);
    expect(await githubAppToken(t, app, "org", 10 * MINUTE)).toBe("ghs_1");
    clock.advance(1);
    expect(await githubAppToken(t, app, "org", 10 * MINUTE)).toBe("ghs_2");
    expect(posts).toEqual(Array(2).fill("https://ghe.example.com/api/v3/app/installations/2/access_tokens"));
  });

  it("never uses a token within a minute of its expiry, whatever the lifetime", async () => {
    const clock = new FakeClock();
    const { http, posts } = exchanging(clock);
    const t = { http, provider: "github", baseUrl: "https://api.github.com", headers: {} };
    await githubAppToken(t, app, "org", 120 * MINUTE);
    clock.advance(59 * MINUTE - 1);
    expect(await githubAppToken(t, app, "org", 120 * MINUTE)).toBe("ghs_1");
    clock.advance(1);
    expect(await githubAppToken(t, app, "org", 120 * MINUTE)).toBe("ghs_2");
    expect(posts).toHaveLength(2);
  });
});

describe("the route of a repository's token exchange", () => {
  const env = { httpsProxy: "http://env:3128", httpProxy: "http://env-plain:3128", noProxy: ".corp" };

  it.each([
    // name; API URL; repository keys; proxy settings
    {
      name: "the repository's proxy with its own noProxy",
      api: "https://ghe.corp/api/v3",
      repo: { proxy: "http://repo:3128", noProxy: "ghe.corp" },
      want: { url: "http://repo:3128", noProxy: "ghe.corp", setting: REPOSITORY_PROXY_SETTING },
    },
    {
      name: "the repository's proxy without noProxy bypasses nothing of the environment's",
      api: "https://ghe.corp/api/v3",
      repo: { proxy: "http://repo:3128" },
      want: { url: "http://repo:3128", noProxy: "", setting: REPOSITORY_PROXY_SETTING },
    },
    {
      name: "no proxy of its own: HTTPS_PROXY and NO_PROXY for an https API",
      api: "https://api.github.com",
      repo: { noProxy: "ignored" },
      want: { url: "http://env:3128", noProxy: ".corp", setting: "HTTPS_PROXY" },
    },
    {
      name: "no proxy of its own: HTTP_PROXY for a plain-HTTP API",
      api: "http://ghe.corp/api/v3",
      repo: { proxy: " " },
      want: { url: "http://env-plain:3128", noProxy: ".corp", setting: "HTTP_PROXY" },
    },
  ])("$name", ({ api, repo, want }) => {
    expect(repositoryProxy(api, repo, env)).toEqual(want);
  });

  it("trusts the API host's CA bundle unless insecure, and presents a complete client certificate", () => {
    expect(repositoryTls({}, undefined)).toEqual({});
    expect(repositoryTls({}, "CA")).toEqual({ extraCa: ["CA"] });
    expect(repositoryTls({ insecure: true }, "CA")).toEqual({ insecure: true });
    expect(repositoryTls({ tlsClientCertData: "C", tlsClientCertKey: "K" }, undefined)).toEqual({ clientCert: { cert: "C", key: "K" } });
    expect(repositoryTls({ tlsClientCertData: "C" }, undefined)).toEqual({});
  });
});
