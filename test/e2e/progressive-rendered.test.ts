/**
 * The guestbook as a Helm chart and as a Kustomize overlay, rolled out under RollingSync by `appset
 * controller --enable-progressive-syncs --enable-sync-engine` on the real control plane, with the
 * real helm and kustomize (the programs Argo CD's repo-server runs). Dev first, then prod one
 * Application at a time; a second version is pushed and rolls out in the same order. The deployed
 * objects carry what each tool rendered: Helm's release name and values, Kustomize's name prefix,
 * labels, image and patches. The chart also comes from a Helm chart repository (packaged and
 * indexed by the real helm, served over HTTP), its semver constraint following a new version.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient, type KubeObject } from "../../src/kube/index.js";
import { commit, git, makeRepo } from "../integration/support/git-repos.js";
import { HelmRepoDir, serveHelmRepo } from "../integration/support/helm-repo.js";
import { withRenderTools } from "../support/render-tools.js";
import { controllerNamespace, processArgs, spawnController } from "./support/controller.js";
import { clusters, envSettled, maxUpdating, outOfOrderSyncs, type Sizes } from "./support/guestbook-rollout.js";
import { RolloutRecorder } from "./support/rollout-recorder.js";
import { e2eSuite } from "./support/suite.js";

const { temp, procs, namespaces, client: suiteClient } = e2eSuite();
let client: KubeApiClient;

beforeAll(() => {
  client = suiteClient();
});

const SIZES: Sizes = { "env-dev": 1, "env-qa": 0, "env-prod": 2 };
const Deployments = { group: "apps", version: "v1", plural: "deployments", kind: "Deployment", namespaced: true } as const;

const deployment = (name: string, image: string): string =>
  [
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata:",
    `  name: ${name}`,
    "spec:",
    "  replicas: 1",
    "  selector:",
    "    matchLabels:",
    `      app: ${name}`,
    "  template:",
    "    metadata:",
    "      labels:",
    `        app: ${name}`,
    "    spec:",
    "      containers:",
    "      - name: guestbook",
    `        image: ${image}`,
    "",
  ].join("\n");

/** The chart: a ConfigMap of the values and a Deployment, both named after the release. */
function chartFiles(version: string): Record<string, string> {
  return {
    "chart/Chart.yaml": "apiVersion: v2\nname: guestbook\nversion: 0.1.0\n",
    "chart/values.yaml": `version: "${version}"\nenv: none\n`,
    "chart/templates/config.yaml": [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      "  name: {{ .Release.Name }}-ui",
      "data:",
      "  version: {{ .Values.version | quote }}",
      "  env: {{ .Values.env | quote }}",
      "",
    ].join("\n"),
    "chart/templates/deployment.yaml": deployment("{{ .Release.Name }}", "guestbook:{{ .Values.version }}"),
  };
}

/** The chart's files as a Helm repository packages them (its Chart.yaml comes with the version). */
function packagedChart(version: string): Record<string, string> {
  const files = Object.entries(chartFiles(version)).filter(([path]) => path !== "chart/Chart.yaml");
  return Object.fromEntries(files.map(([path, content]) => [path.slice("chart/".length), content]));
}

/** A base and one overlay per environment that patches the ConfigMap. */
function kustomizeFiles(version: string): Record<string, string> {
  const files: Record<string, string> = {
    "kustomize/base/kustomization.yaml": "resources:\n- config.yaml\n- deployment.yaml\n",
    "kustomize/base/config.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ui\ndata:\n  version: "${version}"\n  env: none\n`,
    "kustomize/base/deployment.yaml": deployment("guestbook", "guestbook:placeholder"),
  };
  for (const env of ["env-dev", "env-prod"]) {
    files[`kustomize/overlays/${env}/kustomization.yaml`] = [
      "resources:",
      "- ../../base",
      "images:",
      "- name: guestbook",
      `  newTag: v${version}`,
      "labels:",
      "- pairs:",
      `    env: ${env}`,
      "patches:",
      "- patch: |",
      "    apiVersion: v1",
      "    kind: ConfigMap",
      "    metadata:",
      "      name: ui",
      "    data:",
      `      env: ${env}`,
      "",
    ].join("\n");
  }
  return files;
}

type Tool = "helm" | "kustomize";

/** The source of an Application generated for `{{.cluster}}` in `{{.env}}`. */
function source(tool: Tool, repoURL: string): Record<string, unknown> {
  if (tool === "helm") {
    return { repoURL, targetRevision: "main", path: "chart", helm: { releaseName: "{{.cluster}}", valuesObject: { env: "{{.env}}" } } };
  }
  return {
    repoURL,
    targetRevision: "main",
    path: "kustomize/overlays/{{.env}}",
    kustomize: { namePrefix: "{{.cluster}}-", commonAnnotations: { cluster: "{{.cluster}}" } },
  };
}

function appSet(ns: string, appSource: Record<string, unknown>): KubeObject {
  const step = (env: string, maxUpdate?: number) => ({
    matchExpressions: [{ key: "envLabel", operator: "In", values: [env] }],
    ...(maxUpdate !== undefined ? { maxUpdate } : {}),
  });
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "guestbook", namespace: ns },
    spec: {
      generators: [{ list: { elements: clusters(SIZES).map((c) => ({ cluster: c.cluster, env: c.env })) } }],
      strategy: { type: "RollingSync", rollingSync: { steps: [step("env-dev"), step("env-prod", 1)] } },
      goTemplate: true,
      goTemplateOptions: ["missingkey=error"],
      template: {
        metadata: { name: "{{.cluster}}-guestbook", labels: { envLabel: "{{.env}}" } },
        spec: {
          project: "default",
          source: appSource,
          destination: { server: "https://kubernetes.default.svc", namespace: ns },
        },
      },
    },
  };
}

