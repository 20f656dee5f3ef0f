import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { githubBranch, githubRepo, sha } from "../../fixtures/scm/payloads.js";
import { appSet } from "../../unit/generators/builders.js";
import { FakeApi, linkPage } from "../support/scm-server.js";
import { harness, scmSecret } from "../../unit/scm/support.js";
import type { ScmProviderGenerator } from "../../../src/api/index.js";
import type { GeneratorPorts } from "../../../src/generators/types.js";
import { generatorFn } from "../../../src/controller/generation.js";
import { planAppSet } from "../../../src/controller/plan.js";
import { REQUEUE_ON_ERROR_MS } from "../../../src/controller/requeue.js";
import type { Generation } from "../../../src/controller/snapshot.js";
import { settings as planSettings, snapshot } from "../../support/controller-builders.js";
import { TemplateEngine } from "../../../src/template/index.js";
import { DEFAULT_GENERATOR_SETTINGS } from "../../../src/generators/index.js";
import { createGeneratorRegistry } from "../../../src/generators/registry.js";
import { createScmProviderGenerator } from "../../../src/generators/scm-provider.js";

const api = new FakeApi();
beforeAll(() => api.start());
afterAll(() => api.stop());
beforeEach(() => api.reset());

const token = scmSecret("gh", { token: "t0ken" });

/** Serves an organisation of `n` repositories with default branch `main` at a per-repo SHA. */
function serveOrg(n: number, o: { pushedAt?: (i: number) => string; branchSha?: (name: string) => string } = {}): void {
  const repos = (): Record<string, unknown>[] =>
    Array.from({ length: n }, (_, i) =>
      githubRepo("acme", `repo-${String(i).padStart(3, "0")}`, { id: i + 1, ...(o.pushedAt ? { pushedAt: o.pushedAt(i) } : {}) }),
    );
  api.on("GET", "/api/v3/orgs/acme/repos", (req) => linkPage(req, repos()));
  api.on("GET", "/api/v3/repos/acme/*/branches/main", (req) => {
    const name = req.path.split("/")[5]!;
    return { body: githubBranch("main", (o.branchSha ?? sha)(name)) };
  });
}

const gh = (
  extra: Partial<NonNullable<ScmProviderGenerator["github"]>> = {},
  rest: Partial<ScmProviderGenerator> = {},
): ScmProviderGenerator => ({
  github: { organization: "acme", api: api.url, tokenRef: { secretName: "gh", key: "token" }, ...extra },
  ...rest,
});

