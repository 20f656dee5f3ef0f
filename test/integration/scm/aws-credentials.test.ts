/**
 * The controller's AWS credentials as src/cli builds them (the AWS SDK's default chain,
 * `fromNodeProviderChain`), each source against real local servers: the CodeCommit stand-in that
 * checks every SigV4 signature, its STS (AssumeRole, AssumeRoleWithWebIdentity), and a container
 * credentials endpoint as EKS Pod Identity serves it. The SDK reads a few variables from the
 * process environment itself (the static keys, whether a container endpoint is set, the instance
 * metadata switch), so those are stubbed there as well as passed in the map.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { awsSettings } from "../../../src/cli/scm.js";
import type { Env } from "../../../src/config/index.js";
import { createScmProviderGenerator } from "../../../src/generators/scm-provider.js";
import { appSet } from "../../unit/generators/builders.js";
import { harness, type Harness } from "../../unit/scm/support.js";
import { BASE_CREDS, fakeAws, serveAws, type FakeAws } from "../support/scm-aws.js";
import { FakeApi, type Seen } from "../support/scm-server.js";

const api = new FakeApi();
const dir = mkdtempSync(join(tmpdir(), "aws-chain-"));
beforeAll(() => api.start());
afterAll(async () => {
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Variables the SDK reads from the process environment on its own. */
const SDK_READS = [
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_PROFILE",
  "AWS_CONTAINER_CREDENTIALS_FULL_URI",
  "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
  "AWS_CONTAINER_AUTHORIZATION_TOKEN",
  "AWS_WEB_IDENTITY_TOKEN_FILE",
  "AWS_ROLE_ARN",
];
beforeEach(() => {
  api.reset();
  for (const name of SDK_READS) vi.stubEnv(name, undefined);
  // no probe of an instance metadata service from the test machine
  vi.stubEnv("AWS_EC2_METADATA_DISABLED", "true");
});
afterEach(() => vi.unstubAllEnvs());

const ROLE = "arn:aws:iam::210987654321:role/discovery";

/** The environment pointing every AWS endpoint at the stand-in, with no shared files unless given. */
function envOf(extra: Env = {}): Env {
  return {
    AWS_REGION: "eu-west-1",
    AWS_ENDPOINT_URL: api.url,
    AWS_ENDPOINT_URL_STS: `${api.url}/sts`,
    AWS_CONFIG_FILE: join(dir, "no-config"),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, "no-credentials"),
    ...extra,
  };
}

function setup(env: Env): { h: Harness; aws: FakeAws; run: (role?: string) => Promise<unknown> } {
  const h = harness({ settings: { aws: awsSettings(env) } });
  const aws = fakeAws([{ name: "r", defaultBranch: "main" }], () => h.clock.now());
  serveAws(api, aws);
  const gen = createScmProviderGenerator(h.services);
  return { h, aws, run: (role) => gen.generate({ awsCodeCommit: role === undefined ? {} : { role } }, appSet([]), h.ctx) };
}

