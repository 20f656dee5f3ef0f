/**
 * Every provider besides GitHub, through the generators, against a local server answering as the
 * provider's documented API does: parameters, pagination, path checks, pull requests, and the
 * API calls one reconcile of an unchanged 100-repository organisation costs (AWS CodeCommit's
 * own behaviour is in aws-codecommit.test.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BASE_CREDS, fakeAws, serveAws, staticCredentials } from "../support/scm-aws.js";
import { azureRepo, bitbucketCloudRepo, bitbucketServerRepo, giteaRepo, gitlabProject, sha } from "../../fixtures/scm/payloads.js";
import { appSet } from "../../unit/generators/builders.js";
import { FakeApi, linkPage, type Seen } from "../support/scm-server.js";
import { harness, scmSecret } from "../../unit/scm/support.js";
import type { PullRequestGenerator, ScmProviderGenerator } from "../../../src/api/index.js";
import { createPullRequestGenerator } from "../../../src/generators/pull-request.js";
import { createScmProviderGenerator } from "../../../src/generators/scm-provider.js";

const api = new FakeApi();
beforeAll(() => api.start());
afterAll(() => api.stop());
beforeEach(() => api.reset());

const secrets = [scmSecret("tok", { token: "s3cret" })];
const ref = { secretName: "tok", key: "token" };
const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `r${String(i).padStart(3, "0")}`);
const segment = (req: Seen, i: number): string => req.path.split("/")[i]!;

/** Bitbucket Server paging: `start` / `limit`, `isLastPage`, `nextPageStart`. */
function bbsPage(req: Seen, items: unknown[]): { body: unknown } {
  const start = Number(req.query.get("start") ?? 0);
  const limit = Number(req.query.get("limit") ?? 25);
  const values = items.slice(start, start + limit);
  const last = start + limit >= items.length;
  return { body: { size: values.length, limit, start, isLastPage: last, values, ...(last ? {} : { nextPageStart: start + limit }) } };
}

interface Provider {
  name: string;
  provider: string;
  serve: (n: number) => void;
  spec: () => ScmProviderGenerator;
  /** Parameters of the first repository. */
  first: Record<string, unknown>;
  auth: string;
}

