/**
 * The Helm chart in deploy/helm/appset, with the real helm: `helm lint --strict` passes; `helm
 * template` with the default values renders exactly the objects of deploy/install (its Namespace
 * aside: Helm installs into the release's), with `allowAnyNamespace` those of
 * deploy/install-cluster-wide, and without CRDs those of deploy/beside-argocd, each in the
 * release's namespace and with Helm's labels added; non-default values land where argo-helm's
 * `applicationSet:` keys put them, and the controller accepts the flags the chart passes. The
 * default render is applied to the real control plane, where the Deployment rolls out; the
 * non-default one passes a server-side dry run, its ServiceMonitor with the Prometheus Operator's CRD
 * (test/fixtures/prometheus-operator) installed.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseConfig } from "../../src/config/index.js";
import { KubeApiClient, isNotFound, resources, type KubeObject, type ResourceDescriptor } from "../../src/kube/index.js";
import { codeBlocks, shellCommands, type ShellCommand } from "../unit/deploy/docs.js";
import { readRepoFile } from "../unit/deploy/generated.js";
import { REPO_ROOT, manifestId, readManifests, renderKustomization, setNamespace, type Manifest } from "../unit/deploy/kustomize.js";
import { eventually } from "./support/controller.js";
import { CHART_DIR, helm, helmTemplate } from "./support/helm.js";
import { Applier, placement, waitForRollout } from "./support/kubectl.js";

type Obj = Record<string, unknown>;
const NAME = "argocd-applicationset-controller";
const HELM_LABELS = ["app.kubernetes.io/instance", "app.kubernetes.io/managed-by", "app.kubernetes.io/version", "helm.sh/chart"];
const run = randomBytes(3).toString("hex");
const ns = `helm-${run}`;
const docsNs = `helm-docs-${run}`;
let admin: KubeApiClient;
let applier: Applier;
const applied: Manifest[] = [];
const CRDs: ResourceDescriptor = {
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
};
/** The Prometheus Operator's ServiceMonitor CRD, when this test installed it. */
let installedMonitorCrd: string | undefined;

beforeAll(() => {
  admin = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
  applier = new Applier(admin);
});

