/**
 * Size limits on what a server a tenant points the controller at sends back, against real local
 * HTTP servers: an SCM provider and a plugin that answer without end are cut off at the limit
 * (the client lets go of the connection, the server stops writing), a listing whose next page is
 * on another origin sends nothing there, and a Helm repository's oversized index.yaml is refused.
 */
import { afterEach, describe, expect, it } from "vitest";
import { encodeSecretData, type PluginGenerator } from "../../src/api/index.js";
import { createScmProviderGenerator } from "../../src/generators/scm-provider.js";
import { pluginGenerator } from "../../src/generators/plugin.js";
import { ScmCrossOriginPageError, ScmResponseTooLargeError } from "../../src/scm/limits.js";
import { fetchIndex } from "../../src/syncwaves/helm-repo/index-file.js";
import { appSet, context } from "../unit/generators/builders.js";
import { harness, scmSecret } from "../unit/scm/support.js";
import { serve, type LocalServer } from "./support/http-servers.js";

const MIB = 1024 * 1024;
/** What the kernel's socket buffers and the last chunks may hold past a limit before the client lets go. */
const SLACK = 8 * MIB;

const servers: LocalServer[] = [];
async function started(s: Promise<LocalServer>): Promise<LocalServer> {
  const server = await s;
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  const outcome = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(Error);
  return outcome as Error;
}

/** Errors from `err` down its causes. */
function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e: unknown = err; e !== undefined; e = e instanceof Error ? e.cause : undefined) out.push(e);
  return out;
}

/** A GitLab SCM provider generator over `api`, authenticated with a token. */
function gitlab(api: string, limits: { maxResponseBytes?: number; maxPages?: number } = {}) {
  const h = harness({ secrets: [scmSecret("tok", { token: "s3cret" })], extra: { limits } });
  const gen = createScmProviderGenerator(h.services);
  const spec = { gitlab: { group: "grp", api, tokenRef: { secretName: "tok", key: "token" } } };
  return { run: () => gen.generate(spec, appSet([]), h.ctx) };
}

describe("an SCM provider answering without end", () => {
  it("is cut off at the limit with an error naming the provider, the URL and the setting", async () => {
    const api = await started(serve(() => ({ endless: true })));
    const err = await rejection(gitlab(api.url, { maxResponseBytes: MIB }).run());
    await api.clientGone;
    expect(err.message).toBe(
      `error listing repos: error listing projects for grp: SCM provider "gitlab" answered more than 1048576 bytes (1 MiB) for ${api.url}/api/v4/groups/grp/projects; raise --scm-max-response-bytes to accept a larger answer`,
    );
    expect(causes(err).some((e) => e instanceof ScmResponseTooLargeError)).toBe(true);
    expect(api.written()).toBeLessThan(MIB + SLACK);
  });
});

describe("an SCM listing whose next page is on another origin", () => {
  it("is refused, and the other origin receives no request and no credentials", async () => {
    const other = await started(serve(() => ({ body: "[]" })));
    const api = await started(
      serve((req) =>
        req.url?.startsWith("/api/v4/groups/") === true
          ? { headers: { link: `<${other.url}/api/v4/groups/grp/projects?page=2>; rel="next"` }, body: "[]" }
          : { status: 404, body: "{}" },
      ),
    );
    const err = await rejection(gitlab(api.url).run());
    expect(causes(err).some((e) => e instanceof ScmCrossOriginPageError)).toBe(true);
    expect(err.message).toContain(`names its next page on another origin (${other.url})`);
    expect(api.received[0]?.headers["private-token"]).toBe("s3cret");
    expect(other.received).toEqual([]);
  });

  it("stops after the page limit", async () => {
    let page = 0;
    const api = await started(
      serve((_req, url) => ({
        headers: { link: `<${url}/api/v4/groups/grp/projects?page=${String(++page + 1)}>; rel="next"` },
        body: "[]",
      })),
    );
    const err = await rejection(gitlab(api.url, { maxPages: 5 }).run());
    expect(err.message).toContain(
      `listing ${api.url}/api/v4/groups/grp/projects has more than 5 pages; raise --scm-max-pages to follow more`,
    );
    expect(api.received).toHaveLength(5);
  });
});

describe("a plugin answering without end", () => {
  it("is cut off at the limit, the connection let go, with an error naming the plugin", async () => {
    const plugin = await started(serve(() => ({ endless: true })));
    const ports = {
      configMaps: { getConfigMapData: () => Promise.resolve({ baseUrl: plugin.url, token: "$plugin.token" }) },
      secrets: { getSecret: (name: string) => Promise.resolve({ metadata: { name }, data: encodeSecretData({ "plugin.token": "tok" }) }) },
      fetch: (url: string, init: Parameters<typeof fetch>[1]) => fetch(url, init),
    };
    const spec: PluginGenerator = { configMapRef: { name: "my-plugin" } };
    const err = await rejection(pluginGenerator.generate(spec, appSet([]), context(ports, { pluginMaxResponseBytes: 2 * MIB })));
    await plugin.clientGone;
    expect(err.message).toBe(
      `error listing params: error get api 'test': plugin "my-plugin" answered more than 2097152 bytes (2 MiB) for ${plugin.url}/api/v1/getparams.execute; raise --plugin-max-response-bytes to accept a larger answer`,
    );
    expect(causes(err).some((e) => (e as { reason?: string }).reason === "ResponseTooLarge")).toBe(true);
    expect(plugin.written()).toBeLessThan(2 * MIB + SLACK);
  });
});

describe("a Helm repository's oversized index.yaml", () => {
  const access = { insecure: false, proxy: "", noProxy: "" };

  it("is refused at the limit with the index error's words and the setting", async () => {
    const repo = await started(serve(() => ({ endless: true, headers: { "content-type": "text/yaml" } })));
    const err = await rejection(fetchIndex({ repoURL: repo.url, access, timeoutMs: 30_000, maxBytes: MIB }));
    await repo.clientGone;
    expect(err).toMatchObject({
      reason: "ManifestError",
      message: `error loading repo index: Helm repository answered more than 1048576 bytes (1 MiB) for ${repo.url}/index.yaml; raise --helm-index-max-bytes to accept a larger answer`,
    });
    expect(repo.written()).toBeLessThan(MIB + SLACK);
  });

  it("is read when it is within the limit", async () => {
    const text = `apiVersion: v1\nentries:\n  app:\n    - version: 1.2.3\n`;
    const repo = await started(serve(() => ({ body: text })));
    const index = await fetchIndex({ repoURL: repo.url, access, timeoutMs: 30_000, maxBytes: text.length });
    expect(index.entries.get("app")).toEqual(["1.2.3"]);
  });
});
