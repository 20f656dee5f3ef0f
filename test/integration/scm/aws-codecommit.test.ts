/**
 * The SCM Provider generator on AWS CodeCommit against a local server answering as CodeCommit, the
 * Resource Groups Tagging API and STS do, which checks every request's SigV4 signature. The pure
 * helpers are tested in src/scm/providers/aws-codecommit.test.ts; the controller's credential chain
 * (environment keys, profiles, container credentials, web identity) in aws-credentials.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ScmProviderGenerator } from "../../../src/api/index.js";
import { createScmProviderGenerator } from "../../../src/generators/scm-provider.js";
import type { AwsSettings } from "../../../src/scm/aws/client.js";
import { appSet } from "../../unit/generators/builders.js";
import { harness, type Harness } from "../../unit/scm/support.js";
import { BASE_CREDS, fakeAws, serveAws, staticCredentials, type FakeAws, type FakeRepo } from "../support/scm-aws.js";
import { FakeApi } from "../support/scm-server.js";

const api = new FakeApi();
beforeAll(() => api.start());
afterAll(() => api.stop());
beforeEach(() => api.reset());

const ROLE = "arn:aws:iam::210987654321:role/discovery";

function setup(repos: FakeRepo[], o: { settings?: Partial<AwsSettings> } = {}): { h: Harness; aws: FakeAws; settings: AwsSettings } {
  const settings: AwsSettings = {
    credentials: staticCredentials(BASE_CREDS),
    region: "eu-west-1",
    endpoints: { codecommit: api.url, tagging: api.url, sts: `${api.url}/sts` },
    ...o.settings,
  };
  const h = harness({ settings: { aws: settings } });
  const aws = fakeAws(repos, () => h.clock.now());
  serveAws(api, aws);
  return { h, aws, settings };
}

const cc = (
  extra: Partial<NonNullable<ScmProviderGenerator["awsCodeCommit"]>> = {},
  rest: Partial<ScmProviderGenerator> = {},
): ScmProviderGenerator => ({ awsCodeCommit: { ...extra }, ...rest });
const targets = (): string[] =>
  api.seen.map((s) =>
    String(s.headers["x-amz-target"] ?? new URLSearchParams(s.body).get("Action") ?? "")
      .split(".")
      .pop()!,
  );

describe("the SCM Provider generator on AWS CodeCommit", () => {
  it("emits Argo CD's parameters for each repository's default branch and skips a repository without one", async () => {
    const { h } = setup([{ name: "svc-a", defaultBranch: "main" }, { name: "empty" }, { name: "svc_b", defaultBranch: "trunk" }]);
    const got = await createScmProviderGenerator(h.services).generate(cc(), appSet([]), h.ctx);
    expect(got).toEqual([
      {
        organization: "123456789012",
        repository: "svc-a",
        repository_id: "svc-a-0000-uuid",
        url: "ssh://git-codecommit.eu-west-1.amazonaws.com/v1/repos/svc-a",
        branch: "main",
        sha: "",
        short_sha: "",
        short_sha_7: "",
        labels: "",
        branchNormalized: "main",
      },
      expect.objectContaining({ repository: "svc_b", branch: "trunk", branchNormalized: "trunk" }),
    ]);
    expect(targets()).toEqual(["ListRepositories", "BatchGetRepositories"]);
    expect(api.seen.every((s) => String(s.headers.authorization).startsWith("AWS4-HMAC-SHA256 Credential=AKIAFAKEBASE/"))).toBe(true);
  });

  it.each([
    // name; cloneProtocol; URL of the first repository or error
    { name: "ssh is the default", protocol: undefined, url: "ssh://git-codecommit.eu-west-1.amazonaws.com/v1/repos/r" },
    { name: "https uses cloneUrlHttp", protocol: "https", url: "https://git-codecommit.eu-west-1.amazonaws.com/v1/repos/r" },
    { name: "https-fips rewrites the host", protocol: "https-fips", url: "https://git-codecommit-fips.eu-west-1.amazonaws.com/v1/repos/r" },
    { name: "an unknown protocol is refused", protocol: "git", error: "error listing repos: unknown clone protocol for codecommit git" },
  ])("$name", async ({ protocol, url, error }) => {
    const { h } = setup([{ name: "r", defaultBranch: "main" }]);
    const run = createScmProviderGenerator(h.services).generate(
      cc({}, protocol === undefined ? {} : { cloneProtocol: protocol }),
      appSet([]),
      h.ctx,
    );
    if (error !== undefined) await expect(run).rejects.toThrow(error);
    else expect((await run)[0]?.["url"]).toBe(url);
  });

  it("follows ListRepositories pages and asks BatchGetRepositories for at most 100 names a call", async () => {
    const repos = Array.from({ length: 230 }, (_, i) => ({ name: `r${String(i).padStart(3, "0")}`, defaultBranch: "main" }));
    const { h, aws } = setup(repos);
    aws.pageSize = 100;
    const got = await createScmProviderGenerator(h.services).generate(cc(), appSet([]), h.ctx);
    expect(got.map((p) => p["repository"])).toEqual(repos.map((r) => r.name));
    expect(targets()).toEqual([
      "ListRepositories",
      "ListRepositories",
      "ListRepositories",
      "BatchGetRepositories",
      "BatchGetRepositories",
      "BatchGetRepositories",
    ]);
    expect(JSON.parse(api.seen[1]!.body)).toEqual({ nextToken: "100" });
  });

  it("lists tagged repositories through GetResources with the filters grouped by key", async () => {
    const { h, aws } = setup([
      { name: "a", defaultBranch: "main", tags: { team: "x", env: "prod" } },
      { name: "b", defaultBranch: "main", tags: { team: "y", env: "dev" } },
      { name: "c", defaultBranch: "main", tags: { team: "z", env: "prod" } },
      { name: "d", defaultBranch: "main", tags: { team: "x" } },
    ]);
    aws.pageSize = 1;
    const spec = cc({ tagFilters: [{ key: "team", value: "x" }, { key: "env" }, { key: "team", value: "y" }, { key: "team", value: "" }] });
    const got = await createScmProviderGenerator(h.services).generate(spec, appSet([]), h.ctx);
    expect(got.map((p) => p["repository"])).toEqual(["a", "b"]);
    const first = JSON.parse(api.seen[0]!.body) as Record<string, unknown>;
    expect(first).toEqual({
      ResourceTypeFilters: ["codecommit:repository"],
      TagFilters: [{ Key: "team", Values: ["x", "y"] }, { Key: "env" }],
      ResourcesPerPage: 100,
    });
    expect(targets()).toEqual(["GetResources", "GetResources", "BatchGetRepositories"]);
    expect(api.seen[0]!.headers.authorization).toContain("/eu-west-1/tagging/aws4_request");
  });

  it("expands every branch with allBranches, following ListBranches pages, without SHAs", async () => {
    const { h, aws } = setup([{ name: "r", defaultBranch: "main", branches: ["main", "dev", "feature/x"] }]);
    aws.pageSize = 2;
    const got = await createScmProviderGenerator(h.services).generate(cc({ allBranches: true }), appSet([]), h.ctx);
    expect(got.map((p) => [p["branch"], p["branchNormalized"], p["sha"]])).toEqual([
      ["main", "main", ""],
      ["dev", "dev", ""],
      ["feature/x", "feature-x", ""],
    ]);
  });

  it.each([
    // name; filter; repositories kept
    { name: "pathsExist finds a file in its parent folder", filters: [{ pathsExist: ["deploy/app.yaml"] }], want: ["a"] },
    { name: "pathsExist finds a folder (trailing slash ignored)", filters: [{ pathsExist: ["deploy/"] }], want: ["a", "b"] },
    { name: "pathsExist on a top-level file reads the root folder", filters: [{ pathsExist: ["README.md"] }], want: ["b"] },
    { name: "a missing parent folder means the path does not exist", filters: [{ pathsDoNotExist: ["charts/x"] }], want: ["a", "b", "c"] },
    { name: "pathsDoNotExist drops repositories holding the path", filters: [{ pathsDoNotExist: ["deploy"] }], want: ["c"] },
    { name: "the root folder always exists", filters: [{ pathsExist: ["/"] }], want: ["a", "b", "c"] },
  ])("$name", async ({ filters, want }) => {
    const { h } = setup([
      { name: "a", defaultBranch: "main", files: ["deploy/app.yaml"] },
      { name: "b", defaultBranch: "main", files: ["deploy/other/x.yaml", "README.md"] },
      { name: "c", defaultBranch: "main", files: ["src/main.go"] },
    ]);
    const got = await createScmProviderGenerator(h.services).generate(cc({}, { filters }), appSet([]), h.ctx);
    expect(got.map((p) => p["repository"])).toEqual(want);
    for (const s of api.seen.filter((x) => String(x.headers["x-amz-target"]).endsWith("GetFolder")))
      expect(JSON.parse(s.body)).toMatchObject({ commitSpecifier: "main" });
  });
});

describe("AWS CodeCommit credentials", () => {
  it("assumes the role once, signs with the temporary credentials, and renews them before they expire", async () => {
    const { h, aws } = setup([{ name: "r", defaultBranch: "main" }]);
    aws.roles.add(ROLE);
    const gen = createScmProviderGenerator(h.services);
    await gen.generate(cc({ role: ROLE }), appSet([]), h.ctx);
    await gen.generate(cc({ role: ROLE }), appSet([]), h.ctx);
    expect(targets()).toEqual(["AssumeRole", "ListRepositories", "BatchGetRepositories", "ListRepositories", "BatchGetRepositories"]);
    expect(api.seen[0]!.headers.authorization).toContain("Credential=AKIAFAKEBASE/");
    expect(api.seen[0]!.headers.authorization).toContain("/eu-west-1/sts/aws4_request");
    const form = new URLSearchParams(api.seen[0]!.body);
    // aws-sdk-go-v2's AssumeRoleProvider defaults, as Argo CD sends them: the session name holds the time in ns
    expect([form.get("RoleArn"), form.get("RoleSessionName"), form.get("DurationSeconds")]).toEqual([
      ROLE,
      `aws-go-sdk-${String(h.clock.now())}000000`,
      "900",
    ]);
    expect(api.seen[1]!.headers.authorization).toContain("Credential=ASIATEMP1/");
    expect(api.seen[1]!.headers["x-amz-security-token"]).toBe("token+1/==");
    h.clock.advance(14.5 * 60_000);
    api.seen.length = 0;
    await gen.generate(cc({ role: ROLE }), appSet([]), h.ctx);
    expect(targets()).toEqual(["AssumeRole", "ListRepositories", "BatchGetRepositories"]);
    expect(api.seen[1]!.headers.authorization).toContain("Credential=ASIATEMP2/");
  });

  it("leaves retries to the SCM HTTP client: the SDK's STS client makes one attempt", async () => {
    const { h } = setup([{ name: "r", defaultBranch: "main" }]);
    api.override = {
      status: 500,
      text: "<ErrorResponse><Error><Code>InternalFailure</Code><Message>try later</Message></Error></ErrorResponse>",
    };
    await expect(createScmProviderGenerator(h.services).generate(cc({ role: ROLE }), appSet([]), h.ctx)).rejects.toThrow(
      `error listing repos: failed to list codecommit repository: error assuming role ${ROLE}: InternalFailure: try later`,
    );
    expect(targets()).toEqual(["AssumeRole"]);
  });

  it.each([
    // name; settings; spec; error
    {
      name: "a role STS refuses names the role and STS's code",
      spec: cc({ role: "arn:aws:iam::1:role/nope" }),
      error:
        "error listing repos: failed to list codecommit repository: error assuming role arn:aws:iam::1:role/nope: AccessDenied: User is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::1:role/nope",
    },
    {
      name: "a wrong secret is refused by the signature check",
      settings: { credentials: staticCredentials({ accessKeyId: "AKIAFAKEBASE", secretAccessKey: "wrong" }) },
      spec: cc(),
      error:
        "error listing repos: failed to list codecommit repository: InvalidSignatureException: The request signature we calculated does not match the signature you provided.",
    },
    {
      name: "no region anywhere is an error",
      settings: { region: "" },
      spec: cc(),
      error: "error initializing AWS codecommit service: no AWS region: set region in the generator or AWS_REGION",
    },
    {
      name: "no credentials is an error",
      settings: { credentials: undefined },
      spec: cc(),
      error: "error listing repos: failed to list codecommit repository: no AWS credentials",
    },
    {
      name: "the generator's region wins over the environment's",
      settings: { region: "us-east-1" },
      spec: cc({ region: "eu-west-1" }),
      error: undefined,
    },
  ] as Array<{ name: string; settings?: Partial<AwsSettings>; spec: ScmProviderGenerator; error: string | undefined }>)(
    "$name",
    async ({ settings, spec, error }) => {
      const { h } = setup([{ name: "r", defaultBranch: "main" }], settings === undefined ? {} : { settings });
      const run = createScmProviderGenerator(h.services).generate(spec, appSet([]), h.ctx);
      if (error === undefined) expect(await run).toHaveLength(1);
      else await expect(run).rejects.toThrow(error);
      if (error !== undefined) await expect(run).rejects.toMatchObject({ reason: "ApplicationGenerationFromParamsError" });
    },
  );
});

describe("AWS CodeCommit under throttling", () => {
  it("pauses after a ThrottlingException, fails with the same message on every retry, then recovers", async () => {
    const { h } = setup([{ name: "r", defaultBranch: "main" }]);
    const gen = createScmProviderGenerator(h.services);
    const good = await gen.generate(cc(), appSet([]), h.ctx);
    api.override = { status: 400, body: { __type: "ThrottlingException", message: "Rate exceeded (request 9f1c)" } };
    api.seen.length = 0;
    const messages: string[] = [];
    for (let i = 0; i < 3; i++) {
      messages.push(
        await gen.generate(cc(), appSet([]), h.ctx).then(
          () => "resolved",
          (e: unknown) => (e as Error).message,
        ),
      );
      h.clock.advance(10_000);
    }
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).toMatch(/^error listing repos: API rate limit exceeded for 127\.0\.0\.1:\d+: requests paused/);
    expect(api.seen).toHaveLength(1);
    api.override = undefined;
    h.clock.advance(60_000);
    expect(await gen.generate(cc(), appSet([]), h.ctx)).toEqual(good);
  });
});