/** What each cluster's objects must hold at `version`. */
async function expectRendered(ns: string, tool: Tool, version: string): Promise<void> {
  for (const { cluster, env } of clusters(SIZES)) {
    const config = await client.get(resources.ConfigMaps, { namespace: ns, name: `${cluster}-ui` });
    expect(config["data"]).toEqual({ version, env });
    const deploy = await client.get(Deployments, { namespace: ns, name: tool === "helm" ? cluster : `${cluster}-guestbook` });
    const image = (deploy["spec"] as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0]!.image;
    expect(image).toBe(`guestbook:${tool === "helm" ? version : `v${version}`}`);
    if (tool === "kustomize") {
      expect(deploy.metadata?.labels?.["env"]).toBe(env);
      expect(deploy.metadata?.annotations?.["cluster"]).toBe(cluster);
    }
  }
}

describe("a rendered guestbook under RollingSync with the sync engine", () => {
  it.each<Tool>(["helm", "kustomize"])("rolls the guestbook out as a %s source, dev then prod one at a time, twice", async (tool) => {
    const ns = await controllerNamespace(client, `ps-${tool}`);
    namespaces.push(ns);
    const dir = makeRepo(temp, { ...chartFiles("1"), ...kustomizeFiles("1") });
    const first = git(dir, "rev-parse", "HEAD").trim();
    const rec = await RolloutRecorder.start(client, ns);
    try {
      const args = processArgs(ns, "--enable-progressive-syncs", "--enable-sync-engine", "--refresh-grace-period-seconds", "5");
      const proc = spawnController(args, "controller", undefined, withRenderTools());
      procs.push(proc);
      await proc.waitForLog("caches synced, starting workers");
      await client.create(resources.ApplicationSets, appSet(ns, source(tool, `file://${dir}`)));
      await envSettled(rec, "env-dev", 1, first);
      await envSettled(rec, "env-prod", 2, first, 90_000);
      await expectRendered(ns, tool, "1");

      // Version 2: the chart's values, or the base's ConfigMap and the overlays' image tag.
      const second = commit(dir, tool === "helm" ? chartFiles("2") : kustomizeFiles("2"), "version 2");
      const body = { metadata: { annotations: { "argocd.argoproj.io/refresh": "normal" } } };
      const names = clusters(SIZES).map((c) => `${c.cluster}-guestbook`);
      await Promise.all(names.map((name) => client.patch(resources.Applications, { namespace: ns, name }, { type: "merge", body })));
      await envSettled(rec, "env-dev", 1, second, 90_000);
      await envSettled(rec, "env-prod", 2, second, 90_000);
      await expectRendered(ns, tool, "2");
      expect(outOfOrderSyncs(rec)).toEqual([]);
      expect(maxUpdating(rec, "env-prod")).toBe(1);
    } finally {
      rec.stop();
    }
  });

  it("rolls the guestbook out from a Helm chart repository, its semver constraint following a new chart version", async () => {
    const ns = await controllerNamespace(client, "ps-helm-repo");
    namespaces.push(ns);
    const charts = new HelmRepoDir(temp).add("guestbook", "0.1.0", packagedChart("1"));
    const server = await serveHelmRepo(charts.dir);
    const rec = await RolloutRecorder.start(client, ns);
    try {
      const args = processArgs(ns, "--enable-progressive-syncs", "--enable-sync-engine", "--refresh-grace-period-seconds", "5");
      // Its temporary directory (where pulled charts are kept) is the test's, removed with it.
      const proc = spawnController(args, "controller", undefined, { ...withRenderTools(), TMPDIR: temp.make("appset-e2e-tmp-") });
      procs.push(proc);
      await proc.waitForLog("caches synced, starting workers");
      const chartSource = {
        repoURL: server.url,
        chart: "guestbook",
        targetRevision: "0.*",
        helm: { releaseName: "{{.cluster}}", valuesObject: { env: "{{.env}}" } },
      };
      await client.create(resources.ApplicationSets, appSet(ns, chartSource));
      // The revision of a chart source is the chart's version.
      await envSettled(rec, "env-dev", 1, "0.1.0");
      await envSettled(rec, "env-prod", 2, "0.1.0", 90_000);
      await expectRendered(ns, "helm", "1");

      // A new version in the repository: a refresh resolves the constraint to it and it rolls out.
      charts.add("guestbook", "0.2.0", packagedChart("2"));
      const body = { metadata: { annotations: { "argocd.argoproj.io/refresh": "normal" } } };
      const names = clusters(SIZES).map((c) => `${c.cluster}-guestbook`);
      await Promise.all(names.map((name) => client.patch(resources.Applications, { namespace: ns, name }, { type: "merge", body })));
      await envSettled(rec, "env-dev", 1, "0.2.0", 90_000);
      await envSettled(rec, "env-prod", 2, "0.2.0", 90_000);
      await expectRendered(ns, "helm", "2");
      expect(outOfOrderSyncs(rec)).toEqual([]);
      expect(server.requests.filter((r) => r.endsWith(".tgz")).length).toBeGreaterThanOrEqual(2);
    } finally {
      rec.stop();
      await server.stop();
    }
  });
});