const keyOf = (s: Seen | undefined): string => /Credential=([^/]+)\//.exec(String(s?.headers.authorization))?.[1] ?? "unsigned";
const listCalls = (): Seen[] => api.seen.filter((s) => s.headers["x-amz-target"] === "CodeCommit_20150413.ListRepositories");
const stsActions = (): string[] => api.calls("/sts").map((s) => new URLSearchParams(s.body).get("Action") ?? "");

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("AWS credentials from the SDK's default chain", () => {
  it("signs with the environment's static keys and session token", async () => {
    const { aws, run } = setup(envOf());
    aws.keys.set("ASIAENVKEY", { accessKeyId: "ASIAENVKEY", secretAccessKey: "env/secret", sessionToken: "env-token" });
    vi.stubEnv("AWS_ACCESS_KEY_ID", "ASIAENVKEY");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "env/secret");
    vi.stubEnv("AWS_SESSION_TOKEN", "env-token");
    expect(await run()).toHaveLength(1);
    expect([keyOf(listCalls()[0]), listCalls()[0]?.headers["x-amz-security-token"]]).toEqual(["ASIAENVKEY", "env-token"]);
  });

  it.each([
    // name; AWS_PROFILE; key expected, or the stand-in's refusal
    { name: "AWS_PROFILE picks its profile of the shared credentials file", profile: "ci", key: "AKIAFAKEBASE" },
    { name: "without AWS_PROFILE the default profile is used", profile: undefined, error: "UnrecognizedClientException" },
  ])("$name", async ({ profile, key, error }) => {
    const creds = file(
      "credentials",
      `[default]\naws_access_key_id = AKIAUNKNOWN\naws_secret_access_key = nope\n\n[ci]\naws_access_key_id = ${BASE_CREDS.accessKeyId}\naws_secret_access_key = ${BASE_CREDS.secretAccessKey}\n`,
    );
    const { run } = setup(envOf({ AWS_SHARED_CREDENTIALS_FILE: creds, ...(profile === undefined ? {} : { AWS_PROFILE: profile }) }));
    if (error !== undefined) await expect(run()).rejects.toThrow(error);
    else expect(await run()).toHaveLength(1);
    expect(keyOf(listCalls()[0])).toBe(key ?? "AKIAUNKNOWN");
  });

  it("assumes a profile's role_arn with its source_profile's keys through the stand-in's STS", async () => {
    const creds = file(
      "credentials-src",
      `[base]\naws_access_key_id = ${BASE_CREDS.accessKeyId}\naws_secret_access_key = ${BASE_CREDS.secretAccessKey}\n`,
    );
    const config = file("config-role", `[profile deploy]\nrole_arn = ${ROLE}\nsource_profile = base\n`);
    const { aws, run } = setup(envOf({ AWS_SHARED_CREDENTIALS_FILE: creds, AWS_CONFIG_FILE: config, AWS_PROFILE: "deploy" }));
    aws.roles.add(ROLE);
    expect(await run()).toHaveLength(1);
    expect(stsActions()).toEqual(["AssumeRole"]);
    expect(keyOf(api.calls("/sts")[0])).toBe("AKIAFAKEBASE");
    expect(keyOf(listCalls()[0])).toBe("ASIATEMP1");
  });

  it.each([
    // name; how the authorization token is given
    { name: "reads the container credentials endpoint with AWS_CONTAINER_AUTHORIZATION_TOKEN", tokenFile: false },
    { name: "reads the container credentials endpoint with the token file EKS Pod Identity mounts", tokenFile: true },
  ])("$name", async ({ tokenFile }) => {
    const endpoint = {
      AWS_CONTAINER_CREDENTIALS_FULL_URI: `${api.url}/v1/credentials`,
      ...(tokenFile
        ? { AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: file("pod-identity-token", "pod-identity-jwt") }
        : { AWS_CONTAINER_AUTHORIZATION_TOKEN: "pod-identity-jwt" }),
    };
    // the SDK only checks that the process environment names an endpoint; the map's values are the ones used
    vi.stubEnv("AWS_CONTAINER_CREDENTIALS_FULL_URI", `${api.url}/v1/stale`);
    vi.stubEnv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "stale-jwt");
    const { aws, run, h } = setup(envOf(endpoint));
    aws.keys.set("ASIAPOD", { accessKeyId: "ASIAPOD", secretAccessKey: "pod/secret", sessionToken: "pod-token" });
    api.on("GET", "/v1/credentials", (req) =>
      req.headers.authorization === "pod-identity-jwt"
        ? {
            body: {
              AccessKeyId: "ASIAPOD",
              SecretAccessKey: "pod/secret",
              Token: "pod-token",
              Expiration: new Date(h.clock.now() + 3_600_000).toISOString(),
            },
          }
        : { status: 401, body: { Code: "AccessDenied", Message: "bad token" } },
    );
    expect(await run()).toHaveLength(1);
    expect(api.calls("/v1/credentials").map((s) => s.headers.authorization)).toEqual(["pod-identity-jwt"]);
    expect([keyOf(listCalls()[0]), listCalls()[0]?.headers["x-amz-security-token"]]).toEqual(["ASIAPOD", "pod-token"]);
  });

  it("exchanges the web identity token file without signing, re-reads it when the credentials expire, and assumes a role on top", async () => {
    const IRSA = "arn:aws:iam::123456789012:role/appset-irsa";
    const token = file("token", "jwt-1");
    const { h, aws, run } = setup(envOf({ AWS_WEB_IDENTITY_TOKEN_FILE: token, AWS_ROLE_ARN: IRSA }));
    aws.roles.add(IRSA).add(ROLE);
    aws.webTokens.add("jwt-1").add("jwt-2");
    await run();
    await run(ROLE);
    expect(stsActions()).toEqual(["AssumeRoleWithWebIdentity", "AssumeRole"]);
    const [web, assume] = api.calls("/sts");
    expect([new URLSearchParams(web?.body).get("RoleArn"), new URLSearchParams(web?.body).get("WebIdentityToken"), keyOf(web)]).toEqual([
      IRSA,
      "jwt-1",
      "unsigned",
    ]);
    expect(keyOf(assume)).toBe("ASIATEMP1");
    expect(listCalls().map(keyOf)).toEqual(["ASIATEMP1", "ASIATEMP2"]);
    expect(h.services.http(h.clock).stats()["awsCodeCommit"]?.requests).toBe(api.seen.length);
    writeFileSync(token, "jwt-2");
    h.clock.advance(15 * 60_000);
    api.seen.length = 0;
    await run();
    expect(new URLSearchParams(api.calls("/sts")[0]?.body).get("WebIdentityToken")).toBe("jwt-2");
  });

  it("names STS's refusal of the web identity token", async () => {
    const token = file("forged", "forged");
    const { run } = setup(envOf({ AWS_WEB_IDENTITY_TOKEN_FILE: token, AWS_ROLE_ARN: "arn:aws:iam::1:role/w" }));
    await expect(run()).rejects.toThrow(
      "error listing repos: failed to list codecommit repository: error getting AWS credentials: InvalidIdentityToken: Incorrect token audience",
    );
  });

  it("fails with the chain's last error when no source has credentials", async () => {
    const { run } = setup(envOf());
    await expect(run()).rejects.toThrow(
      "error listing repos: failed to list codecommit repository: error getting AWS credentials: Could not load credentials from any providers",
    );
    expect(api.seen).toEqual([]);
  });
});
