import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { awsSettings } from "./scm.js";

const dir = mkdtempSync(join(tmpdir(), "aws-env-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("AWS settings from the standard environment variables", () => {
  it.each([
    // name; environment; settings expected (webIdentity checked separately)
    { name: "nothing set means no credentials, region or endpoints", env: {}, want: { endpoints: {} } },
    {
      name: "static credentials with a session token and AWS_REGION",
      env: {
        AWS_ACCESS_KEY_ID: "AK",
        AWS_SECRET_ACCESS_KEY: "SK",
        AWS_SESSION_TOKEN: "T",
        AWS_REGION: "eu-west-1",
        AWS_DEFAULT_REGION: "us-east-1",
      },
      want: { credentials: { accessKeyId: "AK", secretAccessKey: "SK", sessionToken: "T" }, region: "eu-west-1", endpoints: {} },
    },
    {
      name: "a key id without a secret is no credentials; AWS_DEFAULT_REGION is the fallback",
      env: { AWS_ACCESS_KEY_ID: "AK", AWS_DEFAULT_REGION: "us-east-1" },
      want: { region: "us-east-1", endpoints: {} },
    },
    {
      name: "service endpoint variables beat AWS_ENDPOINT_URL",
      env: {
        AWS_ENDPOINT_URL: "http://all",
        AWS_ENDPOINT_URL_CODECOMMIT: "http://cc",
        AWS_ENDPOINT_URL_RESOURCE_GROUPS_TAGGING_API: "http://tag",
      },
      want: { endpoints: { codecommit: "http://cc", tagging: "http://tag", sts: "http://all" } },
    },
    {
      name: "empty values count as unset",
      env: { AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_REGION: "" },
      want: { endpoints: {} },
    },
  ])("$name", ({ env, want }) => {
    expect(awsSettings(env)).toEqual(want);
  });

  it("reads the web identity token file on every exchange", async () => {
    const file = join(dir, "token");
    writeFileSync(file, "jwt-1\n");
    const s = awsSettings({ AWS_ROLE_ARN: "arn:aws:iam::1:role/r", AWS_WEB_IDENTITY_TOKEN_FILE: file, AWS_ROLE_SESSION_NAME: "me" });
    expect(s.webIdentity).toMatchObject({ roleArn: "arn:aws:iam::1:role/r", sessionName: "me" });
    expect(await s.webIdentity?.token()).toBe("jwt-1\n");
    writeFileSync(file, "jwt-2");
    expect(await s.webIdentity?.token()).toBe("jwt-2");
    expect(awsSettings({ AWS_ROLE_ARN: "arn:aws:iam::1:role/r" }).webIdentity).toBeUndefined();
  });
});
