/**
 * The chart with the real helm (the one Argo CD v3.6 ships): `helm lint --strict` passes with its
 * values.schema.json, the schema refuses a value of the wrong type before anything renders, and
 * `helm install --dry-run=client` prints the NOTES.txt of what it installed and how to check it, and
 * an argo-helm values file (test/fixtures/helm/argo-helm-values.yaml) renders each of its settings
 * where argo-helm puts them.
 * test/e2e/helm-chart.test.ts holds the renders equal to the kustomize installs.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { CHART_PATH, chartValues, valueAt } from "../../unit/deploy/chart.js";
import { readRepoFile } from "../../unit/deploy/generated.js";
import { REPO_ROOT } from "../../unit/deploy/kustomize.js";
import { renderToolsDir } from "../../support/render-tools.js";

const exec = promisify(execFile);
const home = mkdtempSync(join(tmpdir(), "appset-helm-"));
const chart = join(REPO_ROOT, CHART_PATH);

afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Runs helm offline, with a home of its own; resolves to its exit code and output. */
async function helm(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env["PATH"] ?? "", HOME: home, HELM_CACHE_HOME: home, HELM_CONFIG_HOME: home, HELM_DATA_HOME: home };
  try {
    const { stdout, stderr } = await exec(join(renderToolsDir(), "helm"), [...args], { env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("the chart with the real helm", () => {
  it("passes helm lint --strict, its schema included", async () => {
    const r = await helm(["lint", "--strict", chart]);
    expect(r.stdout).toContain("1 chart(s) linted, 0 chart(s) failed");
    expect(r.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
  }, 60_000);

  it.each([
    { name: "a string for a number", set: ["--set-string", "applicationSet.replicas=2"], at: "/applicationSet/replicas" },
    { name: "a string for a boolean", set: ["--set-string", "sshKnownHosts.create=yes"], at: "/sshKnownHosts/create" },
    { name: "a number for a string", set: ["--set", "applicationSet.image.tag=1"], at: "/applicationSet/image/tag" },
    { name: "a log level the controller does not know", set: ["--set", "applicationSet.logLevel=verbose"], at: "/applicationSet/logLevel" },
    { name: "a map for a list", set: ["--set", "applicationSet.extraArgs.a=b"], at: "/applicationSet/extraArgs" },
  ])(
    "refuses $name before rendering, naming the value",
    async ({ set, at }) => {
      const r = await helm(["template", "appset", chart, "--namespace", "argocd", ...set]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain("values don't meet the specifications of the schema");
      expect(r.stderr).toContain(at);
    },
    60_000,
  );

  it.each([
    { name: "the defaults", set: [] },
    { name: "beside Argo CD", set: ["--set", "crds.install=false"] },
    {
      name: "an explicit known hosts choice and a PodDisruptionBudget by percentage",
      set: ["--set", "sshKnownHosts.create=true", "--set", "applicationSet.pdb.maxUnavailable=50%"],
    },
  ])(
    "accepts $name",
    async ({ set }) => {
      const r = await helm(["template", "appset", chart, "--namespace", "argocd", ...set]);
      expect(r.stderr.split("\n").filter((l) => l !== "" && !l.includes("level=INFO"))).toEqual([]);
      expect(r.code).toBe(0);
    },
    60_000,
  );

  it.each([
    {
      name: "a standalone install",
      set: ["--set", "applicationSet.allowAnyNamespace=true"],
      says: [
        "ClusterRole and ClusterRoleBinding",
        "argocd-ssh-known-hosts-cm",
        "AppProject default",
        "the Application, ApplicationSet and AppProject CRDs",
      ],
      not: ["no Argo CD CRDs"],
    },
    {
      name: "an install beside Argo CD",
      set: ["--set", "crds.install=false"],
      says: ["no Argo CD CRDs"],
      not: ["argocd-ssh-known-hosts-cm", "AppProject default", "ClusterRole"],
    },
  ])(
    "prints what $name holds and how to check it runs",
    async ({ set, says, not }) => {
      const r = await helm(["install", "appset", chart, "--namespace", "team-a", "--dry-run=client", ...set]);
      expect(r.code, r.stderr).toBe(0);
      const notes = r.stdout.slice(r.stdout.indexOf("NOTES:"));
      expect(notes).toContain("is installed in namespace team-a as release appset");
      expect(notes).toContain("kubectl -n team-a rollout status deployment argocd-applicationset-controller");
      for (const s of says) expect(notes).toContain(s);
      for (const s of not) expect(notes).not.toContain(s);
    },
    60_000,
  );
});

const FIXTURE = "test/fixtures/helm/argo-helm-values.yaml";
const NAME = "argocd-applicationset-controller";
type Obj = Record<string, unknown>;

/** `helm template` of the chart with `args`, parsed. */
async function render(args: readonly string[]): Promise<Obj[]> {
  const r = await helm(["template", "appset", chart, "--namespace", "argocd", ...args]);
  expect(r.code, r.stderr).toBe(0);
  return parseAllDocuments(r.stdout).flatMap((d): Obj[] => {
    const o = d.toJS() as Obj | null;
    return o === null ? [] : [o];
  });
}

/** The rendered object of `kind` and `name`. */
function find(objs: readonly Obj[], kind: string, name = NAME): Obj {
  const o = objs.find((x) => x["kind"] === kind && (x["metadata"] as { name: string }).name === name);
  if (o === undefined) throw new Error(`no ${kind} ${name}`);
  return o;
}

/** The paths of every value of a map, recursively (a list, an empty map or a scalar is one value). */
function leaves(v: unknown, prefix: string[] = []): string[][] {
  if (v === null || typeof v !== "object" || Array.isArray(v) || Object.keys(v).length === 0) return [prefix];
  return Object.entries(v as Obj).flatMap(([k, x]) => leaves(x, [...prefix, k]));
}

const POD = ["spec", "template", "spec"];
const CONTAINER = [...POD, "containers", 0];

describe("an argo-helm values file", () => {
  const values = parse(readRepoFile(FIXTURE)) as { applicationSet: Obj; global: Obj };
  let objs: Obj[];
  beforeAll(async () => {
    objs = await render(["--values", join(REPO_ROOT, FIXTURE)]);
  }, 60_000);

  it("sets only keys the chart has, but those the README lists as not applicable", () => {
    const readme = readRepoFile(`${CHART_PATH}/README.md`);
    const notApplicable = readme
      .split("\n")
      .filter((l) => l.includes("| not applicable"))
      .flatMap((l) => [...l.split("|")[1]!.matchAll(/`([\w.*]+)`/g)].map((m) => m[1]!));
    expect(notApplicable).toEqual(
      expect.arrayContaining(["applicationSet.name", "global.image.repository", "global.networkPolicy.defaultDenyIngress"]),
    );
    // A value of the fixture is the chart's when it or one of its parents is a documented value.
    const documented = chartValues(readRepoFile(`${CHART_PATH}/values.yaml`)).map((v) => v.key);
    const unknown = leaves({ global: values.global, applicationSet: values.applicationSet })
      .filter((p) => !p.some((_, i) => documented.includes(p.slice(0, i + 1).join("."))))
      .map((p) => p.join("."));
    expect(unknown.sort()).toEqual(["applicationSet.name", "global.image.repository", "global.networkPolicy.defaultDenyIngress"]);
  });

  const a = (path: string): unknown => valueAt(values.applicationSet, path.split("."));
  const g = (path: string): unknown => valueAt(values.global, path.split("."));
  it.each([
    { key: "replicas", kind: "Deployment", at: ["spec", "replicas"], want: () => a("replicas") },
    { key: "global.revisionHistoryLimit", kind: "Deployment", at: ["spec", "revisionHistoryLimit"], want: () => g("revisionHistoryLimit") },
    {
      key: "deploymentStrategy over global.deploymentStrategy",
      kind: "Deployment",
      at: ["spec", "strategy"],
      want: () => ({ type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }),
    },
    {
      key: "deploymentAnnotations with global.deploymentAnnotations",
      kind: "Deployment",
      at: ["metadata", "annotations"],
      want: () => ({ "example.com/deployment": "yes", "example.com/global-deployment": "yes" }),
    },
    {
      key: "podAnnotations with global.podAnnotations",
      kind: "Deployment",
      at: ["spec", "template", "metadata", "annotations"],
      want: () => ({ "example.com/pod": "yes", "example.com/global-pod": "yes" }),
    },
    { key: "podLabels", kind: "Deployment", at: ["spec", "template", "metadata", "labels", "team"], want: () => "platform" },
    { key: "global.podLabels", kind: "Deployment", at: ["spec", "template", "metadata", "labels", "tier"], want: () => "control-plane" },
    { key: "global.additionalLabels", kind: "Deployment", at: ["metadata", "labels", "cost-center"], want: () => "platform" },
    { key: "serviceAccount.name", kind: "Deployment", at: [...POD, "serviceAccountName"], want: () => a("serviceAccount.name") },
    { key: "automountServiceAccountToken", kind: "Deployment", at: [...POD, "automountServiceAccountToken"], want: () => true },
    { key: "global.securityContext", kind: "Deployment", at: [...POD, "securityContext", "fsGroup"], want: () => 999 },
    { key: "priorityClassName", kind: "Deployment", at: [...POD, "priorityClassName"], want: () => a("priorityClassName") },
    { key: "runtimeClassName", kind: "Deployment", at: [...POD, "runtimeClassName"], want: () => a("runtimeClassName") },
    { key: "imagePullSecrets", kind: "Deployment", at: [...POD, "imagePullSecrets"], want: () => a("imagePullSecrets") },
    { key: "global.hostAliases", kind: "Deployment", at: [...POD, "hostAliases"], want: () => g("hostAliases") },
    { key: "terminationGracePeriodSeconds", kind: "Deployment", at: [...POD, "terminationGracePeriodSeconds"], want: () => 45 },
    { key: "dnsPolicy", kind: "Deployment", at: [...POD, "dnsPolicy"], want: () => a("dnsPolicy") },
    { key: "dnsConfig", kind: "Deployment", at: [...POD, "dnsConfig"], want: () => a("dnsConfig") },
    { key: "initContainers", kind: "Deployment", at: [...POD, "initContainers"], want: () => a("initContainers") },
    {
      key: "extraContainers (templated)",
      kind: "Deployment",
      at: [...POD, "containers", 1],
      want: () => ({ name: "proxy", image: "registry.example.com/proxy:1.0", args: ["--namespace=argocd"] }),
    },
    { key: "image", kind: "Deployment", at: [...CONTAINER, "image"], want: () => "registry.example.com/appset:9.9.9" },
    { key: "image.imagePullPolicy", kind: "Deployment", at: [...CONTAINER, "imagePullPolicy"], want: () => "IfNotPresent" },
    {
      key: "containerPorts, logFormat, logLevel, extraArgs",
      kind: "Deployment",
      at: [...CONTAINER, "args"],
      want: () => [
        "--metrics-addr=:9090",
        "--probe-addr=:9091",
        "--webhook-addr=:9000",
        "--logformat=text",
        "--loglevel=debug",
        ...(a("extraArgs") as string[]),
      ],
    },
    {
      key: "containerPorts (named as argo-helm's container ports)",
      kind: "Deployment",
      at: [...CONTAINER, "ports"],
      want: () => [
        { name: "webhook", containerPort: 9000, protocol: "TCP" },
        { name: "metrics", containerPort: 9090, protocol: "TCP" },
        { name: "probe", containerPort: 9091, protocol: "TCP" },
      ],
    },
    { key: "extraEnvFrom", kind: "Deployment", at: [...CONTAINER, "envFrom"], want: () => a("extraEnvFrom") },
    { key: "resources", kind: "Deployment", at: [...CONTAINER, "resources"], want: () => a("resources") },
    {
      key: "containerSecurityContext",
      kind: "Deployment",
      at: [...CONTAINER, "securityContext"],
      want: () => a("containerSecurityContext"),
    },
    {
      key: "readinessProbe",
      kind: "Deployment",
      at: [...CONTAINER, "readinessProbe"],
      want: () => ({
        httpGet: { path: "/readyz", port: "probe" },
        initialDelaySeconds: 5,
        periodSeconds: 15,
        timeoutSeconds: 2,
        successThreshold: 2,
        failureThreshold: 4,
      }),
    },
    { key: "livenessProbe.enabled", kind: "Deployment", at: [...CONTAINER, "livenessProbe"], want: () => undefined },
    {
      key: "extraVolumeMounts",
      kind: "Deployment",
      at: [...CONTAINER, "volumeMounts", 4],
      want: () => (a("extraVolumeMounts") as unknown[])[0],
    },
    { key: "extraVolumes", kind: "Deployment", at: [...POD, "volumes", 4], want: () => (a("extraVolumes") as unknown[])[0] },
    { key: "emptyDir.sizeLimit", kind: "Deployment", at: [...POD, "volumes", 0, "emptyDir", "sizeLimit"], want: () => "4Gi" },
    { key: "nodeSelector", kind: "Deployment", at: [...POD, "nodeSelector"], want: () => a("nodeSelector") },
    { key: "tolerations", kind: "Deployment", at: [...POD, "tolerations"], want: () => a("tolerations") },
    {
      key: "global.affinity preset",
      kind: "Deployment",
      at: [...POD, "affinity"],
      want: () => ({
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { "app.kubernetes.io/name": NAME } }, topologyKey: "kubernetes.io/hostname" },
          ],
        },
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: g("affinity.nodeAffinity.matchExpressions") }],
          },
        },
      }),
    },
    {
      key: "topologySpreadConstraints (the pods' selector added)",
      kind: "Deployment",
      at: [...POD, "topologySpreadConstraints"],
      want: () => [{ ...(a("topologySpreadConstraints") as Obj[])[0], labelSelector: { matchLabels: { "app.kubernetes.io/name": NAME } } }],
    },
    {
      key: "serviceAccount.annotations",
      kind: "ServiceAccount",
      name: "appset-controller",
      at: ["metadata", "annotations"],
      want: () => a("serviceAccount.annotations"),
    },
    {
      key: "serviceAccount.labels",
      kind: "ServiceAccount",
      name: "appset-controller",
      at: ["metadata", "labels", "sa"],
      want: () => "appset",
    },
    {
      key: "serviceAccount.automountServiceAccountToken",
      kind: "ServiceAccount",
      name: "appset-controller",
      at: ["automountServiceAccountToken"],
      want: () => false,
    },
    {
      key: "service.port, service.portName, metrics.service.servicePort, metrics.service.portName",
      kind: "Service",
      at: ["spec", "ports"],
      want: () => [
        { name: "http-webhook", port: 7070, protocol: "TCP", targetPort: "webhook" },
        { name: "http-metrics", port: 8085, protocol: "TCP", targetPort: "metrics" },
      ],
    },
    { key: "service.type", kind: "Service", at: ["spec", "type"], want: () => "NodePort" },
    { key: "service.annotations", kind: "Service", at: ["metadata", "annotations"], want: () => a("service.annotations") },
    { key: "service.labels", kind: "Service", at: ["metadata", "labels", "webhook-service"], want: () => "appset" },
    { key: "global.dualStack", kind: "Service", at: ["spec", "ipFamilies"], want: () => ["IPv4", "IPv6"] },
    {
      key: "global.dualStack.ipFamilyPolicy",
      kind: "Service",
      name: `${NAME}-metrics`,
      at: ["spec", "ipFamilyPolicy"],
      want: () => "PreferDualStack",
    },
    { key: "metrics.service.clusterIP", kind: "Service", name: `${NAME}-metrics`, at: ["spec", "clusterIP"], want: () => undefined },
    {
      key: "metrics.service.annotations",
      kind: "Service",
      name: `${NAME}-metrics`,
      at: ["metadata", "annotations"],
      want: () => a("metrics.service.annotations"),
    },
    {
      key: "metrics.service.portName",
      kind: "Service",
      name: `${NAME}-metrics`,
      at: ["spec", "ports"],
      want: () => [{ name: "http-metrics", port: 8085, protocol: "TCP", targetPort: "metrics" }],
    },
    { key: "metrics.serviceMonitor.namespace", kind: "ServiceMonitor", at: ["metadata", "namespace"], want: () => "monitoring" },
    {
      key: "metrics.serviceMonitor.selector and additionalLabels",
      kind: "ServiceMonitor",
      at: ["metadata", "labels"],
      want: (): unknown => expect.objectContaining({ prometheus: "kube-prometheus", release: "prometheus" }),
    },
    {
      key: "metrics.serviceMonitor.annotations",
      kind: "ServiceMonitor",
      at: ["metadata", "annotations"],
      want: () => a("metrics.serviceMonitor.annotations"),
    },
    {
      key: "metrics.serviceMonitor endpoint settings",
      kind: "ServiceMonitor",
      at: ["spec", "endpoints"],
      want: () => [
        {
          port: "http-metrics",
          path: "/metrics",
          interval: "15s",
          scrapeTimeout: "10s",
          honorLabels: true,
          scheme: "https",
          tlsConfig: { insecureSkipVerify: true },
          relabelings: a("metrics.serviceMonitor.relabelings"),
          metricRelabelings: a("metrics.serviceMonitor.metricRelabelings"),
        },
      ],
    },
    { key: "pdb.minAvailable", kind: "PodDisruptionBudget", at: ["spec", "minAvailable"], want: () => 1 },
    { key: "pdb.labels", kind: "PodDisruptionBudget", at: ["metadata", "labels", "pdb"], want: () => "appset" },
    { key: "pdb.annotations", kind: "PodDisruptionBudget", at: ["metadata", "annotations"], want: () => a("pdb.annotations") },
    {
      key: "global.networkPolicy.create",
      kind: "NetworkPolicy",
      name: `${NAME}-network-policy`,
      at: ["kind"],
      want: () => "NetworkPolicy",
    },
    {
      key: "ingress hosts, paths, rules and TLS",
      kind: "Ingress",
      at: ["spec"],
      want: () => {
        const backend = { service: { name: NAME, port: { name: "http-webhook" } } };
        return {
          ingressClassName: "nginx",
          rules: [
            {
              host: "hooks.example.com",
              http: { paths: [{ path: "/api/webhook", pathType: "Prefix", backend }, ...(a("ingress.extraPaths") as Obj[])] },
            },
            { host: "hooks-2.example.com", http: { paths: [{ path: "/api/webhook", pathType: "Prefix", backend }] } },
            { host: "hooks-3.example.com", http: { paths: [{ path: "/api/webhook", pathType: "Prefix", backend }] } },
          ],
          tls: [{ hosts: ["hooks.example.com", "hooks-2.example.com"], secretName: `${NAME}-tls` }, ...(a("ingress.extraTls") as Obj[])],
        };
      },
    },
    { key: "ingress.annotations", kind: "Ingress", at: ["metadata", "annotations"], want: () => a("ingress.annotations") },
    { key: "ingress.labels", kind: "Ingress", at: ["metadata", "labels", "ingress"], want: () => "appset" },
    {
      key: "httproute",
      kind: "HTTPRoute",
      at: ["spec"],
      want: () => ({
        parentRefs: a("httproute.parentRefs"),
        hostnames: a("httproute.hostnames"),
        rules: [{ ...(a("httproute.rules") as Obj[])[0], backendRefs: [{ kind: "Service", name: NAME, port: 7070 }] }],
      }),
    },
    { key: "httproute.labels", kind: "HTTPRoute", at: ["metadata", "labels", "route"], want: () => "appset" },
    { key: "httproute.annotations", kind: "HTTPRoute", at: ["metadata", "annotations"], want: () => a("httproute.annotations") },
    {
      key: "certificate",
      kind: "Certificate",
      at: ["spec"],
      want: () => ({
        secretName: `${NAME}-tls`,
        commonName: "hooks.example.com",
        dnsNames: ["hooks.example.com", "hooks-2.example.com"],
        duration: "720h",
        renewBefore: "168h",
        issuerRef: a("certificate.issuer"),
        privateKey: a("certificate.privateKey"),
      }),
    },
    {
      key: "certificate.annotations with global.certificateAnnotations",
      kind: "Certificate",
      at: ["metadata", "annotations"],
      want: () => ({ "example.com/certificate": "yes", "example.com/global-certificate": "yes" }),
    },
    { key: "allowAnyNamespace", kind: "ClusterRoleBinding", at: ["kind"], want: () => "ClusterRoleBinding" },
  ])(
    "renders $key where argo-helm does",
    ({ kind, name, at, want }: { kind: string; name?: string; at: Array<string | number>; want: () => unknown }) => {
      expect(valueAt(find(objs, kind, name), at.map(String))).toEqual(want());
    },
  );
});