const providers: Provider[] = [
  {
    name: "GitLab",
    provider: "gitlab",
    serve: (n) => {
      const projects = names(n).map((r, i) => gitlabProject("grp/sub", r, i + 1, { tagList: ["t1"] }));
      api.on("GET", "/api/v4/groups/grp/projects", (req) => linkPage(req, projects));
      api.on("GET", "/api/v4/projects/*/repository/branches/main", (req) => ({
        body: { name: "main", commit: { id: sha(segment(req, 4)) } },
      }));
    },
    spec: () => ({ gitlab: { group: "grp", api: api.url, tokenRef: ref, includeSubgroups: true } }),
    first: {
      organization: "grp/sub",
      repository: "r000",
      repository_id: 1,
      url: "git@gitlab.com:grp/sub/r000.git",
      branch: "main",
      sha: sha("1"),
      labels: "t1",
    },
    auth: "private-token",
  },
  {
    name: "Gitea",
    provider: "gitea",
    serve: (n) => {
      const repos = names(n).map((r, i) => giteaRepo("org", r, i + 1));
      api.on("GET", "/api/v1/orgs/org/repos", (req) => linkPage(req, repos, { perPageParam: "limit" }));
      api.on("GET", "/api/v1/repos/org/*/labels", { body: [{ id: 1, name: "backend", color: "fff" }] });
      api.on("GET", "/api/v1/repos/org/*/branches/main", (req) => ({ body: { name: "main", commit: { id: sha(segment(req, 5)) } } }));
    },
    spec: () => ({ gitea: { owner: "org", api: api.url, tokenRef: ref } }),
    first: {
      organization: "org",
      repository: "r000",
      repository_id: 1,
      url: "git@gitea.example.com:org/r000.git",
      branch: "main",
      sha: sha("r000"),
      labels: "backend",
    },
    auth: "authorization",
  },
  {
    name: "Bitbucket Server",
    provider: "bitbucketServer",
    serve: (n) => {
      const repos = names(n).map((r, i) => bitbucketServerRepo("PRJ", r, i + 1));
      api.on("GET", "/rest/api/1.0/projects/PRJ/repos", (req) => bbsPage(req, repos));
      api.on("GET", "/rest/api/1.0/projects/PRJ/repos/*/branches/default", (req) => ({
        body: { id: "refs/heads/main", displayId: "main", latestCommit: sha(segment(req, 7)), isDefault: true },
      }));
    },
    spec: () => ({ bitbucketServer: { project: "PRJ", api: api.url, bearerToken: { tokenRef: ref } } }),
    first: {
      organization: "PRJ",
      repository: "r000",
      repository_id: 1,
      url: "ssh://git@bitbucket.example.com:7999/prj/r000.git",
      branch: "main",
      sha: sha("r000"),
      labels: "",
    },
    auth: "authorization",
  },
  {
    name: "Bitbucket Cloud",
    provider: "bitbucket",
    serve: (n) => {
      const repos = names(n).map((r) => bitbucketCloudRepo("ws", r));
      api.on("GET", "/2.0/repositories/ws", (req) => {
        const page = Number(req.query.get("page") ?? "1");
        const values = repos.slice((page - 1) * 100, page * 100);
        return {
          body: {
            pagelen: 100,
            page,
            values,
            ...(page * 100 < repos.length
              ? { next: `${api.url}/2.0/repositories/ws?role=member&pagelen=100&page=${String(page + 1)}` }
              : {}),
          },
        };
      });
      api.on("GET", "/2.0/repositories/ws/*/refs/branches/main", (req) => ({
        body: { name: "main", target: { hash: sha(segment(req, 4)) } },
      }));
    },
    spec: () => ({ bitbucket: { owner: "ws", user: "me", appPasswordRef: ref } }),
    first: {
      organization: "ws",
      repository: "r000",
      repository_id: "{r000-uuid}",
      url: "git@bitbucket.org:ws/r000.git",
      branch: "main",
      sha: sha("r000"),
      labels: "",
    },
    auth: "authorization",
  },
  {
    name: "Azure DevOps",
    provider: "azureDevOps",
    serve: (n) => {
      api.on("GET", "/myorg/proj/_apis/git/repositories", {
        body: { count: n, value: names(n).map((r) => azureRepo("myorg", "proj", r)) },
      });
      api.on("GET", "/myorg/proj/_apis/git/repositories/*/stats/branches", (req) => ({
        body: { name: req.query.get("name"), commit: { commitId: sha(segment(req, 6)) } },
      }));
    },
    spec: () => ({ azureDevOps: { organization: "myorg", teamProject: "proj", api: api.url, accessTokenRef: ref } }),
    first: {
      organization: "myorg",
      repository: "r000",
      repository_id: "r000-guid",
      url: "https://myorg@dev.azure.com/myorg/proj/_git/r000",
      branch: "main",
      sha: sha("r000-guid"),
      labels: "",
    },
    auth: "authorization",
  },
  {
    name: "AWS CodeCommit",
    provider: "awsCodeCommit",
    serve: (n) =>
      serveAws(
        api,
        fakeAws(
          names(n).map((name) => ({ name, defaultBranch: "main" })),
          () => 0,
        ),
      ),
    spec: () => ({ awsCodeCommit: {} }),
    first: {
      organization: "123456789012",
      repository: "r000",
      repository_id: "r000-0000-uuid",
      url: "ssh://git-codecommit.eu-west-1.amazonaws.com/v1/repos/r000",
      branch: "main",
      sha: "",
      labels: "",
    },
    auth: "authorization",
  },
];

/** Settings pointing Bitbucket Cloud and AWS at the local server. */
const localSettings = () => ({
  bitbucketCloudApi: `${api.url}/2.0`,
  aws: {
    credentials: staticCredentials(BASE_CREDS),
    region: "eu-west-1",
    endpoints: { codecommit: api.url, tagging: api.url, sts: `${api.url}/sts` },
  },
});

