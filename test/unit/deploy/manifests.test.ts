/**
 * The manifests of deploy/ hold together without an apiserver: the install renders to the expected
 * objects in one namespace, the Deployment's ports, probes and Services agree with each other and
 * with the controller's defaults, the pod is locked down, the Role names the controller's Lease,
 * and the configuration examples of docs/configuration.md parse to the same settings whether given
 * through argocd-cmd-params-cm or as flags.
 */
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { OPTIONS, deploymentEnv, parseConfig, type Config } from "../../../src/config/index.js";
import { LEASE_NAME } from "../../../src/leader/index.js";
import { codeBlocks, shellCommands, shellWords } from "./docs.js";
import { readRepoFile } from "./generated.js";
import { DEPLOY_DIR, manifestId, readManifests, renderKustomization, type Manifest } from "./kustomize.js";

type Obj = Record<string, unknown>;
const NAME = "argocd-applicationset-controller";

const install = renderKustomization("deploy/install");
const clusterWide = renderKustomization("deploy/install-cluster-wide");
const find = (objs: Manifest[], kind: string, name = NAME): Manifest => {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  if (o === undefined) throw new Error(`no ${kind} ${name}`);
  return o;
};
const deployment = find(install, "Deployment");
const pod = (deployment["spec"] as { template: { metadata: { labels: Record<string, string> }; spec: Obj } }).template;
const container = (pod.spec["containers"] as Obj[])[0]!;

describe("the rendered installs", () => {
  it.each([
    {
      name: "the namespaced install",
      objects: install,
      ids: [
        "Namespace/argocd",
        "CustomResourceDefinition/applications.argoproj.io",
        "CustomResourceDefinition/applicationsets.argoproj.io",
        "CustomResourceDefinition/appprojects.argoproj.io",
        "CustomResourceDefinition/rolloutpolicies.progressivesync.appset.dev",
        "CustomResourceDefinition/rolloutruns.progressivesync.appset.dev",
        `ServiceAccount/argocd/${NAME}`,
        `Role/argocd/${NAME}`,
        `RoleBinding/argocd/${NAME}`,
        `Deployment/argocd/${NAME}`,
        `Service/argocd/${NAME}`,
        `Service/argocd/${NAME}-metrics`,
        `NetworkPolicy/argocd/${NAME}-network-policy`,
        `PodDisruptionBudget/argocd/${NAME}`,
        "ConfigMap/argocd/argocd-ssh-known-hosts-cm",
        "AppProject/argocd/default",
      ],
    },
    {
      name: "the cluster-wide install",
      objects: clusterWide,
      ids: [...install.map(manifestId), `ClusterRole/${NAME}`, `ClusterRoleBinding/${NAME}`],
    },
  ])("$name holds exactly the expected objects", ({ objects, ids }) => {
    expect(objects.map(manifestId)).toEqual(ids);
  });

  it("binds the Role and the ClusterRole to the controller's ServiceAccount in the install namespace", () => {
    for (const kind of ["RoleBinding", "ClusterRoleBinding"]) {
      const binding = find(clusterWide, kind);
      expect(binding["subjects"]).toEqual([{ kind: "ServiceAccount", name: NAME, namespace: "argocd" }]);
      expect(binding["roleRef"]).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: kind.replace("Binding", ""), name: NAME });
    }
    expect(pod.spec["serviceAccountName"]).toBe(NAME);
  });

  it("admits traffic to the webhook and metrics ports only, and lets a drain take one replica at a time", () => {
    const policy = find(install, "NetworkPolicy", `${NAME}-network-policy`)["spec"] as Obj;
    const names = (container["ports"] as Array<{ name: string }>).map((p) => p.name);
    expect(policy).toEqual({
      podSelector: { matchLabels: { "app.kubernetes.io/name": NAME } },
      policyTypes: ["Ingress"],
      ingress: [{ from: [{ namespaceSelector: {} }], ports: ["webhook", "metrics"].map((port) => ({ protocol: "TCP", port })) }],
    });
    expect(names).toEqual(expect.arrayContaining(["webhook", "metrics"]));
    expect(find(install, "PodDisruptionBudget")["spec"]).toEqual({ maxUnavailable: 1, selector: policy["podSelector"] });
    for (const [k, v] of Object.entries((policy["podSelector"] as { matchLabels: Record<string, string> }).matchLabels)) {
      expect(pod.metadata.labels[k]).toBe(v);
    }
  });

  it("leaves the ClusterRoleBinding's subject without a namespace until an install places it", () => {
    const binding = renderKustomization("deploy/cluster-rbac").find((o) => o.kind === "ClusterRoleBinding")!;
    expect(binding["subjects"]).toEqual([{ kind: "ServiceAccount", name: NAME }]);
  });

  it("gives the leases rule of the Role the controller's own Lease name", () => {
    const rules = find(install, "Role")["rules"] as Array<{ resources: string[]; resourceNames?: string[]; verbs: string[] }>;
    expect(rules.filter((r) => r.resources.includes("leases"))).toEqual([
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: [LEASE_NAME], verbs: ["get", "update"] },
    ]);
  });

  it("never lets the controller write Secrets or ConfigMaps, in its namespace or any other", () => {
    for (const kind of ["Role", "ClusterRole"]) {
      const rules = find(clusterWide, kind)["rules"] as Array<{ resources: string[]; verbs: string[] }>;
      const core = rules.filter((r) => r.resources.includes("secrets") || r.resources.includes("configmaps"));
      expect(
        core.flatMap((r) => r.verbs).every((v) => ["get", "list", "watch"].includes(v)),
        kind,
      ).toBe(true);
    }
  });
});

