/**
 * Secrets do not leak out of the process to whoever can reach it, tried as an attacker would, with
 * no control plane needed:
 * - the profiler on a real metrics server: `heap` serves a sampling heap profile, which holds no
 *   value in memory; a full heap snapshot, which holds them all, only with its own setting;
 * - helm and kustomize (fake programs on PATH that write down their environment) inherit none of
 *   the engine's secret variables, through a Git source, a Helm chart source and `helm pull`;
 * - two GitLab tokens against a real HTTP server that records the `PRIVATE-TOKEN` it gets: one
 *   tenant's cached answer or backoff is never served to another.
 * Each test also shows what it looks for is there to be found, so it can fail.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Registry } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import type { Application } from "../../src/api/index.js";
import { SystemClock } from "../../src/clock/index.js";
import { silentLogger } from "../../src/log/logger.js";
import { ScmHttpClient } from "../../src/scm/http.js";
import { GitlabScm } from "../../src/scm/providers/gitlab.js";
import { RateLimitedError } from "../../src/scm/ratelimit.js";
import { metricsRoutes } from "../../src/server/endpoints.js";
import { startHttpServer, type HttpEndpoint } from "../../src/server/http.js";
import { HEAP_SNAPSHOT_DISABLED } from "../../src/server/profiler.js";
import { GitManifestSource } from "../../src/syncwaves/git-source.js";
import { helmAccess } from "../../src/syncwaves/helm-repo/access.js";
import { pullChart } from "../../src/syncwaves/helm-repo/pull.js";
import { gitReader, makeRepo, TempDirs } from "../integration/support/git-repos.js";

/**
 * A secret held by this process for the whole file, made at run time so no source text holds it,
 * and flat (one piece in memory, as a token read from a Secret is) rather than a concatenation.
 */
const secret = Buffer.from(`leak-probe-${randomBytes(16).toString("hex")}`).toString("latin1");
const temp = new TempDirs();
const servers: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  temp.cleanup();
});

describe("the profiler on the metrics server", () => {
  async function metrics(heapSnapshot: boolean): Promise<HttpEndpoint> {
    const profiler = { enabled: () => Promise.resolve(true), clock: new SystemClock(), argv: ["node"], heapSnapshot };
    const s = await startHttpServer({
      addr: "127.0.0.1:0",
      routes: metricsRoutes(new Registry(), profiler),
      logger: silentLogger(),
      clock: new SystemClock(),
      name: "metrics",
      closeGraceMs: 200,
    });
    servers.push(s);
    return s;
  }

  /** The status of a GET and whether its body held the secret, read as a stream. */
  async function probe(url: string): Promise<{ status: number; leaked: boolean; bytes: number }> {
    const res = await fetch(url);
    let tail = "";
    let leaked = false;
    let bytes = 0;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      const text = tail + Buffer.from(chunk).toString("utf8");
      leaked ||= text.includes(secret);
      tail = text.slice(-secret.length);
      bytes += chunk.byteLength;
    }
    return { status: res.status, leaked, bytes };
  }

  it("serves a heap profile without the values in memory, and no snapshot without its setting", async () => {
    const s = await metrics(false);
    const pending = probe(`${s.url}/debug/pprof/heap?seconds=1`);
    // Allocated while the profile samples: the sampled sites are these, their values never.
    const copies = Array.from({ length: 50_000 }, (_, i) => `${secret}:${i}`);
    const heap = await pending;
    expect({ status: heap.status, leaked: heap.leaked, sampled: heap.bytes > 100, copies: copies.length }).toEqual({
      status: 200,
      leaked: false,
      sampled: true,
      copies: 50_000,
    });
    expect(await probe(`${s.url}/debug/pprof/heapsnapshot`)).toEqual({
      status: 403,
      leaked: false,
      bytes: Buffer.byteLength(HEAP_SNAPSHOT_DISABLED),
    });
  });

  it("serves a full snapshot, which holds the secret, only with the setting", async () => {
    const s = await metrics(true);
    expect(await probe(`${s.url}/debug/pprof/heapsnapshot`)).toMatchObject({ status: 200, leaked: true });
  });
});