describe.each(providers)("the SCM Provider generator on $name", (p) => {
  const run = async (n: number) => {
    p.serve(n);
    const h = harness({ secrets, settings: localSettings() });
    const gen = createScmProviderGenerator(h.services);
    return { h, gen, first: await gen.generate(p.spec(), appSet([]), h.ctx) };
  };

  it("emits the documented parameters and authenticates", async () => {
    const { first } = await run(2);
    expect(first).toHaveLength(2);
    expect(first[0]).toMatchObject({ ...p.first, short_sha: (p.first["sha"] as string).slice(0, 8), branchNormalized: "main" });
    expect(api.seen.every((s) => typeof s.headers[p.auth] === "string" && s.headers[p.auth] !== "")).toBe(true);
  });

  it("pages through 250 repositories and counts the calls of an unchanged reconcile", async () => {
    const { h, gen, first } = await run(250);
    expect(new Set(first.map((x) => x["repository"])).size).toBe(250);
    const client = h.services.http(h.clock);
    const before = client.requestsTo(p.provider);
    expect(await gen.generate(p.spec(), appSet([]), h.ctx)).toEqual(first);
    const cost = client.requestsTo(p.provider) - before;
    expect(cost).toBeGreaterThan(0);
    expect(cost).toBeLessThanOrEqual(first.length * 2 + 5);
  }, 30_000);
});

describe("the API calls of one reconcile of an unchanged organisation of 100 repositories", () => {
  it.each([
    // name; calls expected on the second reconcile; of those, answered 304 (AWS's POST APIs have no conditional form)
    { name: "GitLab", want: 101, conditional: 101 },
    { name: "Gitea", want: 202, conditional: 202 },
    { name: "Bitbucket Server", want: 101, conditional: 101 },
    { name: "Bitbucket Cloud", want: 1, conditional: 1 },
    { name: "Azure DevOps", want: 101, conditional: 101 },
    { name: "AWS CodeCommit", want: 2, conditional: 0 },
  ])(
    "$name costs $want calls",
    async ({ name, want, conditional }) => {
      const p = providers.find((x) => x.name === name)!;
      p.serve(100);
      const h = harness({ secrets, settings: localSettings() });
      const gen = createScmProviderGenerator(h.services);
      await gen.generate(p.spec(), appSet([]), h.ctx);
      const client = h.services.http(h.clock);
      const before = client.stats()[p.provider]!;
      await gen.generate(p.spec(), appSet([]), h.ctx);
      const after = client.stats()[p.provider]!;
      expect(after.requests - before.requests).toBe(want);
      expect(after.notModified - before.notModified).toBe(conditional);
    },
    30_000,
  );
});

describe("path checks", () => {
  it.each([
    // name; provider; route of an existing path; filter
    {
      name: "GitLab lists the parent tree",
      p: "GitLab",
      route: "/api/v4/projects/*/repository/tree",
      reply: (req: Seen) => ({
        body: req.query.get("path") === "deploy" && segment(req, 4) === "1" ? [{ name: "app.yaml", type: "blob" }] : [],
      }),
    },
    {
      name: "Gitea reads contents",
      p: "Gitea",
      route: "/api/v1/repos/org/r000/contents/deploy/app.yaml",
      reply: () => ({ body: { type: "file" } }),
    },
    {
      name: "Bitbucket Server browses",
      p: "Bitbucket Server",
      route: "/rest/api/1.0/projects/PRJ/repos/r000/browse/deploy/app.yaml",
      reply: () => ({ body: { path: {} } }),
    },
    {
      name: "Bitbucket Cloud reads src metadata",
      p: "Bitbucket Cloud",
      route: `/2.0/repositories/ws/r000/src/${sha("r000")}/deploy/app.yaml`,
      reply: () => ({ body: { type: "commit_file" } }),
    },
    {
      name: "Azure DevOps reads items",
      p: "Azure DevOps",
      route: "/myorg/proj/_apis/git/repositories/r000-guid/items",
      reply: () => ({ body: { path: "/deploy/app.yaml" } }),
    },
  ])("$name", async ({ p: name, route, reply }) => {
    const p = providers.find((x) => x.name === name)!;
    p.serve(3);
    api.on("GET", route, reply);
    const h = harness({ secrets, settings: { bitbucketCloudApi: `${api.url}/2.0` } });
    const spec = { ...p.spec(), filters: [{ pathsExist: ["deploy/app.yaml"] }] };
    const got = await createScmProviderGenerator(h.services).generate(spec, appSet([]), h.ctx);
    expect(got.map((x) => x["repository"])).toEqual(["r000"]);
  });
});

