import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { githubPull, sha } from "../../fixtures/scm/payloads.js";
import { appSet } from "../../unit/generators/builders.js";
import { FakeApi, linkPage } from "../support/scm-server.js";
import { harness, scmSecret } from "../../unit/scm/support.js";
import type { PullRequestGenerator } from "../../../src/api/index.js";
import { createPullRequestGenerator } from "../../../src/generators/pull-request.js";

const api = new FakeApi();
beforeAll(() => api.start());
afterAll(() => api.stop());
beforeEach(() => api.reset());

const spec = (rest: Partial<PullRequestGenerator> = {}, labels?: string[]): PullRequestGenerator => ({
  github: { owner: "acme", repo: "web", api: api.url, tokenRef: { secretName: "gh", key: "token" }, ...(labels ? { labels } : {}) },
  ...rest,
});
const secrets = [scmSecret("gh", { token: "t0ken" })];

describe("the Pull Request generator on GitHub", () => {
  it("emits number, branches, slugs, SHAs, author, and labels in goTemplate mode only", async () => {
    const head = "abcdef0123456789abcdef0123456789abcdef01";
    api.on("GET", "/api/v3/repos/acme/web/pulls", {
      body: [
        githubPull(7, { title: "Add X", head: "Feature/My_Branch", base: "release_1.x", sha: head, user: "dev", labels: ["preview"] }),
      ],
    });
    const h = harness({ secrets });
    const gen = createPullRequestGenerator(h.services);
    const base = {
      number: "7",
      title: "Add X",
      branch: "Feature/My_Branch",
      branch_slug: "feature-my-branch",
      target_branch: "release_1.x",
      target_branch_slug: "release-1-x",
      head_sha: head,
      head_short_sha: "abcdef01",
      head_short_sha_7: "abcdef0",
      author: "dev",
    };
    expect(await gen.generate(spec(), appSet([]), h.ctx)).toEqual([base]);
    expect(await gen.generate(spec({ values: { env: "pr-{{ .number }}" } }), appSet([], { goTemplate: true }), h.ctx)).toEqual([
      { ...base, labels: ["preview"], values: { env: "pr-7" } },
    ]);
    expect(api.calls()[0]!.query.get("per_page")).toBe("100");
  });

  it("pages through 150 pull requests, then answers from a 304", async () => {
    const pulls = Array.from({ length: 150 }, (_, i) => githubPull(i + 1));
    api.on("GET", "/api/v3/repos/acme/web/pulls", (req) => linkPage(req, pulls));
    const h = harness({ secrets });
    const gen = createPullRequestGenerator(h.services);
    expect(await gen.generate(spec(), appSet([]), h.ctx)).toHaveLength(150);
    api.seen.length = 0;
    expect(await gen.generate(spec(), appSet([]), h.ctx)).toHaveLength(150);
    expect(api.seen.map((s) => s.headers["if-none-match"] !== undefined)).toEqual([true, true]);
    expect(h.services.http(h.clock).stats()["github"]?.notModified).toBe(2);
  });

  it.each([
    // name; filters and labels; numbers expected
    { name: "no filters keep every pull request", rest: {}, want: [1, 2, 3] },
    { name: "branchMatch matches the source branch", rest: { filters: [{ branchMatch: "^feat" }] }, want: [1, 2] },
    { name: "targetBranchMatch matches the target branch", rest: { filters: [{ targetBranchMatch: "^release$" }] }, want: [3] },
    { name: "titleMatch matches the title", rest: { filters: [{ titleMatch: "WIP" }] }, want: [2] },
    { name: "conditions are AND'ed within a filter", rest: { filters: [{ branchMatch: "feat", titleMatch: "WIP" }] }, want: [2] },
    { name: "filters are OR'd", rest: { filters: [{ titleMatch: "WIP" }, { targetBranchMatch: "release" }] }, want: [2, 3] },
    { name: "every listed label must be present", rest: {}, labels: ["preview", "ok"], want: [1] },
  ])("$name", async ({ rest, labels, want }) => {
    api.on("GET", "/api/v3/repos/acme/web/pulls", {
      body: [
        githubPull(1, { head: "feat-a", labels: ["preview", "ok"] }),
        githubPull(2, { head: "feat-b", title: "WIP: b", labels: ["preview"] }),
        githubPull(3, { head: "fix", base: "release" }),
      ],
    });
    const h = harness({ secrets });
    const got = await createPullRequestGenerator(h.services).generate(spec(rest, labels), appSet([]), h.ctx);
    expect(got.map((p) => Number(p["number"]))).toEqual(want);
  });

  it.each([
    // name; continueOnRepoNotFoundError; expected outcome
    {
      name: "a missing repository is an error by default",
      cont: undefined,
      error: /^error listing repos: repository not found: GET .*\/repos\/acme\/web\/pulls\?per_page=100: 404 Not Found$/,
    },
    { name: "a missing repository yields nothing with continueOnRepoNotFoundError", cont: true, want: [] },
  ])("$name", async ({ cont, error, want }) => {
    const h = harness({ secrets });
    const run = createPullRequestGenerator(h.services).generate(
      spec(cont === undefined ? {} : { continueOnRepoNotFoundError: cont }),
      appSet([]),
      h.ctx,
    );
    if (error) await expect(run).rejects.toThrow(error);
    else expect(await run).toEqual(want);
  });

  it.each([
    // name; spec; settings; expected error
    {
      name: "a bad regular expression",
      s: spec({ filters: [{ titleMatch: "[" }] }),
      error: /^error listing repos: error compiling TitleMatch regexp "\[": /,
    },
    {
      name: "disabled providers",
      s: spec(),
      settings: { enabled: false },
      error: "failed to select pull request service provider: scm providers are disabled",
    },
    {
      name: "no provider",
      s: {},
      error: "failed to select pull request service provider: no Pull Request provider implementation configured",
    },
    {
      name: "a token Secret outside the allowed shape in strict mode",
      s: spec(),
      settings: { tokenRefStrictMode: true },
      secrets: [scmSecret("gh", { token: "t" }, { "argocd.argoproj.io/secret-type": "repository" })],
      error:
        "failed to select pull request service provider: error fetching Secret token: secret argocd/gh is not a valid SCM creds secret",
    },
  ])("refuses $name", async ({ s, settings, secrets: own, error }) => {
    api.on("GET", "/api/v3/repos/acme/web/pulls", { body: [] });
    const h = harness({ secrets: own ?? secrets, settings: settings ?? {} });
    await expect(createPullRequestGenerator(h.services).generate(s, appSet([]), h.ctx)).rejects.toThrow(error);
    expect(api.seen).toHaveLength(0);
  });

  it("keeps failing without calling while rate limited, and the message never changes", async () => {
    api.on("GET", "/api/v3/repos/acme/web/pulls", {
      status: 403,
      body: { message: "You have exceeded a secondary rate limit. Request ID 1234" },
      headers: { "Retry-After": "120" },
    });
    const h = harness({ secrets });
    const gen = createPullRequestGenerator(h.services);
    const errs = await Promise.all(
      [0, 1].map(async () => gen.generate(spec(), appSet([]), h.ctx).catch((e: unknown) => (e as Error).message)),
    );
    h.clock.advance(60_000);
    errs.push(await gen.generate(spec(), appSet([]), h.ctx).catch((e: unknown) => (e as Error).message));
    expect(new Set(errs).size).toBe(1);
    expect(errs[0]).not.toContain("1234");
    expect(api.seen.length).toBeLessThanOrEqual(2);
    h.clock.advance(61_000);
    api.reset();
    api.on("GET", "/api/v3/repos/acme/web/pulls", { body: [githubPull(1, { sha: sha("x") })] });
    expect(await gen.generate(spec(), appSet([]), h.ctx)).toHaveLength(1);
  });
});