/** The hosts of Argo CD v3.6's argocd-ssh-known-hosts-cm, each with the key types it lists. */
const KNOWN_HOSTS = {
  "[ssh.github.com]:443": ["ecdsa-sha2-nistp256", "ssh-ed25519", "ssh-rsa"],
  "bitbucket.org": ["ecdsa-sha2-nistp256", "ssh-ed25519", "ssh-rsa"],
  "github.com": ["ecdsa-sha2-nistp256", "ssh-ed25519", "ssh-rsa"],
  "gitlab.com": ["ecdsa-sha2-nistp256", "ssh-ed25519", "ssh-rsa"],
  "ssh.dev.azure.com": ["ssh-rsa"],
  "vs-ssh.visualstudio.com": ["ssh-rsa"],
};

describe("what a standalone install adds to the controller", () => {
  const standalone = [
    "deploy/install",
    "deploy/install-cluster-wide",
    "deploy/install-with-sync-engine",
    "deploy/install-with-sync-engine-namespaced",
  ];

  it.each(standalone)("%s ships Argo CD's SSH known hosts and the default AppProject", (dir) => {
    const objects = renderKustomization(dir);
    expect(find(objects, "ConfigMap", "argocd-ssh-known-hosts-cm").metadata.namespace).toBe("argocd");
    expect(find(objects, "AppProject", "default").metadata.namespace).toBe("argocd");
  });

  it("never ships them beside Argo CD, whose own objects of these names exist", () => {
    const ids = renderKustomization("deploy/beside-argocd").map(manifestId);
    expect(ids.filter((id) => id.startsWith("ConfigMap/") || id.startsWith("AppProject/"))).toEqual([]);
  });

  it("knows the host keys of GitHub, GitLab, Bitbucket and Azure DevOps, as Argo CD's install does", () => {
    const cm = find(install, "ConfigMap", "argocd-ssh-known-hosts-cm") as Manifest & { data: Record<string, string> };
    expect(Object.keys(cm.data)).toEqual(["ssh_known_hosts"]);
    const lines = cm.data["ssh_known_hosts"]!.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    const hosts: Record<string, string[]> = {};
    for (const line of lines) {
      const [host, type, key, ...rest] = line.split(" ");
      expect(rest, line).toEqual([]);
      expect(Buffer.from(key!, "base64").toString("base64"), line).toBe(key);
      (hosts[host!] ??= []).push(type!);
    }
    expect(hosts).toEqual(KNOWN_HOSTS);
    // The same key for a host's name and for its port-443 alias.
    const keyOf = (host: string, type: string): string | undefined => lines.find((l) => l.startsWith(`${host} ${type} `))?.split(" ")[2];
    for (const type of KNOWN_HOSTS["github.com"]) expect(keyOf("[ssh.github.com]:443", type)).toBe(keyOf("github.com", type));
    expect(cm.metadata.labels).toEqual({ "app.kubernetes.io/name": "argocd-ssh-known-hosts-cm", "app.kubernetes.io/part-of": "argocd" });
  });

  it("creates the default AppProject as Argo CD's API server does: any source, destination and cluster-scoped kind", () => {
    const project = find(install, "AppProject", "default");
    expect(project.apiVersion).toBe("argoproj.io/v1alpha1");
    expect(project["spec"]).toEqual({
      sourceRepos: ["*"],
      destinations: [{ namespace: "*", server: "*" }],
      clusterResourceWhitelist: [{ group: "*", kind: "*" }],
    });
  });
});