describe("the SCM Provider generator on GitHub", () => {
  it("emits Argo CD's parameters for each repository's default branch, in both template modes", async () => {
    api.on("GET", "/api/v3/orgs/acme/repos", { body: [githubRepo("acme", "svc_A", { id: 42, topics: ["team-a", "prod"] })] });
    api.on("GET", "/api/v3/repos/acme/svc_A/branches/main", { body: githubBranch("main", "0123456789abcdef0123456789abcdef01234567") });
    const h = harness({ secrets: [token] });
    const gen = createScmProviderGenerator(h.services);
    const fast = await gen.generate(gh({}, { values: { x: "{{repository}}-{{branch}}" } }), appSet([]), h.ctx);
    expect(fast).toEqual([
      {
        organization: "acme",
        repository: "svc_A",
        repository_id: 42,
        url: "git@github.com:acme/svc_A.git",
        branch: "main",
        sha: "0123456789abcdef0123456789abcdef01234567",
        short_sha: "01234567",
        short_sha_7: "0123456",
        labels: "team-a,prod",
        branchNormalized: "main",
        "values.x": "svc_A-main",
      },
    ]);
    const go = await gen.generate(
      gh({}, { cloneProtocol: "https", values: { x: "{{ .repository }}" } }),
      appSet([], { goTemplate: true }),
      h.ctx,
    );
    expect(go[0]).toMatchObject({ url: "https://github.com/acme/svc_A.git", values: { x: "svc_A" } });
    expect(api.calls()[0]!.headers.authorization).toBe("Bearer t0ken");
  });

  it("follows Link pagination over 250 repositories", async () => {
    serveOrg(250);
    const h = harness({ secrets: [token] });
    const got = await createScmProviderGenerator(h.services).generate(gh(), appSet([]), h.ctx);
    expect(got).toHaveLength(250);
    expect(api.calls("/api/v3/orgs/acme/repos").map((c) => c.query.get("page") ?? "1")).toEqual(["1", "2", "3"]);
    expect(new Set(got.map((p) => p["repository"])).size).toBe(250);
  });

  it("costs one conditional request for an unchanged organisation of 100 repositories", async () => {
    serveOrg(100);
    const h = harness({ secrets: [token] });
    const gen = createScmProviderGenerator(h.services);
    const first = await gen.generate(gh(), appSet([]), h.ctx);
    expect(api.seen).toHaveLength(101);
    api.seen.length = 0;
    const again = await gen.generate(gh(), appSet([]), h.ctx);
    expect(again).toEqual(first);
    expect(api.seen).toHaveLength(1);
    expect(api.seen[0]!.headers["if-none-match"]).toMatch(/^"[0-9a-f]{40}"$/);
    expect(h.services.http(h.clock).stats()["github"]).toMatchObject({ requests: 102, notModified: 1 });
  });

  it("re-reads only the branches of a repository that was pushed to", async () => {
    let pushed = "2024-01-01T00:00:00Z";
    let head = sha("old");
    serveOrg(5, {
      pushedAt: (i) => (i === 3 ? pushed : "2024-01-01T00:00:00Z"),
      branchSha: (name) => (name === "repo-003" ? head : sha(name)),
    });
    const h = harness({ secrets: [token] });
    const gen = createScmProviderGenerator(h.services);
    await gen.generate(gh(), appSet([]), h.ctx);
    pushed = "2024-02-02T00:00:00Z";
    head = sha("new");
    api.seen.length = 0;
    const got = await gen.generate(gh(), appSet([]), h.ctx);
    expect(api.seen.map((s) => s.path)).toEqual(["/api/v3/orgs/acme/repos", "/api/v3/repos/acme/repo-003/branches/main"]);
    expect(got.find((p) => p["repository"] === "repo-003")?.["sha"]).toBe(sha("new"));
  });

  it("expands every branch with allBranches and skips a repository whose default branch is missing", async () => {
    api.on("GET", "/api/v3/orgs/acme/repos", { body: [githubRepo("acme", "a"), githubRepo("acme", "empty", { archived: true })] });
    api.on("GET", "/api/v3/repos/acme/a/branches", (req) =>
      linkPage(req, [githubBranch("main", sha("1")), githubBranch("dev", sha("2"))], { defaultPerPage: 1 }),
    );
    api.on("GET", "/api/v3/repos/acme/a/branches/main", { body: githubBranch("main", sha("1")) });
    const h = harness({ secrets: [token] });
    const gen = createScmProviderGenerator(h.services);
    const all = await gen.generate(gh({ allBranches: true, excludeArchivedRepos: true }), appSet([]), h.ctx);
    expect(all.map((p) => p["branch"])).toEqual(["main", "dev"]);
    const defaults = await gen.generate(gh(), appSet([]), h.ctx);
    expect(defaults.map((p) => p["repository"])).toEqual(["a"]);
  });

  it.each([
    // name; filters; repositories expected
    { name: "a repository filter keeps matching names", filters: [{ repositoryMatch: "^svc-" }], want: ["svc-a", "svc-b"] },
    { name: "a label filter passes when any topic matches", filters: [{ labelMatch: "^prod$" }], want: ["svc-a", "lib"] },
    { name: "two repository filters are OR'd", filters: [{ repositoryMatch: "lib" }, { labelMatch: "dev" }], want: ["svc-b", "lib"] },
    { name: "conditions within one filter are AND'ed", filters: [{ repositoryMatch: "^svc", labelMatch: "prod" }], want: ["svc-a"] },
    {
      name: "pathsExist keeps repositories holding the path (trailing slash ignored)",
      filters: [{ pathsExist: ["deploy/"] }],
      want: ["svc-a", "lib"],
    },
    { name: "pathsDoNotExist drops repositories holding the path", filters: [{ pathsDoNotExist: ["deploy"] }], want: ["svc-b"] },
    {
      name: "a repository-only and a branch-only filter end up AND'ed",
      filters: [{ repositoryMatch: "^svc" }, { pathsExist: ["deploy"] }],
      want: ["svc-a"],
    },
    {
      name: "a branch filter checks its repository conditions per branch",
      filters: [{ repositoryMatch: "lib", branchMatch: "main" }],
      want: ["lib"],
    },
    { name: "a filter with no conditions is ignored", filters: [{}], want: ["svc-a", "svc-b", "lib"] },
  ])("$name", async ({ filters, want }) => {
    api.on("GET", "/api/v3/orgs/acme/repos", {
      body: [
        githubRepo("acme", "svc-a", { topics: ["prod"] }),
        githubRepo("acme", "svc-b", { topics: ["dev"] }),
        githubRepo("acme", "lib", { topics: ["prod", "x"] }),
      ],
    });
    api.on("GET", "/api/v3/repos/acme/*/branches/main", (req) => ({ body: githubBranch("main", sha(req.path)) }));
    api.on("GET", "/api/v3/repos/acme/*/contents/deploy", (req) =>
      req.path.includes("svc-b") ? undefined : { body: [{ name: "app.yaml", type: "file" }] },
    );
    const h = harness({ secrets: [token] });
    const got = await createScmProviderGenerator(h.services).generate(gh({}, { filters }), appSet([]), h.ctx);
    expect(got.map((p) => p["repository"])).toEqual(want);
  });

  it("asks for a path once per commit", async () => {
    serveOrg(3);
    api.on("GET", "/api/v3/repos/acme/*/contents/deploy", { body: [] });
    const h = harness({ secrets: [token] });
    const gen = createScmProviderGenerator(h.services);
    const spec = gh({}, { filters: [{ pathsExist: ["deploy"] }] });
    await gen.generate(spec, appSet([]), h.ctx);
    await gen.generate(spec, appSet([]), h.ctx);
    expect(api.calls("/api/v3/repos/acme/repo-000/contents")).toHaveLength(1);
  });

  it.each([
    // name; spec change; settings; Secrets; expected error
    {
      name: "a bad regular expression names the filter",
      spec: gh({}, { filters: [{ repositoryMatch: "(" }] }),
      error: /^error listing repos: error compiling RepositoryMatch regexp "\(": /,
    },
    {
      name: "an unknown clone protocol is refused",
      spec: gh({}, { cloneProtocol: "ftp" }),
      error: "error listing repos: unknown clone protocol for GitHub ftp",
    },
    {
      name: "disabled providers are refused before any call",
      spec: gh(),
      settings: { enabled: false },
      error: "scm providers are disabled",
    },
    {
      name: "an API URL outside the allow-list is refused",
      spec: gh({ api: "https://ghe.example.com" }),
      settings: { allowedProviders: ["https://a.example.com", "https://b.example.com/"] },
      error:
        'scm provider not allowed: scm provider "https://ghe.example.com" not allowed, must use one of the following: https://a.example.com, https://b.example.com/',
    },
    {
      name: "strict mode refuses a Secret without the scm-creds label",
      spec: gh(),
      settings: { tokenRefStrictMode: true },
      secrets: [scmSecret("gh", { token: "t" }, {})],
      error:
        'scm provider: error fetching Github token: secret argocd/gh is not a valid SCM creds secret: secret must have label "argocd.argoproj.io/secret-type"="scm-creds"',
    },
    {
      name: "a missing Secret is named",
      spec: gh(),
      secrets: [],
      error: 'scm provider: error fetching Github token: error fetching secret argocd/gh: secrets "gh" not found',
    },
    {
      name: "a missing key is named",
      spec: gh({ tokenRef: { secretName: "gh", key: "nope" } }),
      error: 'scm provider: error fetching Github token: key "nope" in secret argocd/gh not found',
    },
    { name: "no provider at all", spec: { filters: [] }, error: "no SCM provider implementation configured" },
  ])("$name", async ({ spec, settings, secrets, error }) => {
    serveOrg(1);
    const h = harness({ secrets: secrets ?? [token], settings: settings ?? {} });
    const run = createScmProviderGenerator(h.services).generate(spec, appSet([]), h.ctx);
    await expect(run).rejects.toThrow(error);
    await expect(run).rejects.toMatchObject({ reason: "ApplicationGenerationFromParamsError" });
    if (settings?.enabled === false || settings?.tokenRefStrictMode === true || settings?.allowedProviders)
      expect(api.seen).toHaveLength(0);
  });

  it("accepts a labelled Secret in strict mode and falls back to GITHUB_TOKEN without a tokenRef", async () => {
    serveOrg(1);
    const strict = harness({ secrets: [token], settings: { tokenRefStrictMode: true } });
    await createScmProviderGenerator(strict.services).generate(gh(), appSet([]), strict.ctx);
    const env = harness({ settings: { envTokens: { github: "from-env" } } });
    await createScmProviderGenerator(env.services).generate({ github: { organization: "acme", api: api.url } }, appSet([]), env.ctx);
    expect(api.seen.map((s) => s.headers.authorization)).toEqual(["Bearer t0ken", "Bearer t0ken", "Bearer from-env", "Bearer from-env"]);
  });
});

