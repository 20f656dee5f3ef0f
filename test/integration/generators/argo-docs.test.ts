/**
 * Argo CD's documented generator examples, run through `appset generate` against a real Git
 * repository laid out like Argo CD's examples: each renders the Applications the docs describe,
 * in fasttemplate and in goTemplate mode.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateCommand } from "../../../src/cli/generate.js";
import { gitEnv, makeRepo, TempDirs } from "../support/git-repos.js";

const temp = new TempDirs();
afterAll(() => temp.cleanup());

const config = (name: string, address: string) =>
  JSON.stringify({ aws_account: "123456", asset_id: "11223344", cluster: { owner: "cluster-admin@company.com", name, address } });

const repo = makeRepo(temp, {
  "applicationset/examples/git-generator-directory/excludes/cluster-addons/argo-workflows/kustomization.yaml": "resources: []\n",
  "applicationset/examples/git-generator-directory/excludes/cluster-addons/prometheus-operator/Chart.yaml": "name: p\n",
  "applicationset/examples/git-generator-directory/excludes/cluster-addons/exclude-helm-guestbook/Chart.yaml": "name: g\n",
  "applicationset/examples/git-generator-files-discovery/cluster-config/engineering/dev/config.json": config(
    "engineering-dev",
    "https://1.2.3.4",
  ),
  "applicationset/examples/git-generator-files-discovery/cluster-config/engineering/prod/config.json": config(
    "engineering-prod",
    "https://2.4.6.8",
  ),
  "applicationset/examples/git-generator-files-discovery/apps/guestbook/guestbook-ui.yaml": "kind: Service\n",
  "applicationset/examples/matrix/cluster-addons/argo-workflows/kustomization.yaml": "resources: []\n",
  "applicationset/examples/matrix/cluster-addons/prometheus-operator/Chart.yaml": "name: p\n",
});

const fixture = (name: string) => new URL(`../../fixtures/generators/${name}`, import.meta.url);
const clustersFile = fixture("clusters.yaml").pathname;

/** The fields of a rendered Application these tests look at. */
interface App {
  metadata: { name: string; namespace: string; finalizers?: string[] };
  spec: {
    project: string;
    destination: { server: string; namespace: string };
    source: { path: string; repoURL: string; helm?: { parameters: { name: string; value: string }[] } };
  };
}

/** Runs `appset generate` on one document of a fixture; returns the Applications. */
async function generate(file: string, doc: number): Promise<App[]> {
  const text = readFileSync(fixture(file), "utf8").split(/^---$/m)[doc]!.replaceAll("REPO_URL", `file://${repo}`);
  const path = join(temp.make(), "appset.yaml");
  writeFileSync(path, text);
  let out = "";
  let err = "";
  const code = await generateCommand(["-f", path, "-o", "json", "--clusters", clustersFile, "--git-cache", temp.make()], {
    out: (s) => (out += s),
    err: (s) => (err += s),
    env: gitEnv(),
  });
  expect(err).toBe("");
  expect(code).toBe(0);
  return JSON.parse(out) as App[];
}

const modes = [
  { mode: "fasttemplate", doc: 0 },
  { mode: "goTemplate", doc: 1 },
];

describe.each(modes)("Argo CD's documented examples in $mode mode", ({ doc }) => {
  it("renders one Application per list element", async () => {
    const apps = await generate("list.yaml", doc);
    expect(apps.map((a) => [a.metadata.name, a.spec.destination.server, a.spec.source.path])).toEqual([
      ["engineering-dev-guestbook", "https://1.2.3.4", "applicationset/examples/list-generator/guestbook/engineering-dev"],
      ["engineering-prod-guestbook", "https://2.4.6.8", "applicationset/examples/list-generator/guestbook/engineering-prod"],
      ["finance-preprod-guestbook", "https://9.8.7.6", "applicationset/examples/list-generator/guestbook/finance-preprod"],
    ]);
    expect(apps[0]).toMatchObject({
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Application",
      metadata: { namespace: "argocd", finalizers: ["resources-finalizer.argocd.argoproj.io"] },
    });
  });

  it("renders one Application per selected cluster Secret and leaves the local cluster out", async () => {
    const apps = await generate("cluster.yaml", doc);
    expect(apps.map((a) => [a.metadata.name, a.spec.destination.server])).toEqual([["staging-guestbook", "https://1.2.3.4"]]);
  });

  it("renders one Application per Git directory, honouring the exclude rule", async () => {
    const apps = await generate("git-directories.yaml", doc);
    const base = "applicationset/examples/git-generator-directory/excludes/cluster-addons";
    expect(apps.map((a) => [a.metadata.name, a.spec.source.path, a.spec.destination.namespace])).toEqual([
      ["argo-workflows", `${base}/argo-workflows`, "argo-workflows"],
      ["prometheus-operator", `${base}/prometheus-operator`, "prometheus-operator"],
    ]);
  });

  it("renders one Application per Git config file with the file's nested values", async () => {
    const apps = await generate("git-files.yaml", doc);
    expect(apps.map((a) => [a.metadata.name, a.spec.destination.server])).toEqual([
      ["engineering-dev-guestbook", "https://1.2.3.4"],
      ["engineering-prod-guestbook", "https://2.4.6.8"],
    ]);
  });

  it("renders the matrix of Git directories and clusters", async () => {
    const apps = await generate("matrix-git-cluster.yaml", doc);
    expect(apps.map((a) => [a.metadata.name, a.spec.project, a.spec.destination.server, a.spec.destination.namespace])).toEqual([
      ["argo-workflows-production", "production", "https://2.4.6.8", "argo-workflows"],
      ["argo-workflows-staging", "staging", "https://1.2.3.4", "argo-workflows"],
      ["prometheus-operator-production", "production", "https://2.4.6.8", "prometheus-operator"],
      ["prometheus-operator-staging", "staging", "https://1.2.3.4", "prometheus-operator"],
    ]);
  });

  it("merges cluster defaults with per-label and per-server overrides", async () => {
    const apps = await generate("merge.yaml", doc);
    const params = (a: App) => Object.fromEntries((a.spec.source.helm?.parameters ?? []).map((p) => [p.name, p.value]));
    expect(apps.map((a) => [a.metadata.name, params(a)])).toEqual([
      ["in-cluster", { kafka: "true", redis: "false" }],
      ["production", { kafka: "false", redis: "true" }],
      ["staging", { kafka: "true", redis: "false" }],
    ]);
  });

  it("renders a generator's template override over spec.template", async () => {
    const apps = await generate("template-override.yaml", doc);
    expect(apps).toHaveLength(1);
    expect(apps[0]).toMatchObject({
      metadata: { name: "engineering-dev-guestbook" },
      spec: {
        project: "default",
        source: {
          path: "applicationset/examples/template-override/engineering-dev-override",
          repoURL: "https://github.com/argoproj/argo-cd.git",
        },
        destination: { server: "https://kubernetes.default.svc", namespace: "guestbook" },
      },
    });
  });
});