describe("the Deployment", () => {
  const ports = Object.fromEntries(
    (container["ports"] as Array<{ name: string; containerPort: number }>).map((p) => [p.name, p.containerPort]),
  );
  const addr = (key: string): number =>
    Number(
      String(OPTIONS.find((o) => o.key === key)?.default)
        .split(":")
        .pop(),
    );

  it.each([
    { name: "webhook", key: "webhookAddr" },
    { name: "metrics", key: "metricsAddr" },
    { name: "probe", key: "probeAddr" },
  ])("exposes the $name port the controller listens on by default", ({ name, key }) => {
    expect(ports[name]).toBe(addr(key));
  });

  it.each([
    { name: "readiness", probe: "readinessProbe", path: "/readyz" },
    { name: "liveness", probe: "livenessProbe", path: "/healthz" },
  ])("probes $name on the probe port", ({ probe, path }) => {
    expect((container[probe] as { httpGet: Obj }).httpGet).toEqual({ path, port: "probe" });
  });

  it.each([
    { name: `${NAME}`, ports: ["webhook", "metrics"] },
    { name: `${NAME}-metrics`, ports: ["metrics"] },
  ])("the Service $name selects the controller's pods and targets its named ports", ({ name, ports: names }) => {
    const spec = find(install, "Service", name)["spec"] as {
      selector: Record<string, string>;
      ports: Array<{ name: string; port: number; targetPort: string }>;
    };
    for (const [k, v] of Object.entries(spec.selector)) expect(pod.metadata.labels[k]).toBe(v);
    expect(spec.ports.map((p) => [p.name, p.port, p.targetPort])).toEqual(names.map((n) => [n, ports[n], n]));
  });

  it("runs locked down: non-root, no privilege escalation, no capabilities, read-only root with a writable /tmp", () => {
    expect(container["securityContext"]).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    // The only writable mount is /tmp; the others are Argo CD's ConfigMaps, read-only by nature.
    expect(container["volumeMounts"]).toEqual([
      { name: "tmp", mountPath: "/tmp" },
      { name: "ssh-known-hosts", mountPath: "/app/config/ssh" },
      { name: "tls-certs", mountPath: "/app/config/tls" },
      { name: "argocd-cmd-params-cm", mountPath: "/home/argocd/params" },
    ]);
    expect(pod.spec["volumes"]).toEqual([
      { name: "tmp", emptyDir: { sizeLimit: "2Gi" } },
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
    ]);
    expect(container["resources"]).toMatchObject({
      requests: { cpu: expect.any(String), memory: expect.any(String) },
      limits: { memory: expect.any(String) },
    });
  });

  it("keeps tini as PID 1 in every Deployment of deploy/: containers pass args, never a command", () => {
    const files = readdirSync(DEPLOY_DIR, { withFileTypes: true, recursive: true })
      .filter((f) => f.isFile() && f.name.endsWith(".yaml") && !f.parentPath.includes("helm"))
      .map((f) => join(f.parentPath, f.name))
      .filter((f) => /^kind: Deployment$/m.test(readFileSync(f, "utf8")));
    const containers = files.flatMap((f) =>
      readManifests(f)
        .filter((o) => o.kind === "Deployment")
        .flatMap((o) => (o["spec"] as { template: { spec: { containers: Obj[] } } }).template.spec.containers),
    );
    expect(containers.length).toBeGreaterThanOrEqual(4); // the controller's and the engine's, in their folders and the bundles
    for (const c of containers) expect(c["command"], String(c["name"])).toBeUndefined();
  }, 30_000); // the bundles hold the CRDs: parsing them takes seconds on a loaded machine

  it("leaves the replica count to kubectl scale, so re-applying keeps it", () => {
    expect(deployment["spec"]).not.toHaveProperty("replicas");
  });

  it("runs the image of this version, whose entrypoint is the controller", () => {
    const pkg = JSON.parse(readRepoFile("package.json")) as { version: string };
    expect(container["image"]).toBe(`appset:${pkg.version}`);
    expect(container["command"]).toBeUndefined();
    expect(container["args"]).toBeUndefined();
  });
});