afterAll(async () => {
  for (const obj of applied.filter((o) => o.kind === "ClusterRole" || o.kind === "ClusterRoleBinding")) {
    await applier.delete([obj]).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
  for (const name of [ns, docsNs]) await admin.delete(resources.Namespaces, { name }).catch(() => undefined);
  if (installedMonitorCrd !== undefined) await admin.delete(CRDs, { name: installedMonitorCrd }).catch(() => undefined);
  await admin.transport.close();
});

const byId = (objs: readonly Manifest[]): Manifest[] => [...objs].sort((a, b) => manifestId(a).localeCompare(manifestId(b)));
const find = (objs: readonly Manifest[], kind: string, name = NAME): Manifest & Obj => {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  if (o === undefined) throw new Error(`no ${kind} ${name} in ${objs.map(manifestId).join(", ")}`);
  return o;
};
const podSpec = (d: Obj): Obj => (d["spec"] as { template: { spec: Obj } }).template.spec;
const containerOf = (d: Obj): Obj => (podSpec(d)["containers"] as Obj[])[0]!;

function dropHelmLabels(labels: Record<string, string> | undefined): void {
  for (const l of HELM_LABELS) delete labels?.[l];
}

/**
 * A rendered object as the kustomize install holds it: Helm's labels, the CRDs' keep policy, the
 * default AppProject's hook, the replicas and flags set aside.
 */
function asKustomize(obj: Manifest): Manifest {
  const o = structuredClone(obj) as Manifest & Obj;
  dropHelmLabels(o.metadata.labels);
  if (o.metadata.labels !== undefined && Object.keys(o.metadata.labels).length === 0) delete o.metadata.labels;
  if (o.kind === "AppProject") {
    expect(o.metadata["annotations"]).toEqual({ "helm.sh/hook": "post-install" });
    delete o.metadata["annotations"];
  }
  if (o.kind === "CustomResourceDefinition") {
    const annotations = o.metadata["annotations"] as Record<string, string>;
    delete annotations["helm.sh/resource-policy"];
    if (Object.keys(annotations).length === 0) delete o.metadata["annotations"];
  }
  if (o.kind === "Service") {
    // The chart names the Services' ports as argo-helm does, the kustomize installs as Argo CD's manifests do.
    const ports = (o["spec"] as { ports: Array<{ name: string }> }).ports;
    for (const p of ports) p.name = p.name.replace(/^http-/, "");
  }
  if (o.kind === "Deployment") {
    const spec = o["spec"] as { replicas?: number; template: { metadata: { labels: Record<string, string> } } };
    delete spec.replicas;
    dropHelmLabels(spec.template.metadata.labels);
    delete containerOf(o)["args"];
  }
  return o;
}

/** The kustomization in `dir` as installed into `namespace`, without its Namespace object. */
function kustomized(dir: string): Manifest[] {
  return renderKustomization(dir)
    .filter((o) => o.kind !== "Namespace")
    .map((o) => setNamespace(o, ns));
}

describe("the Helm chart", () => {
  it("passes helm lint --strict", async () => {
    const { stdout } = await helm(["lint", "--strict", CHART_DIR]);
    expect(stdout).toContain("1 chart(s) linted, 0 chart(s) failed");
    expect(stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
  });

  it.each([
    { name: "the default values render deploy/install", values: {}, dir: "deploy/install" },
    {
      name: "allowAnyNamespace renders deploy/install-cluster-wide",
      values: { applicationSet: { allowAnyNamespace: true } },
      dir: "deploy/install-cluster-wide",
    },
    { name: "crds.install=false renders deploy/beside-argocd", values: { crds: { install: false } }, dir: "deploy/beside-argocd" },
  ])("$name, in the release's namespace, with Helm's labels", async ({ values, dir }) => {
    const rendered = await helmTemplate("appset", ns, values);
    expect(byId(rendered.map(asKustomize))).toEqual(byId(kustomized(dir)));
    for (const o of rendered.filter((x) => x.kind !== "CustomResourceDefinition")) {
      expect(o.metadata.labels, manifestId(o)).toMatchObject({
        "app.kubernetes.io/managed-by": "Helm",
        "app.kubernetes.io/instance": "appset",
      });
    }
    for (const o of rendered.filter((x) => x.kind === "CustomResourceDefinition")) {
      expect(o.metadata["annotations"], manifestId(o)).toMatchObject({ "helm.sh/resource-policy": "keep" });
    }
  });

  it("binds the ClusterRole to the ServiceAccount in the release's namespace", async () => {
    const rendered = await helmTemplate("appset", "team-a", { applicationSet: { allowAnyNamespace: true } });
    expect(find(rendered, "ClusterRoleBinding")["subjects"]).toEqual([{ kind: "ServiceAccount", name: NAME, namespace: "team-a" }]);
    expect(find(rendered, "RoleBinding")["subjects"]).toEqual([{ kind: "ServiceAccount", name: NAME, namespace: "team-a" }]);
  });

  it("runs one replica with the flags of its container ports, which the controller accepts", async () => {
    const deployment = find(await helmTemplate("appset", ns), "Deployment");
    expect((deployment["spec"] as Obj)["replicas"]).toBe(1);
    const args = containerOf(deployment)["args"] as string[];
    expect(args).toEqual(["--metrics-addr=:8080", "--probe-addr=:8081", "--webhook-addr=:7000"]);
    expect(parseConfig(args, {})).toMatchObject({
      kind: "config",
      config: { metricsAddr: ":8080", probeAddr: ":8081", webhookAddr: ":7000" },
    });
  });

  it.each([
    { name: "by default", values: {}, objects: ["ConfigMap/argocd-ssh-known-hosts-cm", "AppProject/default"] },
    { name: "beside Argo CD (crds.install=false)", values: { crds: { install: false } }, objects: [] },
    {
      name: "beside Argo CD when asked to",
      values: { crds: { install: false }, sshKnownHosts: { create: true }, defaultProject: { create: true } },
      objects: ["ConfigMap/argocd-ssh-known-hosts-cm", "AppProject/default"],
    },
    {
      name: "not when turned off",
      values: { sshKnownHosts: { create: false }, defaultProject: { create: false } },
      objects: [],
    },
  ])("creates Argo CD's SSH known hosts and the default AppProject $name", async ({ values, objects }) => {
    const rendered = await helmTemplate("appset", ns, values);
    const found = rendered.filter((o) => o.kind === "ConfigMap" || o.kind === "AppProject").map((o) => `${o.kind}/${o.metadata.name}`);
    expect(found).toEqual(objects);
  });

  it("appends sshKnownHosts.extraHosts to Argo CD's known hosts", async () => {
    const extra = "git.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
    const rendered = await helmTemplate("appset", ns, { sshKnownHosts: { extraHosts: extra } });
    const hosts = (find(rendered, "ConfigMap", "argocd-ssh-known-hosts-cm")["data"] as Record<string, string>)["ssh_known_hosts"]!;
    const kustomize = find(renderKustomization("deploy/install"), "ConfigMap", "argocd-ssh-known-hosts-cm")["data"] as Record<
      string,
      string
    >;
    expect(hosts).toBe(`${kustomize["ssh_known_hosts"]!}${extra}\n`);
  });

  it("refuses an Ingress without a host name, saying which value to set", async () => {
    await expect(helmTemplate("appset", ns, { applicationSet: { ingress: { enabled: true } } })).rejects.toThrow(
      "applicationSet.ingress.hostname (or global.domain) is required when applicationSet.ingress.enabled is true",
    );
  });
});

/** argo-helm `applicationSet:` values other than the defaults. */
const CUSTOM = {
  global: { networkPolicy: { create: false } },
  applicationSet: {
    replicas: 2,
    image: { repository: "registry.example.com/appset", tag: "9.9.9", imagePullPolicy: "Always" },
    imagePullSecrets: [{ name: "pull" }],
    logFormat: "text",
    logLevel: "debug",
    extraArgs: ["--enable-progressive-syncs"],
    extraEnv: [{ name: "EXTRA", value: "1" }],
    extraEnvFrom: [{ configMapRef: { name: "more-env" } }],
    containerPorts: { metrics: 9090, probe: 9091, webhook: 9000 },
    resources: { requests: { cpu: "1", memory: "1Gi" }, limits: { memory: "2Gi" } },
    containerSecurityContext: { readOnlyRootFilesystem: true, runAsNonRoot: true, runAsUser: 1001 },
    emptyDir: { sizeLimit: "" },
    podAnnotations: { "example.com/a": "b" },
    podLabels: { team: "platform" },
    nodeSelector: { pool: "system" },
    tolerations: [{ key: "dedicated", operator: "Exists", effect: "NoSchedule" }],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "pool", operator: "In", values: ["system"] }] }],
        },
      },
    },
    priorityClassName: "system-cluster-critical",
    serviceAccount: { create: false, name: "existing-sa" },
    metrics: { serviceMonitor: { enabled: true, interval: "15s", additionalLabels: { release: "prometheus" } } },
    pdb: { minAvailable: 1, maxUnavailable: "" },
    ingress: { enabled: true, hostname: "hooks.example.com", ingressClassName: "nginx", tls: true },
  },
};

