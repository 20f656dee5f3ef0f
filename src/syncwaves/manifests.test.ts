import { describe, expect, it } from "vitest";
import { parseDirectory, parseFile } from "./manifests.js";

const cm = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

describe("reading the files of a directory source", () => {
  it.each([
    { name: "several documents", content: `${cm("a")}---\n${cm("b")}`, want: ["a", "b"] },
    { name: "empty documents are skipped", content: `---\n${cm("a")}---\n---\n`, want: ["a"] },
    {
      name: "a List is flattened",
      content: `apiVersion: v1\nkind: List\nitems:\n- ${cm("a").replace(/\n/g, "\n  ")}`,
      want: ["a"],
    },
    { name: "a values file beside the manifests is ignored", content: "replicaCount: 1\nimage:\n  tag: v1\n", want: [] },
    { name: "a YAML file that does not parse and is no manifest is ignored", content: "a: [\n", want: [] },
    { name: "a list of strings is ignored", content: "- a\n- b\n", want: [] },
  ])("$name", ({ content, want }) => {
    expect(parseFile({ path: "x.yaml", content }).map((o) => o.metadata?.name)).toEqual(want);
  });

  it.each([
    {
      name: "a document without kind after valid objects fails the file",
      content: `${cm("a")}---\nfoo: bar\n`,
      want: `Failed to unmarshal "x.yaml": Object 'Kind' is missing`,
    },
    {
      name: "a file that looks like a manifest but has no kind fails",
      content: "apiVersion: v1\nmetadata:\n  name: a\n# kind: ConfigMap\n",
      want: `Failed to unmarshal "x.yaml": Object 'Kind' is missing`,
    },
    { name: "an object without apiVersion fails", content: "kind: ConfigMap\nmetadata:\n  name: a\napiVersion:\n", want: "apiVersion" },
  ])("$name", ({ content, want }) => {
    expect(() => parseFile({ path: "x.yaml", content })).toThrow(want);
  });

  it("a JSON file that is not an object fails", () => {
    expect(() => parseFile({ path: "x.json", content: '{"a": 1}' })).toThrow(`Failed to unmarshal "x.json"`);
  });

  it("reads the selected files in path order and skips what is not a manifest", () => {
    const files = [
      { path: "b.yaml", content: cm("b") },
      { path: "values.yaml", content: "replicaCount: 1\n" },
      { path: "a.yml", content: cm("a") },
      { path: "README.md", content: cm("readme") },
      { path: "sub/c.yaml", content: cm("c") },
    ];
    expect(parseDirectory(files, undefined).map((o) => o.metadata?.name)).toEqual(["a", "b"]);
    expect(parseDirectory(files, { recurse: true }).map((o) => o.metadata?.name)).toEqual(["a", "b", "c"]);
  });
});
