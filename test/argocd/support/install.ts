/**
 * What the install-beside test needs to hand a namespace from Argo CD's ApplicationSet controller to
 * ours and back, without a kubelet:
 * - the part of Argo CD's install the move touches (its ApplicationSet controller's ServiceAccount,
 *   Role, RoleBinding, Service and Deployment, with the settings Argo CD's controller reads), written
 *   here from what v3.6.2's install and the argo-helm chart hold: the same names, labels, ports and
 *   the container `args` that start with Argo CD's program path;
 * - the environment a kubelet would give a Deployment's container (values, the pod's namespace,
 *   `configMapKeyRef`s), and a kubeconfig holding only the ServiceAccount's token;
 * - the container's process: ours from the Dockerfile's ENTRYPOINT plus the container's `args`, or
 *   Argo CD's ApplicationSet controller from the reference binary;
 * - the code blocks of one section of a docs page.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resources, type KubeApiClient } from "../../../src/kube/index.js";
import { serviceAccountKubeConfig } from "../../e2e/support/access.js";
import { codeBlocks, type CodeBlock } from "../../unit/deploy/docs.js";
import { dockerfile, entrypointProgram } from "../../unit/deploy/dockerfile.js";
import { REPO_ROOT, type Manifest } from "../../unit/deploy/kustomize.js";
import { startProcess, startWatchdog, stopProcess, type Managed } from "../../cluster/processes.js";
import { argocdHome } from "./argocd.js";

/** The name of every object of the ApplicationSet controller, Argo CD's and ours. */
export const NAME = "argocd-applicationset-controller";

/** Argo CD's program path, the first container argument of Argo CD's install and of argo-helm. */
export const ARGO_PROGRAM = "/usr/local/bin/argocd-applicationset-controller";

/** The field manager Argo CD's install is written with (kubectl's own is `kubectl`). */
export const ARGOCD_INSTALL_MANAGER = "argocd-install";

/** The image of Argo CD's install. */
export const ARGOCD_IMAGE = "quay.io/argoproj/argocd:v3.6.2";

const labels = {
  "app.kubernetes.io/name": NAME,
  "app.kubernetes.io/part-of": "argocd",
  "app.kubernetes.io/component": "applicationset-controller",
};
const meta = (ns: string): Manifest["metadata"] => ({ name: NAME, namespace: ns, labels });
const cmdParam = (name: string, key: string): Record<string, unknown> => ({
  name,
  valueFrom: { configMapKeyRef: { name: "argocd-cmd-params-cm", key, optional: true } },
});

/**
 * Argo CD's ApplicationSet controller as its install leaves it in `ns`: a Role wider than ours
 * (it may also create and delete ApplicationSets), and a Deployment started with Argo CD's program
 * path and argo-helm's address flags, its settings from `argocd-cmd-params-cm`.
 */
export function argoCdAppSetObjects(ns: string): Manifest[] {
  const crud = ["create", "delete", "get", "list", "patch", "update", "watch"];
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: meta(ns) },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: meta(ns),
      rules: [
        { apiGroups: ["argoproj.io"], resources: ["applications", "applicationsets", "applicationsets/finalizers"], verbs: crud },
        { apiGroups: ["argoproj.io"], resources: ["applicationsets/status"], verbs: ["get", "patch", "update"] },
        { apiGroups: ["argoproj.io"], resources: ["appprojects"], verbs: ["get", "list", "watch"] },
        { apiGroups: [""], resources: ["events"], verbs: ["create", "get", "list", "patch", "watch"] },
        { apiGroups: [""], resources: ["secrets", "configmaps"], verbs: ["get", "list", "watch"] },
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create", "get", "update"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: meta(ns),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: NAME },
      subjects: [{ kind: "ServiceAccount", name: NAME, namespace: ns }],
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: meta(ns),
      spec: {
        selector: { "app.kubernetes.io/name": NAME },
        ports: [
          { name: "webhook", port: 7000, protocol: "TCP", targetPort: "webhook" },
          { name: "metrics", port: 8080, protocol: "TCP", targetPort: "metrics" },
        ],
      },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: meta(ns),
      spec: {
        selector: { matchLabels: { "app.kubernetes.io/name": NAME } },
        template: {
          metadata: { labels: { "app.kubernetes.io/name": NAME } },
          spec: {
            serviceAccountName: NAME,
            containers: [
              {
                name: NAME,
                image: ARGOCD_IMAGE,
                args: [ARGO_PROGRAM, "--metrics-addr=:8080", "--probe-addr=:8081", "--webhook-addr=:7000"],
                env: [
                  { name: "NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
                  cmdParam("ARGOCD_APPLICATIONSET_CONTROLLER_POLICY", "applicationsetcontroller.policy"),
                  cmdParam("ARGOCD_APPLICATIONSET_CONTROLLER_LOGLEVEL", "applicationsetcontroller.log.level"),
                ],
                ports: [
                  { name: "webhook", containerPort: 7000, protocol: "TCP" },
                  { name: "metrics", containerPort: 8080, protocol: "TCP" },
                ],
                volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
              },
            ],
            volumes: [{ name: "tmp", emptyDir: {} }],
          },
        },
      },
    },
  ];
}