describe("the chart's defaults", () => {
  let objs: Obj[];
  beforeAll(async () => {
    objs = await render([]);
  }, 60_000);

  it("names the Services' ports as argo-helm does, http-webhook and http-metrics", () => {
    const names = (name: string): unknown => ((find(objs, "Service", name)["spec"] as Obj)["ports"] as Obj[]).map((p) => p["name"]);
    expect(names(NAME)).toEqual(["http-webhook", "http-metrics"]);
    expect(names(`${NAME}-metrics`)).toEqual(["http-metrics"]);
  });

  it.each([
    {
      key: "global.image.imagePullPolicy",
      set: "global.image.imagePullPolicy=Always",
      at: [...CONTAINER, "imagePullPolicy"],
      want: "Always",
    },
    { key: "global.logging.format", set: "global.logging.format=text", at: [...CONTAINER, "args", 3], want: "--logformat=text" },
    { key: "global.nodeSelector", set: "global.nodeSelector.pool=system", at: [...POD, "nodeSelector", "pool"], want: "system" },
    { key: "global.priorityClassName", set: "global.priorityClassName=high", at: [...POD, "priorityClassName"], want: "high" },
    { key: "global.runtimeClassName", set: "global.runtimeClassName=kata", at: [...POD, "runtimeClassName"], want: "kata" },
    {
      key: "global.affinity.podAntiAffinity=soft",
      set: "global.affinity.podAntiAffinity=soft",
      at: [...POD, "affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution", 0, "weight"],
      want: 100,
    },
  ])(
    "take $key when the applicationSet key is empty",
    async ({ set, at, want }) => {
      const rendered = await render(["--set", set]);
      expect(valueAt(find(rendered, "Deployment"), at.map(String))).toEqual(want);
    },
    60_000,
  );
});

