/**
 * The User-Agent of SCM provider requests, as the controller builds its SCM services: every
 * request of the SCM Provider and Pull Request generators names the controller, its version and
 * platform, seen by a real local server that records the headers it gets; the AWS SDK's STS calls
 * carry the SCM client's User-Agent too.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PullRequestGenerator, ScmProviderGenerator } from "../../../src/api/index.js";
import { createPullRequestGenerator } from "../../../src/generators/pull-request.js";
import { createScmProviderGenerator } from "../../../src/generators/scm-provider.js";
import type { ScmServices } from "../../../src/scm/services.js";
import { giteaRepo, githubBranch, githubPull, githubRepo, gitlabProject, sha } from "../../fixtures/scm/payloads.js";
import { appSet } from "../../unit/generators/builders.js";
import { harness } from "../../unit/scm/support.js";
import { ControllerScm } from "../support/scm-controller.js";
import { BASE_CREDS, fakeAws, serveAws, staticCredentials } from "../support/scm-aws.js";
import { FakeApi } from "../support/scm-server.js";

const api = new FakeApi();
const controller = new ControllerScm();
beforeAll(() => api.start());
afterAll(async () => {
  await api.stop();
  await controller.close();
});
beforeEach(() => api.reset());

const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string };
const OURS = new RegExp(
  `^argocd-applicationset-controller/v${pkg.version.replace(/\./g, "\\.")} \\((linux|darwin|windows|freebsd)/(amd64|arm64|386|arm|ppc64le|s390x|riscv64)\\)$`,
);

const ROLE = "arn:aws:iam::210987654321:role/discovery";

type Run = (services: ScmServices) => Promise<unknown[]>;
const scm =
  (spec: () => ScmProviderGenerator): Run =>
  (services) =>
    createScmProviderGenerator(services).generate(spec(), appSet([]), harness().ctx);
const pr =
  (spec: () => PullRequestGenerator): Run =>
  (services) =>
    createPullRequestGenerator(services).generate(spec(), appSet([]), harness().ctx);

describe("the User-Agent of SCM requests", () => {
  it.each([
    {
      name: "the SCM Provider generator on GitHub",
      serve: (): void => {
        api.on("GET", "/api/v3/orgs/acme/repos", { body: [githubRepo("acme", "a")] });
        api.on("GET", "/api/v3/repos/acme/a/branches/main", { body: githubBranch("main", sha("a")) });
      },
      run: scm(() => ({ github: { organization: "acme", api: api.url } })),
    },
    {
      name: "the SCM Provider generator on GitLab",
      serve: (): void => {
        api.on("GET", "/api/v4/groups/grp/projects", { body: [gitlabProject("grp", "p", 1)] });
        api.on("GET", "/api/v4/projects/1/repository/branches/main", { body: { name: "main", commit: { id: sha("p") } } });
      },
      run: scm(() => ({ gitlab: { group: "grp", api: api.url } })),
    },
    {
      name: "the Pull Request generator on GitHub",
      serve: (): void => void api.on("GET", "/api/v3/repos/acme/web/pulls", { body: [githubPull(1)] }),
      run: pr(() => ({ github: { owner: "acme", repo: "web", api: api.url } })),
    },
    {
      name: "the Pull Request generator on Gitea",
      serve: (): void => {
        api.on("GET", "/api/v1/repos/org/web/pulls", {
          body: [{ number: 1, title: "T", head: { ref: "f", sha: sha("f") }, base: { ref: "main" }, user: { login: "u" }, labels: [] }],
        });
        api.on("GET", "/api/v1/repos/org/web", { body: giteaRepo("org", "web", 1) });
      },
      run: pr(() => ({ gitea: { owner: "org", repo: "web", api: api.url } })),
    },
  ])("names the controller, its version and platform on every request of $name", async (row) => {
    row.serve();
    const got = await row.run(controller.services());
    expect(got).toHaveLength(1);
    expect(api.seen.length).toBeGreaterThan(0);
    for (const s of api.seen) expect(s.headers["user-agent"]).toMatch(OURS);
  });
});

describe("the User-Agent of the AWS SDK's STS calls", () => {
  it("is the SCM client's, the SDK naming itself in X-Amz-User-Agent only", async () => {
    const agent = "argocd-applicationset-controller/v9.9.9 (linux/amd64)";
    const h = harness({
      settings: {
        aws: {
          credentials: staticCredentials(BASE_CREDS),
          region: "eu-west-1",
          endpoints: { codecommit: api.url, tagging: api.url, sts: `${api.url}/sts` },
        },
      },
      extra: { userAgent: agent },
    });
    const aws = fakeAws([{ name: "r", defaultBranch: "main" }], () => h.clock.now());
    aws.roles.add(ROLE);
    serveAws(api, aws);
    const got = await createScmProviderGenerator(h.services).generate({ awsCodeCommit: { role: ROLE } }, appSet([]), h.ctx);
    expect(got).toHaveLength(1);
    const sts = api.calls("/sts");
    expect(sts).toHaveLength(1);
    expect(sts[0]?.headers["x-amz-user-agent"]).toMatch(/^aws-sdk-js\//);
    expect(api.seen.map((s) => s.headers["user-agent"])).toEqual(api.seen.map(() => agent));
  });
});