/**
 * Applies `objects` as a server-side install of Argo CD does (under Argo CD's field manager, taking
 * over conflicting fields), the first time or again over whatever is there.
 */
export async function installArgoCd(
  client: KubeApiClient,
  resourceOf: (o: Manifest) => Promise<Parameters<KubeApiClient["create"]>[0]>,
  objects: readonly Manifest[],
): Promise<void> {
  for (const o of objects) {
    const patch = { type: "apply" as const, body: o, fieldManager: ARGOCD_INSTALL_MANAGER, force: true };
    await client.patch(await resourceOf(o), { namespace: o.metadata.namespace, name: o.metadata.name }, patch);
  }
}

/** The settings Argo CD's install holds in `ns` (its ApplicationSet controller reads them). */
export async function createArgoCdSettings(client: KubeApiClient, ns: string, cmdParams: Record<string, string>): Promise<void> {
  const l = { "app.kubernetes.io/part-of": "argocd" };
  await client.create(resources.ConfigMaps, { metadata: { name: "argocd-cm", namespace: ns, labels: l }, data: {} });
  await client.create(resources.ConfigMaps, { metadata: { name: "argocd-cmd-params-cm", namespace: ns, labels: l }, data: cmdParams });
  await client.create(resources.Secrets, {
    metadata: { name: "argocd-secret", namespace: ns, labels: l },
    stringData: { "server.secretkey": "install-beside" },
  });
}

/** A Deployment's first container, as the apiserver holds it. */
export interface Container {
  readonly name: string;
  readonly image: string;
  readonly command?: string[];
  readonly args?: string[];
  readonly env?: Array<{
    name: string;
    value?: string;
    valueFrom?: { fieldRef?: { fieldPath: string }; configMapKeyRef?: { name: string; key: string; optional?: boolean } };
  }>;
}

/** The environment a kubelet gives `container` of a pod in `ns`, reading the ConfigMaps it refers to. */
export async function containerEnv(client: KubeApiClient, ns: string, container: Container): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of container.env ?? []) {
    const ref = e.valueFrom?.configMapKeyRef;
    if (e.value !== undefined) out[e.name] = e.value;
    else if (e.valueFrom?.fieldRef?.fieldPath === "metadata.namespace") out[e.name] = ns;
    else if (ref !== undefined) {
      const cm = await client
        .get<{ data?: Record<string, string> }>(resources.ConfigMaps, { namespace: ns, name: ref.name })
        .catch(() => undefined);
      const value = cm?.data?.[ref.key];
      if (value !== undefined) out[e.name] = value;
      else if (ref.optional !== true) throw new Error(`${e.name}: ConfigMap ${ref.name} has no key ${ref.key}`);
    } else throw new Error(`${e.name}: an env source the test does not resolve: ${JSON.stringify(e.valueFrom)}`);
  }
  return out;
}