describe.each([
  {
    name: "GitLab",
    spec: (): PullRequestGenerator => ({
      gitlab: { project: "grp/web", api: api.url, tokenRef: ref, labels: ["a", "b"], pullRequestState: "opened" },
    }),
    route: "/api/v4/projects/grp/web/merge_requests",
    body: [
      {
        iid: 4,
        title: "T",
        source_branch: "feat",
        target_branch: "main",
        sha: sha("mr"),
        labels: ["a", "b"],
        author: { username: "alice" },
      },
    ],
    query: { labels: "a,b", state: "opened", per_page: "100" },
  },
  {
    name: "Gitea",
    spec: (): PullRequestGenerator => ({ gitea: { owner: "org", repo: "web", api: api.url, tokenRef: ref } }),
    route: "/api/v1/repos/org/web/pulls",
    body: [
      {
        number: 4,
        title: "T",
        head: { ref: "feat", sha: sha("mr") },
        base: { ref: "main" },
        user: { login: "alice" },
        labels: [{ name: "a" }],
      },
    ],
    query: { state: "open" },
  },
  {
    name: "Bitbucket Server",
    spec: (): PullRequestGenerator => ({
      bitbucketServer: { project: "PRJ", repo: "web", api: `${api.url}/`, basicAuth: { username: "u", passwordRef: ref } },
    }),
    route: "/rest/api/1.0/projects/PRJ/repos/web/pull-requests",
    body: {
      isLastPage: true,
      values: [
        {
          id: 4,
          title: "T",
          fromRef: { displayId: "feat", latestCommit: sha("mr") },
          toRef: { displayId: "main" },
          author: { user: { name: "alice" } },
        },
      ],
    },
    query: { limit: "100", start: "0" },
  },
  {
    name: "Bitbucket Cloud",
    spec: (): PullRequestGenerator => ({ bitbucket: { owner: "ws", repo: "web", api: `${api.url}/2.0`, bearerToken: { tokenRef: ref } } }),
    route: "/2.0/repositories/ws/web/pullrequests",
    body: {
      values: [
        {
          id: 4,
          title: "T",
          source: { branch: { name: "feat" }, commit: { hash: sha("mr") } },
          destination: { branch: { name: "main" } },
          author: { nickname: "alice" },
        },
      ],
    },
    query: {},
  },
  {
    name: "Azure DevOps",
    spec: (): PullRequestGenerator => ({
      azuredevops: { organization: "myorg", project: "proj", repo: "web", api: api.url, tokenRef: ref },
    }),
    route: "/myorg/proj/_apis/git/pullrequests",
    body: {
      value: [
        {
          pullRequestId: 4,
          title: "T",
          sourceRefName: "refs/heads/feat",
          targetRefName: "refs/heads/main",
          lastMergeSourceCommit: { commitId: sha("mr") },
          createdBy: { uniqueName: "alice@example.com" },
          repository: { name: "web" },
        },
        {
          pullRequestId: 5,
          title: "other repo",
          sourceRefName: "refs/heads/x",
          targetRefName: "refs/heads/main",
          lastMergeSourceCommit: { commitId: sha("o") },
          createdBy: { uniqueName: "bob" },
          repository: { name: "api" },
        },
      ],
    },
    query: {},
  },
])("the Pull Request generator on $name", ({ spec, route, body, query }) => {
  it("emits the documented parameters from the documented request", async () => {
    api.on("GET", route, { body });
    const h = harness({ secrets });
    const got = await createPullRequestGenerator(h.services).generate(spec(), appSet([]), h.ctx);
    expect(got).toEqual([
      {
        number: "4",
        title: "T",
        branch: "feat",
        branch_slug: "feat",
        target_branch: "main",
        target_branch_slug: "main",
        head_sha: sha("mr"),
        head_short_sha: sha("mr").slice(0, 8),
        head_short_sha_7: sha("mr").slice(0, 7),
        author: "alice",
      },
    ]);
    expect(Object.fromEntries(api.seen[0]!.query)).toMatchObject(query);
  });

  it("treats a 404 as a missing repository", async () => {
    const h = harness({ secrets });
    expect(
      await createPullRequestGenerator(h.services).generate({ ...spec(), continueOnRepoNotFoundError: true }, appSet([]), h.ctx),
    ).toEqual([]);
    await expect(createPullRequestGenerator(h.services).generate(spec(), appSet([]), h.ctx)).rejects.toThrow(
      /^error listing repos: repository not found: /,
    );
  });
});
