/**
 * Helm and Kustomize sources rendered by the real programs (the helm and kustomize built with
 * the Argo CD reference, `$APPSET_ARGOCD_HOME/bin`), from a real Git repository.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Application, ApplicationSource } from "../../../src/api/index.js";
import type { KubeObject } from "../../../src/kube/index.js";
import { GitManifestSource } from "../../../src/syncwaves/git-source.js";
import { MANIFEST_ERROR } from "../../../src/syncwaves/manifests.js";
import { renderToolsDir } from "../../support/render-tools.js";
import { gitReader, makeRepo, TempDirs } from "../support/git-repos.js";

const bin = renderToolsDir();
const temp = new TempDirs();
afterAll(() => temp.cleanup());

const chart = {
  "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
  "charts/web/values.yaml": "replicas: 1\nimage: nginx:1\nextra: none\n",
  "charts/web/values-prod.yaml": "replicas: 3\n",
  "charts/web/crds/widget.yaml":
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n",
  "charts/web/templates/cm.yaml": [
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    "  name: {{ .Release.Name }}-cfg",
    "  namespace: {{ .Release.Namespace }}",
    "data:",
    "  replicas: {{ .Values.replicas | quote }}",
    "  image: {{ .Values.image | quote }}",
    "  extra: {{ .Values.extra | quote }}",
    "  kube: {{ .Capabilities.KubeVersion.Version | quote }}",
    '  widgets: {{ .Capabilities.APIVersions.Has "example.com/v1/Widget" | quote }}',
    '  file: {{ .Values.file | default "" | quote }}',
    "",
  ].join("\n"),
  "charts/web/templates/tests/t.yaml":
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-test\n  annotations:\n    helm.sh/hook: test\nspec:\n  containers: []\n",
  "charts/web/files/motd.txt": "hello",
  "charts/bad/Chart.yaml": "apiVersion: v2\nname: bad\nversion: 0.1.0\n",
  "charts/bad/templates/x.yaml": '{{ fail "the chart refuses" }}\n',
  "kustomize/base/kustomization.yaml": "resources:\n  - deploy.yaml\n",
  "kustomize/base/deploy.yaml": [
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata:",
    "  name: web",
    "spec:",
    "  replicas: 1",
    "  selector: {matchLabels: {app: web}}",
    "  template:",
    "    metadata: {labels: {app: web}}",
    "    spec: {containers: [{name: web, image: nginx:1}]}",
    "",
  ].join("\n"),
  "kustomize/overlays/prod/kustomization.yaml": "resources:\n  - ../../base\n",
  "kustomize/components/extra/kustomization.yaml":
    "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - cm.yaml\n",
  "kustomize/components/extra/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n",
};
const repo = makeRepo(temp, chart);
const url = `file://${repo}`;
const app = (name = "web", namespace = "prod"): Application => ({
  metadata: { name },
  spec: { destination: { namespace }, project: "default" },
});
const facts = { kubeVersion: "v1.36.3", apiVersions: ["example.com/v1", "example.com/v1/Widget", "v1", "v1/ConfigMap"] };

function source(): GitManifestSource {
  return new GitManifestSource(gitReader(temp), { tools: { helm: join(bin, "helm"), kustomize: join(bin, "kustomize"), env: {} } });
}
async function render(
  src: Partial<ApplicationSource>,
  a: Application = app(),
): Promise<{ type: string | undefined; objects: readonly KubeObject[] }> {
  const got = await source().read(a, { repoURL: url, targetRevision: "HEAD", ...src }, undefined, {
    cluster: () => Promise.resolve(facts),
  });
  return { type: got.sourceType, objects: got.objects };
}
const byName = (objects: readonly KubeObject[], name: string): KubeObject | undefined => objects.find((o) => o.metadata?.name === name);
const data = (o: KubeObject | undefined): Record<string, string> => (o?.["data"] ?? {}) as Record<string, string>;

describe("Helm sources", () => {
  it("are found by Chart.yaml and rendered with the release, namespace, cluster version and API versions, CRDs and tests included", async () => {
    const { type, objects } = await render({ path: "charts/web" });
    expect(type).toBe("Helm");
    expect(objects.map((o) => `${o.kind ?? ""}/${o.metadata?.name ?? ""}`).sort()).toEqual([
      "ConfigMap/web-cfg",
      "CustomResourceDefinition/widgets.example.com",
      "Pod/web-test",
    ]);
    expect(byName(objects, "web-cfg")?.metadata?.namespace).toBe("prod");
    expect(data(byName(objects, "web-cfg"))).toMatchObject({ replicas: "1", kube: "v1.36.3", widgets: "true" });
  });

  it("apply value files, inline values, parameters and file parameters in Argo CD's order", async () => {
    const { objects } = await render({
      path: "charts/web",
      helm: {
        releaseName: "rel",
        namespace: "other",
        valueFiles: ["values-prod.yaml"],
        valuesObject: { image: "nginx:2" },
        parameters: [{ name: "extra", value: "$ARGOCD_APP_NAME" }],
        fileParameters: [{ name: "file", path: "files/motd.txt" }],
        skipCrds: true,
        skipTests: true,
      },
    });
    expect(objects.map((o) => o.metadata?.name)).toEqual(["rel-cfg"]);
    expect(byName(objects, "rel-cfg")?.metadata?.namespace).toBe("other");
    expect(data(byName(objects, "rel-cfg"))).toMatchObject({ replicas: "3", image: "nginx:2", extra: "web", file: "hello" });
  });

  it("fail with helm's message in Argo CD's frame", async () => {
    await expect(render({ path: "charts/bad" })).rejects.toMatchObject({
      reason: MANIFEST_ERROR,
      message: expect.stringMatching(
        /^failed to execute helm template command: failed running helm: `.*helm template \. --name-template web .*<api versions removed> --include-crds` failed exit status 1: Error: .*the chart refuses/s,
      ) as unknown,
    });
  });
});

describe("Kustomize sources", () => {
  it("are found by kustomization.yaml and built", async () => {
    const { type, objects } = await render({ path: "kustomize/overlays/prod" });
    expect(type).toBe("Kustomize");
    expect(objects.map((o) => o.metadata?.name)).toEqual(["web"]);
  });

  it("apply prefix, suffix, images, replicas, labels, annotations, namespace, patches and components", async () => {
    const { objects } = await render({
      path: "kustomize/overlays/prod",
      kustomize: {
        namePrefix: "p-",
        nameSuffix: "-s",
        images: ["nginx=nginx:$ARGOCD_APP_NAME"],
        replicas: [{ name: "web", count: 4 }],
        commonLabels: { team: "a" },
        commonAnnotations: { owner: "b" },
        namespace: "ns1",
        patches: [{ target: { kind: "Deployment" }, patch: '- op: add\n  path: /spec/template/metadata/labels/patched\n  value: "yes"\n' }],
        components: ["../../components/extra"],
      },
    });
    const deploy = objects.find((o) => o.kind === "Deployment");
    expect(deploy?.metadata).toMatchObject({
      name: "p-web-s",
      namespace: "ns1",
      labels: { team: "a" },
      annotations: { owner: "b" },
    });
    const spec = deploy?.["spec"] as {
      replicas: number;
      template: { metadata: { labels: object }; spec: { containers: { image: string }[] } };
    };
    expect(spec.replicas).toBe(4);
    expect(spec.template.metadata.labels).toMatchObject({ patched: "yes" });
    expect(spec.template.spec.containers[0]?.image).toBe("nginx:web");
    expect(objects.some((o) => o.kind === "ConfigMap" && o.metadata?.name === "p-extra-s")).toBe(true);
  });

  it("leave the repository as it was: a second render without options gets the plain build", async () => {
    const s = source();
    const read = (k: ApplicationSource["kustomize"]) =>
      s.read(app(), { repoURL: url, targetRevision: "HEAD", path: "kustomize/overlays/prod", ...(k ? { kustomize: k } : {}) });
    await read({ namePrefix: "x-" });
    const plain = await read(undefined);
    expect(plain.objects.map((o) => o.metadata?.name)).toEqual(["web"]);
  });

  it("show the temporary checkout as <path to cached source>, as Argo CD's repo-server does", async () => {
    const err = (await render({ path: "charts/web", helm: { valueFiles: ["absent.yaml"] } }).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain("--values <path to cached source>/charts/web/absent.yaml");
    expect(err.message).toContain("Error: open <path to cached source>/charts/web/absent.yaml: no such file or directory");
    expect(err.message).not.toMatch(/appset-render-/);
  });

  it("fail with kustomize's message", async () => {
    await expect(render({ path: "kustomize/base", kustomize: { components: ["../nope"] } })).rejects.toMatchObject({
      reason: MANIFEST_ERROR,
      message: expect.stringMatching(/^`.*kustomize edit add component \.\.\/nope` failed exit status 1: Error: /) as unknown,
    });
  });
});