/** The container's arguments with its listen addresses on free local ports (several runs share the machine). */
export function localAddresses(args: readonly string[]): string[] {
  return args.map((a) => a.replace(/^(--(?:metrics|probe|webhook)-addr)=.*$/, "$1=127.0.0.1:0"));
}

/** One container's process and where it logs. */
export interface ContainerProcess {
  readonly proc: Managed;
  readonly logPath: string;
  /** The log lines so far, JSON lines parsed (others as `{ msg }`). */
  logs(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** A kubeconfig file in `dir` that authenticates as the ServiceAccount `sa` of `ns` with a fresh token. */
export async function tokenKubeconfig(admin: KubeApiClient, kubeconfigPath: string, ns: string, sa: string, dir: string): Promise<string> {
  const kc = await serviceAccountKubeConfig(admin, kubeconfigPath, ns, sa);
  const path = join(dir, `${sa}.kubeconfig`);
  writeFileSync(path, kc.exportConfig(), { mode: 0o600 });
  return path;
}

function startIn(name: string, env: Record<string, string>, argv: readonly string[]): ContainerProcess {
  const dataDir = mkdtempSync(join(tmpdir(), "appset-beside-"));
  startWatchdog(process.pid, dataDir);
  const base = { PATH: process.env["PATH"] ?? "", HOME: dataDir, TMPDIR: dataDir };
  const proc = startProcess(name, "env", ["-i", ...Object.entries({ ...base, ...env }).map(([k, v]) => `${k}=${v}`), ...argv], dataDir);
  return {
    proc,
    logPath: join(dataDir, `${name}.log`),
    logs: () =>
      readFileSync(join(dataDir, `${name}.log`), "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (l.startsWith("{") ? (JSON.parse(l) as Record<string, unknown>) : { msg: l })),
    async stop() {
      await stopProcess(proc, 10_000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Our controller as the container runs it: the Dockerfile's ENTRYPOINT (`appset controller` after
 * tini's `/usr/bin/tini --`, here `src/cli/main.ts` through tsx, without tini) followed by the container's `args`, its environment, and the
 * ServiceAccount's kubeconfig in place of the mounted token.
 */
export function startOurs(container: Container, env: Record<string, string>, kubeconfig: string): ContainerProcess {
  if (container.command !== undefined) throw new Error(`the container sets a command: ${container.command.join(" ")}`);
  const [program, ...entry] = entrypointProgram(dockerfile().at(-1)!);
  if (program !== "appset") throw new Error(`unexpected ENTRYPOINT ${program}`);
  const argv = [
    process.execPath,
    "--import",
    "tsx",
    join(REPO_ROOT, "src", "cli", "main.ts"),
    ...entry,
    ...localAddresses(container.args ?? []),
  ];
  return startIn("ours", { ...env, KUBECONFIG: kubeconfig }, argv);
}

/**
 * Argo CD v3.6.2's ApplicationSet controller as the container runs it: the program named by the
 * container's first argument, the remaining arguments, its environment, the ServiceAccount's
 * kubeconfig.
 */
export function startArgoCdAppSet(container: Container, env: Record<string, string>, kubeconfig: string): ContainerProcess {
  const [program, ...args] = container.args ?? [];
  if (program !== ARGO_PROGRAM) throw new Error(`Argo CD's container starts with ${program}`);
  const argv = [join(argocdHome(), "bin", "argocd"), ...localAddresses(args)];
  return startIn("argocd-applicationset-controller", { ...env, KUBECONFIG: kubeconfig, ARGOCD_BINARY_NAME: NAME }, argv);
}

/** The code blocks between the heading `title` (any level) and the next heading of the same or a higher level. */
export function sectionBlocks(markdown: string, title: string): CodeBlock[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => /^#+ /.test(l) && l.replace(/^#+ /, "") === title);
  if (start < 0) throw new Error(`no heading "${title}"`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => /^#+ /.test(l) && /^#+/.exec(l)![0].length <= level);
  return codeBlocks((end < 0 ? rest : rest.slice(0, end)).join("\n") + "\n");
}