describe("the Helm chart with non-default values", () => {
  let rendered: Manifest[];
  beforeAll(async () => {
    rendered = await helmTemplate("custom", ns, CUSTOM);
  });

  it("sets the Deployment's replicas, image, flags, env, resources and scheduling", () => {
    const deployment = find(rendered, "Deployment");
    const pod = podSpec(deployment);
    const container = containerOf(deployment);
    const v = CUSTOM.applicationSet;
    expect((deployment["spec"] as Obj)["replicas"]).toBe(2);
    expect(container).toMatchObject({ image: "registry.example.com/appset:9.9.9", imagePullPolicy: "Always", resources: v.resources });
    // Helm merges a values map into the default one: the keys given are set, the others kept.
    expect(container["securityContext"]).toEqual({
      ...v.containerSecurityContext,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container["args"]).toEqual([
      "--metrics-addr=:9090",
      "--probe-addr=:9091",
      "--webhook-addr=:9000",
      "--logformat=text",
      "--loglevel=debug",
      "--enable-progressive-syncs",
    ]);
    const parsed = parseConfig(container["args"] as string[], {});
    expect(parsed).toMatchObject({
      kind: "config",
      config: { metricsAddr: ":9090", logFormat: "text", logLevel: "debug", enableProgressiveSyncs: true },
    });
    expect(container["ports"]).toEqual([
      { name: "webhook", containerPort: 9000, protocol: "TCP" },
      { name: "metrics", containerPort: 9090, protocol: "TCP" },
      { name: "probe", containerPort: 9091, protocol: "TCP" },
    ]);
    expect((container["env"] as Obj[]).at(-1)).toEqual({ name: "EXTRA", value: "1" });
    expect(container["envFrom"]).toEqual(v.extraEnvFrom);
    expect(pod).toMatchObject({
      serviceAccountName: "existing-sa",
      priorityClassName: v.priorityClassName,
      imagePullSecrets: v.imagePullSecrets,
      nodeSelector: v.nodeSelector,
      tolerations: v.tolerations,
      affinity: v.affinity,
      volumes: [
        { name: "tmp", emptyDir: {} },
        { name: "ssh-known-hosts", configMap: { name: "argocd-ssh-known-hosts-cm", optional: true } },
        { name: "tls-certs", configMap: { name: "argocd-tls-certs-cm", optional: true } },
        {
          name: "argocd-cmd-params-cm",
          configMap: {
            name: "argocd-cmd-params-cm",
            optional: true,
            items: [{ key: "applicationsetcontroller.profile.enabled", path: "profiler.enabled" }],
          },
        },
      ],
    });
    const template = (deployment["spec"] as { template: { metadata: Obj } }).template.metadata;
    expect(template["annotations"]).toEqual(v.podAnnotations);
    expect(template["labels"]).toMatchObject({ team: "platform", "app.kubernetes.io/name": NAME });
  });

  it("creates no ServiceAccount and no NetworkPolicy, and a PodDisruptionBudget by minAvailable", () => {
    const kinds = rendered.map((o) => o.kind);
    expect(kinds).not.toContain("ServiceAccount");
    expect(kinds).not.toContain("NetworkPolicy");
    expect(find(rendered, "RoleBinding")["subjects"]).toEqual([{ kind: "ServiceAccount", name: "existing-sa", namespace: ns }]);
    expect(find(rendered, "PodDisruptionBudget")["spec"]).toEqual({
      minAvailable: 1,
      selector: { matchLabels: { "app.kubernetes.io/name": NAME } },
    });
  });

  it("adds a ServiceMonitor on the metrics Service and an Ingress on the webhook port", () => {
    const monitor = find(rendered, "ServiceMonitor");
    expect(monitor.apiVersion).toBe("monitoring.coreos.com/v1");
    expect(monitor.metadata.labels).toMatchObject({ release: "prometheus" });
    const metrics = find(rendered, "Service", `${NAME}-metrics`);
    const selector = (monitor["spec"] as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
    expect(metrics.metadata.labels).toMatchObject(selector);
    expect(find(rendered, "Service").metadata.labels).not.toMatchObject(selector);
    expect(monitor["spec"]).toMatchObject({
      endpoints: [{ port: "http-metrics", path: "/metrics", interval: "15s" }],
      namespaceSelector: { matchNames: [ns] },
    });
    expect(find(rendered, "Ingress")["spec"]).toEqual({
      ingressClassName: "nginx",
      rules: [
        {
          host: "hooks.example.com",
          http: {
            paths: [{ path: "/api/webhook", pathType: "Prefix", backend: { service: { name: NAME, port: { name: "http-webhook" } } } }],
          },
        },
      ],
      tls: [{ hosts: ["hooks.example.com"], secretName: `${NAME}-tls` }],
    });
  });
});

describe("the Helm chart on the control plane", () => {
  it("applies the default render with the cluster-wide rights, and the Deployment rolls out", async () => {
    const place = placement(ns, run);
    const objects = (await helmTemplate("appset", ns, { applicationSet: { allowAnyNamespace: true } })).map(place.object);
    applied.push(...objects);
    await admin.create(resources.Namespaces, { metadata: { name: ns } });
    await applier.apply(objects, { dryRun: true });
    await applier.apply(objects);
    for (const o of objects) expect(await applier.exists(o), manifestId(o)).toBe(true);
    await waitForRollout(admin, ns, NAME);
    expect(find(objects, "ClusterRoleBinding", `${NAME}-${run}`)["subjects"]).toEqual([
      { kind: "ServiceAccount", name: NAME, namespace: ns },
    ]);
  });

  it("accepts the non-default render in a server-side dry run, its ServiceMonitor with the Prometheus Operator's CRD", async () => {
    const [crd] = readManifests(`${REPO_ROOT}/test/fixtures/prometheus-operator/monitoring.coreos.com_servicemonitors.yaml`);
    try {
      await admin.get(CRDs, { name: crd!.metadata.name });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      installedMonitorCrd = crd!.metadata.name;
    }
    await applier.apply([crd!], { force: true });
    await eventually(
      "the ServiceMonitor CRD Established",
      async () => {
        const live = await admin.get<KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }>(CRDs, {
          name: crd!.metadata.name,
        });
        return live.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ? true : undefined;
      },
      30_000,
    );
    const objects = (await helmTemplate("custom", ns, CUSTOM)).filter((o) => o.kind !== "CustomResourceDefinition");
    expect(objects.map((o) => o.kind)).toContain("ServiceMonitor");
    expect(objects.length).toBeGreaterThanOrEqual(8);
    // A new Applier: its discovery has not yet looked for the ServiceMonitor's resource.
    await new Applier(admin).apply(objects, { dryRun: true, force: true });
  });
});

/**
 * A helm command of docs/helm.md as the test runs it: on the test's control plane, in a namespace of
 * its own, and without the CRDs for an install (they are on the control plane already, not owned by
 * a release; the rollout CRDs too, which earlier tests may have installed).
 */
function onControlPlane(cmd: ShellCommand): string[] {
  const [program, verb, ...rest] = cmd.argv;
  if (program !== "helm" || (verb !== "install" && verb !== "uninstall")) throw new Error(`unsupported command: ${cmd.argv.join(" ")}`);
  const args = rest.map((a, i) => (rest[i - 1] === "--namespace" && a === "argocd" ? docsNs : a));
  const crds = verb === "install" ? ["--set", "crds.install=false", "--set", "rolloutCrds.install=false"] : [];
  return [verb, ...args, ...crds, "--kubeconfig", inject("kubeconfigPath")];
}

describe("docs/helm.md", () => {
  it("installs the chart with the page's commands, the Deployment rolls out, and uninstalls it", async () => {
    const blocks = codeBlocks(readRepoFile("docs/helm.md")).filter((b) => b.lang === "sh");
    const commands = blocks.flatMap((b) => shellCommands(b.text));
    expect(commands.map((c) => c.argv.slice(0, 2).join(" "))).toEqual(["helm install", "helm uninstall"]);
    const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: NAME, namespace: docsNs } };
    await helm(onControlPlane(commands[0]!));
    await waitForRollout(admin, docsNs, NAME);
    await helm(onControlPlane(commands[1]!));
    expect(await applier.exists(deployment)).toBe(false);
  });
});
