import { describe, expect, it } from "vitest";
import { arnResource, groupTagFilters } from "./aws-codecommit.js";

// The generator against a server answering as CodeCommit, the Tagging API and STS do is tested in
// test/integration/scm/aws-codecommit.test.ts.

describe("AWS CodeCommit helpers", () => {
  it.each([
    // name; filters; grouped
    {
      name: "values of one key are OR'd in first-seen key order",
      tags: [{ key: "b", value: "1" }, { key: "a" }, { key: "b", value: "2" }],
      want: [{ Key: "b", Values: ["1", "2"] }, { Key: "a" }],
    },
    { name: "an empty value means the key exists", tags: [{ key: "k", value: "" }], want: [{ Key: "k" }] },
    { name: "no filters mean no grouping", tags: [], want: [] },
  ])("$name", ({ tags, want }) => {
    expect(groupTagFilters(tags)).toEqual(want);
  });

  it.each([
    { name: "a repository ARN yields its name", arn: "arn:aws:codecommit:eu-west-1:123456789012:my-repo", want: "my-repo" },
    { name: "a China-partition ARN works too", arn: "arn:aws-cn:codecommit:cn-north-1:1:r", want: "r" },
    { name: "a malformed ARN is skipped", arn: "codecommit:r", want: undefined },
  ])("$name", ({ arn, want }) => {
    expect(arnResource(arn)).toBe(want);
  });
});