describe("the kustomize subset", () => {
  it.each([
    { name: "an unsupported field", kustomization: "resources: []\npatches: []\n", message: 'unsupported field "patches"' },
    { name: "a missing resource", kustomization: "resources: [nowhere.yaml]\n", message: 'resource "nowhere.yaml" does not exist' },
  ])("refuses a kustomization with $name", ({ kustomization, message }) => {
    const dir = mkdtempSync(join(tmpdir(), "kustomize-"));
    mkdirSync(join(dir, "k"));
    writeFileSync(join(dir, "k", "kustomization.yaml"), kustomization);
    expect(() => renderKustomization(join(dir, "k"))).toThrow(message);
  });
});

describe("the examples of docs/configuration.md", () => {
  const blocks = codeBlocks(readRepoFile("docs/configuration.md"));
  const configMap = parse(blocks.find((b) => b.lang === "yaml")!.text) as { data: Record<string, string> };
  const command = shellCommands(blocks.find((b) => b.lang === "sh")!.text);

  /** The environment the Deployment builds from the ConfigMap's keys. */
  function envFrom(data: Record<string, string>): Record<string, string> {
    const env: Record<string, string> = {};
    for (const e of deploymentEnv()) {
      const v = data[e.valueFrom.configMapKeyRef.key];
      if (v !== undefined) env[e.name] = v;
    }
    return env;
  }

  function config(argv: readonly string[], env: Record<string, string>): Config {
    const res = parseConfig(argv, env);
    if (res.kind !== "config") throw new Error(JSON.stringify(res));
    expect(res.warnings).toEqual([]);
    return res.config;
  }

  it("maps every key of the example ConfigMap to an environment variable of the Deployment", () => {
    const keys = new Set(deploymentEnv().map((e) => e.valueFrom.configMapKeyRef.key));
    expect(Object.keys(configMap.data).filter((k) => !keys.has(k))).toEqual([]);
  });

  it("gives the same settings through the ConfigMap as through the flags", () => {
    expect(command).toHaveLength(1);
    const [appset, sub, ...flags] = command[0]!.argv;
    expect([appset, sub]).toEqual(["appset", "controller"]);
    const fromConfigMap = config([], envFrom(configMap.data));
    expect(fromConfigMap).toEqual(config(flags, {}));
    expect(fromConfigMap).toMatchObject({
      applicationSetNamespaces: ["team-*"],
      enableProgressiveSyncs: true,
      refreshGracePeriodSeconds: 60,
      logFormat: "text",
      logLevel: "debug",
    });
  });
});

describe("shell examples", () => {
  it.each([
    {
      name: "single quotes keep a glob",
      line: "appset controller --applicationset-namespaces 'team-*'",
      words: ["appset", "controller", "--applicationset-namespaces", "team-*"],
    },
    { name: "double quotes keep blanks", line: 'a "b c"  d', words: ["a", "b c", "d"] },
    { name: "an empty quoted word is a word", line: "a ''", words: ["a", ""] },
  ])("splits a line where $name", ({ line, words }) => {
    expect(shellWords(line)).toEqual(words);
  });

  it("feeds a here-document to its command and keeps the commands around it", () => {
    const cmds = shellCommands("kubectl apply -f - <<'EOF'\nkind: X\nEOF\nkubectl get x\n");
    expect(cmds).toEqual([{ argv: ["kubectl", "apply", "-f", "-"], stdin: "kind: X\n" }, { argv: ["kubectl", "get", "x"] }]);
  });
});