describe("the environment's SCM token and tenants", () => {
  const tenantSet = (): ReturnType<typeof appSet> => {
    const set = appSet([]);
    set.metadata.namespace = "team-a";
    set.spec.template = { ...set.spec.template, spec: { ...set.spec.template.spec, project: "p" } };
    return set;
  };
  const ports = (sourceNamespaces: string[]): GeneratorPorts => ({
    secrets: { namespace: "argocd", getSecret: () => Promise.resolve(undefined) },
    projects: {
      getAppProject: (name) => Promise.resolve(name === "p" ? { metadata: { name }, spec: { sourceNamespaces } } : undefined),
    },
  });

  it.each([
    // name; the project's sourceNamespaces; the Authorization the API saw
    { name: "is not lent to an ApplicationSet whose project does not take its namespace", sourceNamespaces: [], want: undefined },
    { name: "is lent to an ApplicationSet whose project takes its namespace", sourceNamespaces: ["team-*"], want: "Bearer from-env" },
  ])("$name", async ({ sourceNamespaces, want }) => {
    serveOrg(1);
    const h = harness({ settings: { envTokens: { github: "from-env" } }, ports: ports(sourceNamespaces) });
    await createScmProviderGenerator(h.services).generate({ github: { organization: "acme", api: api.url } }, tenantSet(), h.ctx);
    expect(api.seen.length).toBeGreaterThan(0);
    expect(new Set(api.seen.map((s) => s.headers.authorization))).toEqual(new Set([want]));
  });
});

