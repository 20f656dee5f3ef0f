/**
 * Templates with zero-valued blocks beside Argo CD v3.6: `directory: {recurse: false}`,
 * `helm: {passCredentials: false}`, `kustomize: {forceCommonLabels: false}`, and two Helm sources
 * whose template says a `false` that Go omits (`helm.skipCrds: false` beside `valueFiles`,
 * `parameters[].forceString: false`): we write it as Go does, without it, as Argo CD's application
 * controller writes `status.sync.comparedTo`. Each RollingSync ApplicationSet rolls out (Argo CD's repo-server renders the chart with
 * the real helm), and once every rollout is complete our controller stays quiet: its writes to
 * Applications and ApplicationSets are counted on the wire, through a proxy, for 60 s.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { resources, type KubeApiClient } from "../../src/kube/index.js";
import { applications } from "../e2e/support/controller.js";
import { settledAt } from "../e2e/support/guestbook-rollout.js";
import { CountingProxy } from "../e2e/support/proxy-counting.js";
import { RolloutRecorder } from "../e2e/support/rollout-recorder.js";
import { git, makeRepo } from "../integration/support/git-repos.js";
import { besideSuite } from "./support/beside.js";

const suite = besideSuite();
let client: KubeApiClient;
let proxy: CountingProxy | undefined;

beforeAll(() => {
  client = suite.client();
});

afterAll(async () => {
  await proxy?.close();
});

/** The quiet period after convergence in which our controller must write nothing. */
const QUIET_MS = 60_000;

const CHART = {
  "chart/Chart.yaml": "apiVersion: v2\nname: guestbook\nversion: 0.1.0\n",
  "chart/values.yaml": 'a: "0"\n',
  "chart/templates/cm.yaml":
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  a: {{ .Values.a | quote }}\n",
};

/** The five templates: a name and the source fields each renders. */
const CASES: ReadonlyArray<{ name: string; source: Record<string, unknown> }> = [
  { name: "dir-recurse", source: { path: "plain/{{name}}", directory: { recurse: false } } },
  { name: "helm-pass", source: { path: "plain/{{name}}", helm: { passCredentials: false } } },
  { name: "kust-force", source: { path: "plain/{{name}}", kustomize: { forceCommonLabels: false } } },
  { name: "helm-skipcrds", source: { path: "chart", helm: { releaseName: "{{name}}", skipCrds: false, valueFiles: ["values.yaml"] } } },
  {
    name: "helm-forcestring",
    source: { path: "chart", helm: { releaseName: "{{name}}", parameters: [{ name: "a", value: "1", forceString: false }] } },
  },
];

const elements = (set: string): string[] => [`${set}-a`, `${set}-b`];

function zeroBlockAppSet(ns: string, repoURL: string, c: (typeof CASES)[number]): Record<string, unknown> {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: c.name, namespace: ns },
    spec: {
      generators: [{ list: { elements: elements(c.name).map((name) => ({ name })) } }],
      strategy: {
        type: "RollingSync",
        rollingSync: { steps: [{ matchExpressions: [{ key: "envLabel", operator: "In", values: ["env-dev"] }] }] },
      },
      template: {
        metadata: { name: "{{name}}", labels: { envLabel: "env-dev" } },
        spec: {
          project: "default",
          source: { repoURL, targetRevision: "HEAD", ...c.source },
          destination: { server: "https://kubernetes.default.svc", namespace: ns },
        },
      },
    },
  };
}

describe("templates with zero-valued blocks", () => {
  it("roll out, then our controller writes no Application or ApplicationSet for 60 s", async () => {
    const { ns } = await suite.namespaceWithArgoCd("argo-zero");
    const plain: Record<string, string> = {};
    for (const c of CASES.slice(0, 3))
      for (const n of elements(c.name))
        plain[`plain/${n}/cm.yaml`] = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${n}\ndata:\n  a: "1"\n`;
    const dir = makeRepo(suite.temp, { ...plain, ...CHART });
    const head = git(dir, "rev-parse", "HEAD").trim();
    proxy = await CountingProxy.start(inject("kubeconfigPath"));
    const rec = await RolloutRecorder.start(client, ns);
    try {
      const ours = suite.ourController(ns, [], proxy.kubeconfigPath);
      await ours.waitForLog("caches synced, starting workers");
      for (const c of CASES) await client.create(resources.ApplicationSets, zeroBlockAppSet(ns, `file://${dir}`, c));
      const total = CASES.length * 2;
      await rec.waitFor(
        "every Application Synced and Healthy",
        () => {
          const apps = rec.env("env-dev");
          return apps.length === total && apps.every((a) => settledAt(a, head)) ? true : undefined;
        },
        150_000,
      );
      await rec.waitFor(
        "every rollout complete",
        () => (CASES.every((c) => rec.currentSets.get(c.name)?.progressing?.startsWith("False")) ? true : undefined),
        60_000,
      );
      const cm = await client.get<{ data?: Record<string, string> }>(resources.ConfigMaps, { namespace: ns, name: "helm-forcestring-a" });
      expect(cm.data).toEqual({ a: "1" });

      // Written as Go writes it (as Argo CD's own ApplicationSet controller writes it): the
      // omitempty false is in neither the stored spec nor Argo CD's comparedTo, while the template
      // still says false, so every pass compares a template with it to a live object without it.
      const apps = await applications(client, ns);
      const skip = apps.get("helm-skipcrds-a")!;
      expect([skip.spec.source?.helm?.skipCrds, skip.status?.sync?.comparedTo?.source?.helm?.skipCrds]).toEqual([undefined, undefined]);
      const force = apps.get("helm-forcestring-a")!;
      expect([
        force.spec.source?.helm?.parameters?.[0]?.forceString,
        force.status?.sync?.comparedTo?.source?.helm?.parameters?.[0]?.forceString,
      ]).toEqual([undefined, undefined]);
      expect(apps.get("dir-recurse-a")!.spec.source?.directory).toBeUndefined();

      proxy.reset();
      await sleep(QUIET_MS);
      expect(proxy.writes("applications", "applicationsets")).toEqual([]);
      expect(ours.child.exitCode).toBeNull();
    } finally {
      if (process.env["ROLLOUT_TRACE"]) console.log(rec.timeline());
      rec.stop();
    }
  }, 420_000);
});
