import { describe, expect, it } from "vitest";
import { AppSetError } from "../errors.js";
import { REVISION_NOT_FOUND_REASON } from "../git/index.js";
import { parseParamFile } from "./git.js";
import { revisionError } from "./git-wording.js";

describe("the Git generator's failures in Argo CD's words", () => {
  it.each([
    {
      name: "a revision that does not resolve",
      err: new AppSetError(REVISION_NOT_FOUND_REASON, "unable to resolve 'v9' to a commit SHA in file:///r"),
      want: "rpc error: code = Internal desc = unable to resolve git revision : unable to resolve 'v9' to a commit SHA: revision not found",
    },
    {
      name: "a repository that does not exist",
      err: new Error("git ls-remote: fatal: '/nope' does not appear to be a git repository"),
      want: "rpc error: code = Internal desc = unable to resolve git revision : failed to list refs: repository not found",
    },
    {
      name: "credentials refused",
      err: new Error("git ls-remote: fatal: Authentication failed for 'https://x/'"),
      want: "rpc error: code = Internal desc = unable to resolve git revision : failed to list refs: authentication required",
    },
    {
      name: "anything else, as git said it",
      err: new Error("git ls-remote: fatal: unable to access 'https://x/': Could not resolve host: x"),
      want: "rpc error: code = Internal desc = unable to resolve git revision : failed to list refs: fatal: unable to access 'https://x/': Could not resolve host: x",
    },
  ])("$name", ({ err, want }) => {
    expect(revisionError(err, "v9")).toBe(want);
  });

  it.each([
    {
      name: "a list with a scalar item",
      text: "- a: 1\n- two\n",
      want: "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into .1 of type map[string]interface {}",
    },
    {
      name: "a scalar file",
      text: "42\n",
      want: "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go value of type []map[string]interface {}",
    },
    { name: "invalid YAML", text: '{"a": \n', want: /^error converting YAML to JSON: yaml: line 1: / },
  ])("a parameter file: $name", ({ text, want }) => {
    expect(() => parseParamFile(text)).toThrow(want);
  });

  it("reads a null list item as an empty object, as Go does", () => {
    expect(parseParamFile("- a: 1\n- null\n")).toEqual([{ a: 1 }, {}]);
  });
});