describe("the SCM Provider generator under a rate limit", () => {
  it("fails with the same message on every retry, sends nothing until the reset, then recovers", async () => {
    serveOrg(2);
    const h = harness({ secrets: [token] });
    const gen = createScmProviderGenerator(h.services);
    const good = await gen.generate(gh(), appSet([]), h.ctx);
    const reset = Math.floor(h.clock.now() / 1000) + 600;
    api.override = {
      status: 429,
      body: { message: "API rate limit exceeded for installation ID 1. (request id 8F2E:1A2B)" },
      headers: {
        "X-RateLimit-Limit": "5000",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Used": "5000",
        "X-RateLimit-Reset": String(reset),
        "X-GitHub-Request-Id": "8F2E:1A2B",
      },
    };
    api.seen.length = 0;
    const messages: string[] = [];
    for (let i = 0; i < 3; i++) {
      const err = await gen.generate(gh(), appSet([]), h.ctx).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      messages.push(err?.message ?? "resolved");
      h.clock.advance(60_000);
    }
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).toMatch(
      /^error listing repos: API rate limit exceeded for 127\.0\.0\.1:\d+: requests paused until the limit resets, existing Applications are kept$/,
    );
    expect(messages[0]).not.toContain("8F2E");
    expect(api.seen).toHaveLength(1);
    expect(h.services.http(h.clock).rateLimits()[0]).toMatchObject({ limit: 5000, remaining: 0, used: 5000, resetAtMs: reset * 1000 });
    api.override = undefined;
    h.clock.advance(600_000);
    expect(await gen.generate(gh(), appSet([]), h.ctx)).toEqual(good);
  });
});