// The sharded install of docs/sharding.md: `--set applicationSet.sharding.enabled=true`.
describe("applicationSet.sharding", () => {
  const SHARDS = `${NAME}-shards`;

  it("is off by default: no member Leases' Role, no --enable-sharding", async () => {
    const objs = await render([]);
    expect(objs.filter((o) => (o["metadata"] as { name: string }).name === SHARDS)).toEqual([]);
    expect(valueAt(find(objs, "Deployment"), [...CONTAINER, "args"].map(String))).not.toContain("--enable-sharding");
  }, 60_000);

  it("sets the flags and adds the Role of deploy/sharding, bound to the ServiceAccount in the release's namespace", async () => {
    const objs = await render([
      "--set",
      "applicationSet.sharding.enabled=true",
      "--set",
      "applicationSet.sharding.group=team-a",
      "--set",
      "applicationSet.replicas=3",
    ]);
    const deployment = find(objs, "Deployment");
    expect(valueAt(deployment, ["spec", "replicas"])).toBe(3);
    const args = valueAt(deployment, [...CONTAINER, "args"].map(String)) as string[];
    expect(args).toContain("--enable-sharding");
    expect(args).toContain("--shard-group=team-a");
    const committed = parse(readRepoFile("deploy/sharding/role.yaml")) as Obj;
    expect(find(objs, "Role", SHARDS)["rules"]).toEqual(committed["rules"]);
    expect(find(objs, "RoleBinding", SHARDS)["roleRef"]).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: SHARDS });
    expect(find(objs, "RoleBinding", SHARDS)["subjects"]).toEqual([{ kind: "ServiceAccount", name: NAME, namespace: "argocd" }]);
  }, 60_000);

  it("leaves --shard-group to the controller's default when no group is set", async () => {
    const objs = await render(["--set", "applicationSet.sharding.enabled=true"]);
    const args = valueAt(find(objs, "Deployment"), [...CONTAINER, "args"].map(String)) as string[];
    expect(args.filter((a) => a.startsWith("--shard-group"))).toEqual([]);
  }, 60_000);

  it("refuses a group that cannot name one", async () => {
    const r = await helm(["template", "appset", chart, "--set", "applicationSet.sharding.group=Team_A"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("sharding");
  }, 60_000);
});

