import { afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { appSetYaml, GenerateCli } from "../../test/support/generate-cli.js";
import { parseObjects } from "./generate.js";

// The cases that read Git repositories are in test/integration/cli/generate.test.ts.

const cli = new GenerateCli();
afterAll(() => cli.cleanup());
const write = (name: string, content: unknown): string => cli.write(name, content);
const run = (...args: string[]) => cli.run(args);

const clusterYaml = (name: string, server: string) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: `${name}-secret`, namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "cluster" } },
  stringData: { name, server },
});

describe("appset generate", () => {
  it.each([
    // name; how the cluster Secrets file is written
    {
      name: "several YAML documents",
      file: () =>
        write("c.yaml", [clusterYaml("b", "https://b"), clusterYaml("a", "https://a")].map((o) => JSON.stringify(o)).join("\n---\n")),
    },
    {
      name: "a List",
      file: () =>
        write("c.json", { apiVersion: "v1", kind: "List", items: [clusterYaml("b", "https://b"), clusterYaml("a", "https://a")] }),
    },
    { name: "a JSON array", file: () => write("c.json", [clusterYaml("b", "https://b"), clusterYaml("a", "https://a")]) },
  ])("reads cluster Secrets from $name and prints YAML sorted by name with the local cluster", async ({ file }) => {
    const res = await run("-f", write("appset.json", appSetYaml([{ clusters: {} }])), "--clusters", file());
    expect(res).toMatchObject({ code: 0, err: "" });
    const apps = parseAllDocuments(res.out).map(
      (d) => d.toJS() as { metadata: { name: string; namespace: string }; spec: { destination: { server: string } } },
    );
    expect(apps.map((a) => [a.metadata.name, a.spec.destination.server, a.metadata.namespace])).toEqual([
      ["a", "https://a", "argocd"],
      ["b", "https://b", "argocd"],
      ["in-cluster", "https://kubernetes.default.svc", "argocd"],
    ]);
  });

  it("prints the controller's spec warnings on stderr and the Applications as usual", async () => {
    const res = await run(
      "-f",
      write("warn.json", appSetYaml([{ list: { elements: [{ name: "a", server: "https://a" }] } }, { list: {} }])),
    );
    expect(res.code).toBe(0);
    expect(res.err).toBe(
      "appset generate: warning: ApplicationSet demo: spec.generators[1].list has neither elements nor elementsYaml: it generates nothing (ListWithoutElements)\n",
    );
    expect(parseAllDocuments(res.out).map((d) => (d.toJS() as { metadata: { name: string } }).metadata.name)).toEqual(["a"]);
  });

  it.each([
    // name; the list elements; the controller's validation message
    {
      name: "a duplicate name",
      elements: [
        { name: "x", server: "https://a" },
        { name: "x", server: "https://b" },
      ],
      error: "ApplicationSet demo contains applications with duplicate name: x",
    },
    {
      name: "several invalid names",
      elements: [
        { name: "x", server: "https://a" },
        { name: "x", server: "https://b" },
        { name: "", server: "https://c" },
      ],
      error: "ApplicationSet demo contains applications with duplicate name: x (and 1 more)",
    },
  ])("exits 1 with the controller's validation error and prints nothing on $name", async ({ elements, error }) => {
    const res = await run("-f", write("a.json", appSetYaml([{ list: { elements } }])));
    expect(res).toEqual({ code: 1, out: "", err: `appset generate: ${error}\n` });
  });

  it("exits 1 when a template fails to render", async () => {
    const res = await run(
      "-f",
      write(
        "a.json",
        appSetYaml([{ list: { elements: [{ name: "x" }] } }], { goTemplateOptions: ["missingkey=error"], templatePatch: "{{ .nope }}" }),
      ),
    );
    expect(res.code).toBe(1);
    expect(res.err).toContain("map has no entry for key");
  });

  it.each([
    { name: "a missing -f", args: [], error: "-f FILE is required" },
    { name: "an unknown output format", args: ["-f", "x.yaml", "-o", "xml"], error: 'unknown output format "xml"' },
    { name: "an unknown flag", args: ["--nope"], error: "Unknown option '--nope'" },
  ])("exits 2 on $name", async ({ args, error }) => {
    const res = await run(...args);
    expect(res.code).toBe(2);
    expect(res.err).toContain(error);
  });

  it("parses objects from documents, Lists and arrays alike", () => {
    const text = "kind: A\n---\n- kind: B\n- kind: C\n---\nkind: SecretList\nitems:\n  - kind: D\n";
    expect(parseObjects(text).map((o) => o.kind)).toEqual(["A", "B", "C", "D"]);
  });
});