describe("the environment of helm and kustomize", () => {
  const bin = temp.make("appset-fake-tools-");
  const dumps = temp.make("appset-tool-env-");
  // Each run writes its environment down; `template` and `build` print one ConfigMap.
  const script = [
    "#!/bin/sh",
    `env > "${dumps}/$(basename "$0")-$$.env"`,
    'if [ "$1" = pull ]; then exit 0; fi',
    "printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: rendered\\n'",
    "",
  ].join("\n");
  for (const tool of ["helm", "kustomize"]) {
    writeFileSync(join(bin, tool), script);
    chmodSync(join(bin, tool), 0o755);
  }
  /** The engine's environment: the fake programs first on PATH, and secrets as a controller holds them. */
  const engineEnv = {
    ...process.env,
    PATH: `${bin}:${process.env["PATH"] ?? ""}`,
    GITHUB_TOKEN: secret,
    GITLAB_TOKEN: secret,
    AWS_SECRET_ACCESS_KEY: secret,
    ARGOCD_APPLICATIONSET_CONTROLLER_LEAK_PROBE: secret,
  };
  const repo = makeRepo(temp, {
    "chart/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    "chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    "kust/kustomization.yaml": "resources: []\n",
  });
  const app: Application = {
    metadata: { name: "web", namespace: "argocd" },
    spec: { destination: { namespace: "team" }, project: "default" },
  };

  /** The environments the programs were started with, by program. */
  function environments(): Array<{ tool: string; env: string }> {
    return readdirSync(dumps).map((f) => ({ tool: f.split("-")[0]!, env: readFileSync(join(dumps, f), "utf8") }));
  }

  it("holds PATH and the build environment, never the engine's secrets", async () => {
    const source = new GitManifestSource(gitReader(temp), { tools: { env: engineEnv } });
    const url = `file://${repo}`;
    const helm = await source.read(app, { repoURL: url, path: "chart", targetRevision: "main" });
    const kustomize = await source.read(app, { repoURL: url, path: "kust", targetRevision: "main" });
    await pullChart(
      {
        helm: "helm",
        repoURL: "https://charts.example.com",
        chart: "web",
        version: "1.0.0",
        access: helmAccess("https://charts.example.com", undefined, undefined, engineEnv),
        passCredentials: false,
        timeoutMs: 30_000,
        env: engineEnv,
      },
      temp.make("appset-pulled-"),
    );
    const runs = environments();
    expect({
      rendered: [helm.sourceType, kustomize.sourceType, helm.objects.length, kustomize.objects.length],
      tools: [...new Set(runs.map((r) => r.tool))].sort(),
      path: runs.every((r) => r.env.includes(`PATH=${bin}:`)),
      buildEnv: runs.some((r) => r.env.includes("ARGOCD_APP_NAME=web")),
      leaked: runs.filter((r) => r.env.includes(secret)).map((r) => r.tool),
    }).toEqual({ rendered: ["Helm", "Kustomize", 1, 1], tools: ["helm", "kustomize"], path: true, buildEnv: true, leaked: [] });
    expect(runs.length).toBeGreaterThanOrEqual(3);
  });
});

describe("GitLab tokens against a real server", () => {
  /** A GitLab API: each token sees its own projects, with an ETag; 304 when it matches; 429 for a refused token. */
  async function gitlab(): Promise<{ base: string; seen: Array<{ token: string; ifNoneMatch: string }>; refuse: Set<string> }> {
    const seen: Array<{ token: string; ifNoneMatch: string }> = [];
    const refuse = new Set<string>();
    const server: Server = createServer((req: IncomingMessage, res) => {
      const token = String(req.headers["private-token"] ?? "");
      const ifNoneMatch = String(req.headers["if-none-match"] ?? "");
      seen.push({ token, ifNoneMatch });
      const etag = `"${token}"`;
      if (refuse.has(token)) {
        res.writeHead(429, { "Retry-After": "60" }).end();
        return;
      }
      if (ifNoneMatch === etag) {
        res.writeHead(304, { ETag: etag }).end();
        return;
      }
      const project = {
        id: 1,
        path: `repo-of-${token}`,
        namespace: { full_path: "g" },
        http_url_to_repo: "",
        ssh_url_to_repo: "",
        default_branch: "main",
      };
      res.writeHead(200, { ETag: etag, "Content-Type": "application/json" }).end(JSON.stringify([project]));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    servers.push({ close: () => new Promise<void>((r) => server.close(() => r())) });
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`, seen, refuse };
  }
  const options = {
    group: "g",
    allBranches: false,
    includeSubgroups: false,
    includeSharedProjects: false,
    includeArchivedRepos: false,
    topic: "",
  };

  it("keeps one tenant's cached answers and backoff away from another's token", async () => {
    const api = await gitlab();
    const http = new ScmHttpClient({ clock: new SystemClock() });
    const as = (token: string): GitlabScm =>
      new GitlabScm({ http, provider: "gitlab", baseUrl: api.base, headers: { "PRIVATE-TOKEN": token } }, options);
    const tenantA = `a-${secret}`;
    const tenantB = `b-${randomBytes(8).toString("hex")}`;
    const names = async (token: string): Promise<string[]> => (await as(token).listRepos("https")).map((r) => r.repository);
    const seen = [await names(tenantA), await names(tenantA), await names(tenantB)];
    expect({ seen, requests: api.seen }).toEqual({
      seen: [[`repo-of-${tenantA}`], [`repo-of-${tenantA}`], [`repo-of-${tenantB}`]],
      requests: [
        { token: tenantA, ifNoneMatch: "" },
        // The same token revalidates its own answer...
        { token: tenantA, ifNoneMatch: `"${tenantA}"` },
        // ...another token never sends, nor gets, tenant A's.
        { token: tenantB, ifNoneMatch: "" },
      ],
    });
    // Tenant A is refused: A backs off (its next call is not sent), B is not held back.
    api.refuse.add(tenantA);
    const refused = await names(tenantA).catch((err: unknown) => err);
    const heldBack = await names(tenantA).catch((err: unknown) => err);
    const b = await names(tenantB);
    expect({
      refused: refused instanceof RateLimitedError,
      heldBack: heldBack instanceof RateLimitedError,
      b,
      sent: api.seen.slice(3).map((r) => r.token),
    }).toEqual({ refused: true, heldBack: true, b: [`repo-of-${tenantB}`], sent: [tenantA, tenantB] });
  });
});