describe("the ApplicationSet requeue when an SCM provider is rate-limited", () => {
  const refusal = (resetSec: number) => ({
    status: 429,
    body: { message: "API rate limit exceeded (request id 1F2E:3D4C)" },
    headers: {
      "X-RateLimit-Limit": "5000",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(resetSec),
      "X-GitHub-Request-Id": "1F2E:3D4C",
    },
  });

  it("requeues just after the reset time and leaves the status alone on the retries before it", async () => {
    serveOrg(2);
    const h = harness({ secrets: [token] });
    const generate = generatorFn({
      registry: createGeneratorRegistry({}, h.services),
      engine: new TemplateEngine({ now: () => 0 }),
      ctx: { ports: {}, settings: DEFAULT_GENERATOR_SETTINGS, clock: h.clock },
    });
    const set = appSet([{ scmProvider: gh() }]);
    api.override = refusal(Math.floor(h.clock.now() / 1000) + 600);
    const first: Generation = await generate(set, new AbortController().signal);
    expect(first).toMatchObject({ ok: false, reason: "ApplicationGenerationFromParamsError", retryAfterMs: 600_000 });
    const plan1 = planAppSet(snapshot({ appSet: set, generation: first }), h.clock.now(), planSettings());
    expect(plan1.requeueAfterMs).toBe(601_000);
    expect(plan1.status?.conditions?.find((c) => c.type === "ErrorOccurred")?.message).toMatch(
      /^error listing repos: API rate limit exceeded for 127\.0\.0\.1:\d+: /,
    );
    h.clock.advance(200_000);
    const second = await generate(set, new AbortController().signal);
    expect(second).toMatchObject({ ok: false, retryAfterMs: 400_000 });
    const plan2 = planAppSet(snapshot({ appSet: { ...set, status: plan1.status }, generation: second }), h.clock.now(), planSettings());
    expect(plan2.status).toBeUndefined();
    expect(plan2.requeueAfterMs).toBe(401_000);
    expect(api.seen.filter((x) => x.path.endsWith("/orgs/acme/repos"))).toHaveLength(1);
  });

  it("keeps the fixed error requeue for failures that name no retry time", async () => {
    const h = harness({ secrets: [token] });
    const generate = generatorFn({
      registry: createGeneratorRegistry({}, h.services),
      engine: new TemplateEngine({ now: () => 0 }),
      ctx: { ports: {}, settings: DEFAULT_GENERATOR_SETTINGS, clock: h.clock },
    });
    api.override = { status: 500, body: { message: "boom" } };
    const set = appSet([{ scmProvider: gh() }]);
    const gen = await generate(set, new AbortController().signal);
    expect(gen.ok).toBe(false);
    expect(gen).not.toHaveProperty("retryAfterMs");
    expect(planAppSet(snapshot({ appSet: set, generation: gen }), h.clock.now(), planSettings()).requeueAfterMs).toBe(REQUEUE_ON_ERROR_MS);
  });
});
