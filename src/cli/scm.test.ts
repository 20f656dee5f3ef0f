import { describe, expect, it } from "vitest";
import { awsChainOptions, awsSettings } from "./scm.js";

describe("AWS settings from the standard environment variables", () => {
  it.each([
    // name; environment; settings expected (the credential source is checked against local servers in test/integration)
    { name: "nothing set means no region or endpoints", env: {}, want: { endpoints: {} } },
    {
      name: "AWS_REGION wins over AWS_DEFAULT_REGION",
      env: { AWS_REGION: "eu-west-1", AWS_DEFAULT_REGION: "us-east-1" },
      want: { region: "eu-west-1", endpoints: {} },
    },
    { name: "AWS_DEFAULT_REGION is the fallback", env: { AWS_DEFAULT_REGION: "us-east-1" }, want: { region: "us-east-1", endpoints: {} } },
    {
      name: "service endpoint variables beat AWS_ENDPOINT_URL",
      env: {
        AWS_ENDPOINT_URL: "http://all",
        AWS_ENDPOINT_URL_CODECOMMIT: "http://cc",
        AWS_ENDPOINT_URL_RESOURCE_GROUPS_TAGGING_API: "http://tag",
      },
      want: { endpoints: { codecommit: "http://cc", tagging: "http://tag", sts: "http://all" } },
    },
    { name: "empty values count as unset", env: { AWS_REGION: "", AWS_ENDPOINT_URL: "" }, want: { endpoints: {} } },
  ])("$name", ({ env, want }) => {
    const { credentials, ...rest } = awsSettings(env);
    expect(rest).toEqual(want);
    expect(typeof credentials).toBe("function");
  });

  it("hands the SDK's chain the profile, shared files, web identity and container settings of the map, and nothing else", () => {
    const env = {
      AWS_PROFILE: "ci",
      AWS_SHARED_CREDENTIALS_FILE: "/c",
      AWS_CONFIG_FILE: "/f",
      AWS_WEB_IDENTITY_TOKEN_FILE: "/t",
      AWS_ROLE_ARN: "arn:aws:iam::1:role/r",
      AWS_ROLE_SESSION_NAME: "me",
      AWS_CONTAINER_CREDENTIALS_FULL_URI: "http://169.254.170.23/v1/credentials",
      AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: "/k",
      AWS_ACCESS_KEY_ID: "AK",
      AWS_CONTAINER_AUTHORIZATION_TOKEN: "",
    };
    expect(awsChainOptions(env)).toEqual({
      profile: "ci",
      filepath: "/c",
      configFilepath: "/f",
      webIdentityTokenFile: "/t",
      roleArn: "arn:aws:iam::1:role/r",
      roleSessionName: "me",
      awsContainerCredentialsFullUri: "http://169.254.170.23/v1/credentials",
      awsContainerAuthorizationTokenFile: "/k",
    });
  });
});