// The sync engine inside the controller, as deploy/sync-engine-in-controller installs it:
// `--set applicationSet.syncEngine.enabled=true`.
describe("applicationSet.syncEngine", () => {
  const ROLE = "argocd-applicationset-sync-engine";
  const BINDING = `${NAME}-sync-engine`;

  it("is off by default: no ClusterRole of the engine, no --enable-sync-engine", async () => {
    const objs = await render([]);
    expect(objs.filter((o) => o["kind"] === "ClusterRole" || o["kind"] === "ClusterRoleBinding")).toEqual([]);
    expect(valueAt(find(objs, "Deployment"), [...CONTAINER, "args"].map(String))).not.toContain("--enable-sync-engine");
  }, 60_000);

  it("passes --enable-sync-engine and binds the ClusterRole of deploy/sync-engine-rbac to the ServiceAccount in the release's namespace", async () => {
    const objs = await render(["--set", "applicationSet.syncEngine.enabled=true"]);
    const args = valueAt(find(objs, "Deployment"), [...CONTAINER, "args"].map(String)) as string[];
    expect(args).toContain("--enable-sync-engine");
    const committed = parse(readRepoFile("deploy/sync-engine-rbac/clusterrole.yaml")) as Obj;
    expect((committed["metadata"] as { name: string }).name).toBe(ROLE);
    expect(find(objs, "ClusterRole", ROLE)["rules"]).toEqual(committed["rules"]);
    expect(valueAt(find(objs, "ClusterRole", ROLE), ["metadata", "labels"])).toMatchObject(
      valueAt(committed, ["metadata", "labels"]) as Obj,
    );
    const binding = find(objs, "ClusterRoleBinding", BINDING);
    const kustomize = parse(readRepoFile("deploy/sync-engine-in-controller/clusterrolebinding.yaml")) as Obj;
    expect((kustomize["metadata"] as { name: string }).name).toBe(BINDING);
    expect(binding["roleRef"]).toEqual(kustomize["roleRef"]);
    expect(valueAt(binding, ["metadata", "labels"])).toMatchObject(valueAt(kustomize, ["metadata", "labels"]) as Obj);
    expect(binding["subjects"]).toEqual([{ kind: "ServiceAccount", name: NAME, namespace: "argocd" }]);
  }, 60_000);

  it("binds the ServiceAccount the chart names, and adds the cluster-wide rights of allowAnyNamespace beside it", async () => {
    const objs = await render([
      "--set",
      "applicationSet.syncEngine.enabled=true",
      "--set",
      "applicationSet.allowAnyNamespace=true",
      "--set",
      "applicationSet.serviceAccount.name=appset",
    ]);
    expect(find(objs, "ClusterRoleBinding", BINDING)["subjects"]).toEqual([
      { kind: "ServiceAccount", name: "appset", namespace: "argocd" },
    ]);
    expect(find(objs, "ClusterRole", NAME)["rules"]).toEqual((parse(readRepoFile("deploy/cluster-rbac/clusterrole.yaml")) as Obj)["rules"]);
  }, 60_000);

  it("says in NOTES.txt that the engine runs in the controller", async () => {
    const r = await helm([
      "install",
      "appset",
      chart,
      "--namespace",
      "argocd",
      "--dry-run=client",
      "--set",
      "applicationSet.syncEngine.enabled=true",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const notes = r.stdout.slice(r.stdout.indexOf("NOTES:"));
    expect(notes).toContain(`ClusterRoleBinding ${BINDING}`);
    expect(notes).toContain("deploys their Applications with the built-in sync engine");
  }, 60_000);
});
