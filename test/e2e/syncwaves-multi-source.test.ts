/**
 * A multi-source Application on the real control plane, rendered with the helm Argo CD ships: a
 * chart in one Git repository takes `$values/envs/prod.yaml` from a second repository named by a
 * `ref: values` source, and a plain directory of the first repository is a third source. The sync
 * deploys the objects of both rendering sources, and the status, the sync result and the history
 * carry one revision per source, as Argo CD writes them.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Application, ApplicationSource } from "../../src/api/index.js";
import { KubeApiClient, resources } from "../../src/kube/index.js";
import type { SyncEngine } from "../../src/syncwaves/engine.js";
import { GitManifestSource } from "../../src/syncwaves/git-source.js";
import { git, gitReader, makeRepo, TempDirs } from "../integration/support/git-repos.js";
import { HelmRepoDir, serveHelmRepo, type HelmRepoServer } from "../integration/support/helm-repo.js";
import { renderToolsDir } from "../support/render-tools.js";
import { eventually } from "./support/controller.js";
import { createNamespace, deleteNamespace, sharedKubeConfig } from "./support/namespace.js";
import { localEngine } from "./syncwaves-support/local-engine.js";

const kc = sharedKubeConfig();
const client = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
const temp = new TempDirs();
let ns = "";
let engine: SyncEngine;
let appRepo = "";
let valuesRepo = "";
let appCommit = "";
let valuesCommit = "";
let charts: HelmRepoServer;

const CHART = {
  "chart/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
  "chart/values.yaml": "env: none\nreplicas: 1\n",
  "chart/templates/config.yaml": [
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    "  name: {{ .Release.Name }}-settings",
    "data:",
    "  env: {{ .Values.env | quote }}",
    "  replicas: {{ .Values.replicas | quote }}",
    "",
  ].join("\n"),
  "plain/extra.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  from: plain\n",
};

beforeAll(async () => {
  ns = await createNamespace(kc, "sw-multi");
  appRepo = makeRepo(temp, CHART);
  valuesRepo = makeRepo(temp, { "envs/prod.yaml": "env: prod\nreplicas: 3\n", "envs/dev.yaml": "env: dev\n" });
  appCommit = git(appRepo, "rev-parse", "HEAD").trim();
  valuesCommit = git(valuesRepo, "rev-parse", "HEAD").trim();
  const repo = new HelmRepoDir(temp).add("web", "1.2.0", {
    "values.yaml": "env: none\nreplicas: 1\n",
    "templates/config.yaml": CHART["chart/templates/config.yaml"],
  });
  charts = await serveHelmRepo(repo.dir);
  const tools = renderToolsDir();
  const source = new GitManifestSource(gitReader(temp), {
    tools: { helm: join(tools, "helm"), kustomize: join(tools, "kustomize"), env: process.env },
    charts: { cacheDir: temp.make("appset-charts-") },
  });
  engine = localEngine(client, ns, source);
  engine.start();
});

afterAll(async () => {
  await engine.stop();
  await charts.stop();
  await deleteNamespace(kc, ns).catch(() => undefined);
  temp.cleanup();
});

const sources = (): ApplicationSource[] => [
  { repoURL: `file://${appRepo}`, path: "chart", targetRevision: "main", helm: { valueFiles: ["$values/envs/prod.yaml"] } },
  { repoURL: `file://${valuesRepo}`, targetRevision: "main", ref: "values" },
  { repoURL: `file://${appRepo}`, path: "plain", targetRevision: "main" },
];

const app = (): Application => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "Application",
  metadata: { name: "web", namespace: ns },
  spec: {
    project: "default",
    destination: { server: "https://kubernetes.default.svc", namespace: ns },
    sources: sources(),
  },
  operation: { sync: {}, initiatedBy: { username: "e2e" } },
});

const getApp = (name = "web"): Promise<Application> => client.get<Application>(resources.Applications, { namespace: ns, name });

/** The Application `name` once its sync Succeeded and it is Synced. */
const synced = (name: string): Promise<Application> =>
  eventually(
    `the sync of ${name} Succeeded`,
    async () => {
      const a = await getApp(name);
      return a.status?.operationState?.phase === "Succeeded" && a.status.sync?.status === "Synced" ? a : undefined;
    },
    90_000,
  );

describe("a multi-source Application", () => {
  it("deploys the chart with the values of the ref source and the plain directory, recording a revision per source", async () => {
    await client.create(resources.Applications, app());
    const done = await synced("web");

    expect((await client.get(resources.ConfigMaps, { namespace: ns, name: "web-settings" }))["data"]).toEqual({
      env: "prod",
      replicas: "3",
    });
    expect((await client.get(resources.ConfigMaps, { namespace: ns, name: "extra" }))["data"]).toEqual({ from: "plain" });

    const revisions = [appCommit, valuesCommit, appCommit];
    expect(done.status?.sync?.revisions).toEqual(revisions);
    expect(done.status?.sync?.revision).toBeUndefined();
    expect(done.status?.sync?.comparedTo).toMatchObject({ source: { repoURL: "" }, sources: sources() });
    expect(done.status?.sourceTypes).toEqual(["Helm", "", "Directory"]);
    expect(done.status?.sourceType).toBeUndefined();
    expect(done.status?.operationState?.syncResult).toMatchObject({ revision: "", revisions, sources: sources(), source: sources()[0] });
    expect(done.status?.history).toEqual([
      expect.objectContaining({ id: 0, revisions, sources: sources(), source: { repoURL: "" }, initiatedBy: { username: "e2e" } }),
    ]);
    expect(done.status?.history?.[0]?.revision).toBeUndefined();
    expect(done.status?.resources?.map((r) => r.name).sort()).toEqual(["extra", "web-settings"]);
  });

  it("fails the comparison, naming the source, when a value file leaves the referenced repository", async () => {
    const bad = sources();
    bad[0] = { ...bad[0]!, helm: { valueFiles: ["$values/../outside.yaml"] } };
    const current = await getApp();
    await client.update(resources.Applications, { ...current, spec: { ...current.spec, sources: bad } });
    const failed = await eventually(
      "the ComparisonError",
      async () => (await getApp()).status?.conditions?.find((c) => c.type === "ComparisonError"),
      60_000,
    );
    expect(failed.message).toBe(
      "Failed to load target state: failed to generate manifest for source 1 of 3: error resolving helm value files: " +
        "error resolving value file path: error resolving value file path: file '/../outside.yaml' resolved to outside repository root",
    );
  });

  it("renders a chart of a Helm repository with value files of a Git ref source", async () => {
    const chartApp: Application = {
      ...app(),
      metadata: { name: "charted", namespace: ns },
      spec: {
        ...app().spec,
        sources: [
          { repoURL: charts.url, chart: "web", targetRevision: "1.*", helm: { valueFiles: ["$values/envs/prod.yaml"] } },
          { repoURL: `file://${valuesRepo}`, targetRevision: "main", ref: "values" },
        ],
      },
    };
    await client.create(resources.Applications, chartApp);
    const done = await synced("charted");
    expect((await client.get(resources.ConfigMaps, { namespace: ns, name: "charted-settings" }))["data"]).toEqual({
      env: "prod",
      replicas: "3",
    });
    expect(done.status?.sync?.revisions).toEqual(["1.2.0", valuesCommit]);
    expect(done.status?.sourceTypes).toEqual(["Helm", ""]);
  });
});
