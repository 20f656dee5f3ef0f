import { describe, expect, it } from "vitest";
import { awsSettings } from "./scm.js";

describe("AWS settings", () => {
  it("take the region and endpoints of the environment, and a credential source on the SDK's chain", () => {
    // the credential source is checked against local servers in test/integration
    const env = { AWS_REGION: "eu-west-1", AWS_ENDPOINT_URL: "http://all", AWS_ENDPOINT_URL_STS: "http://sts" };
    const { credentials, ...rest } = awsSettings(env);
    expect(rest).toEqual({ region: "eu-west-1", endpoints: { codecommit: "http://all", tagging: "http://all", sts: "http://sts" } });
    expect(typeof credentials).toBe("function");
  });
});
