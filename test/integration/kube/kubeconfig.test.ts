/**
 * Our KubeConfig against client-node's own, as the reference: for each kubeconfig, the same current
 * context, cluster and user, the same request headers and TLS options, a dispatcher exactly when
 * client-node makes one, and the same refusals.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { RequestOptions } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig as Reference } from "@kubernetes/client-node";
import { kubeEnvironment } from "../../../src/config/index.js";
import { RequestContext } from "../../../src/kube/request-context.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { KubeConfig, type KubeAuthConfig } from "../../../src/kube/kubeconfig.js";

const dir = mkdtempSync(join(tmpdir(), "kubeconfig-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const b64 = (s: string): string => Buffer.from(s).toString("base64");
writeFileSync(join(dir, "ca.crt"), "CA FROM FILE");
writeFileSync(join(dir, "client.crt"), "CERT FROM FILE");
writeFileSync(join(dir, "client.key"), "KEY FROM FILE");
writeFileSync(join(dir, "token"), "rotating-token");
const plugin = join(dir, "plugin.sh");
writeFileSync(
  plugin,
  `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"exec-token-'"$SUFFIX"'"}}'\n`,
);
chmodSync(plugin, 0o755);

/** A kubeconfig of one cluster and one user, current. */
const config = (cluster: string, user: string, extra = ""): string => `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
${cluster}
users:
- name: u
  user:
${user}
contexts:
- name: ctx
  context:
    cluster: c
    user: u
    namespace: team-a
current-context: ctx
${extra}`;

// [ case, cluster lines, user lines ]
const cases: [string, string, string][] = [
  [
    "a bearer token and CA data",
    `    server: https://k8s:6443\n    certificate-authority-data: ${b64("CA DATA")}`,
    "    token: static-token",
  ],
  [
    "client certificate and key data, with a TLS server name",
    `    server: https://10.0.0.1:6443\n    certificate-authority-data: ${b64("CA DATA")}\n    tls-server-name: kubernetes`,
    `    client-certificate-data: ${b64("CERT DATA")}\n    client-key-data: ${b64("KEY DATA")}`,
  ],
  [
    "files named relative to the kubeconfig",
    "    server: https://k8s:6443\n    certificate-authority: ca.crt",
    "    client-certificate: client.crt\n    client-key: client.key",
  ],
  ["insecure-skip-tls-verify", "    server: https://k8s:6443\n    insecure-skip-tls-verify: true", "    token: t"],
  ["plain http with insecure-skip-tls-verify", "    server: http://k8s:8080\n    insecure-skip-tls-verify: true", "    token: t"],
  ["basic auth", "    server: https://k8s:6443", "    username: admin\n    password: secret"],
  ["impersonation from the kubeconfig (as)", "    server: https://k8s:6443", "    token: t\n    as: someone"],
  [
    "an exec credential plugin",
    "    server: https://k8s:6443",
    `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${plugin}\n      env:\n      - name: SUFFIX\n        value: x1\n      interactiveMode: Never`,
  ],
  [
    "a token file auth provider",
    "    server: https://k8s:6443",
    `    auth-provider:\n      name: tokenFile\n      config:\n        tokenFile: ${join(dir, "token")}`,
  ],
  ["a proxy-url (handed to client-node)", "    server: https://k8s:6443\n    proxy-url: http://proxy:3128", "    token: t"],
  ["no user fields at all", `    server: https://k8s:6443\n    certificate-authority-data: ${b64("CA DATA")}`, "    {}"],
];

let n = 0;
function bothFrom(text: string): [KubeConfig, Reference] {
  const file = join(dir, `config-${String(n++)}`);
  writeFileSync(file, text);
  const ours = new KubeConfig();
  ours.loadFromFile(file);
  const ref = new Reference();
  ref.loadFromFile(file);
  return [ours, ref];
}

async function request(kc: KubeAuthConfig): Promise<{ headers: Record<string, string>; dispatcher: boolean } | { error: string }> {
  const ctx = new RequestContext("https://k8s:6443/api", "GET");
  try {
    await kc.applySecurityAuthentication(ctx);
  } catch (err) {
    return { error: String(err) };
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.getHeaders())) headers[k] = String(v);
  const dispatcher = ctx.getDispatcher();
  void dispatcher?.close();
  return { headers, dispatcher: dispatcher !== undefined };
}

async function https(kc: KubeAuthConfig): Promise<Record<string, unknown>> {
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const { agent, ...rest } = opts;
  if (agent && typeof agent === "object" && "destroy" in agent) (agent as { destroy(): void }).destroy();
  return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
}

describe("KubeConfig against client-node's", () => {
  it.each(cases)("%s: the same context, cluster, user, request headers, TLS options and dispatcher", async (_, cluster, user) => {
    const [ours, ref] = bothFrom(config(cluster, user));
    expect(ours.getCurrentContext()).toBe(ref.getCurrentContext());
    expect(ours.getContextObject("ctx")).toEqual(ref.getContextObject("ctx"));
    expect(ours.getCurrentCluster()).toEqual(ref.getCurrentCluster());
    expect(ours.getCurrentUser()).toEqual(ref.getCurrentUser());
    expect(await request(ours)).toEqual(await request(ref));
    if (!cluster.includes("proxy-url")) expect(await https(ours)).toEqual(await https(ref));
  });

  it("refuses plain http without insecure-skip-tls-verify, as client-node does", async () => {
    const [ours, ref] = bothFrom(config("    server: http://k8s:8080", "    token: t"));
    const mine = await request(ours);
    expect(mine).toEqual(await request(ref));
    expect(mine).toMatchObject({ error: expect.stringContaining("HTTP protocol is not allowed") });
  });
});

describe("KubeConfig.loadFromDefault", () => {
  const saved = { KUBECONFIG: process.env["KUBECONFIG"], HOME: process.env["HOME"] };
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  const one = (name: string, current: string | undefined): string => `apiVersion: v1
kind: Config
clusters:
- name: ${name}
  cluster:
    server: https://${name}:6443
users:
- name: ${name}
  user:
    token: ${name}-token
contexts:
- name: ${name}
  context:
    cluster: ${name}
    user: ${name}
${current === undefined ? "" : `current-context: ${current}`}
`;

  it.each([
    ["the second file's current-context wins", "a", "b"],
    ["the first file's context when the second names none", "a", undefined],
  ])("merges $KUBECONFIG's files as client-node does: %s", (_, first, second) => {
    const a = join(dir, `merge-a-${String(n++)}`);
    const b = join(dir, `merge-b-${String(n++)}`);
    writeFileSync(a, one("a", first));
    writeFileSync(b, one("b", second));
    process.env["KUBECONFIG"] = `${a}:${b}`;
    const ours = new KubeConfig();
    ours.loadFromDefault(kubeEnvironment(process.env));
    const ref = new Reference();
    ref.loadFromDefault();
    expect(ours.getCurrentContext()).toBe(ref.getCurrentContext());
    expect(ours.getClusters()).toEqual(ref.getClusters());
    expect(ours.getUsers()).toEqual(ref.getUsers());
    expect(ours.getContexts()).toEqual(ref.getContexts());
  });

  it("refuses two files naming the same cluster, as client-node does", () => {
    const a = join(dir, `dup-a-${String(n++)}`);
    const b = join(dir, `dup-b-${String(n++)}`);
    writeFileSync(a, one("a", "a"));
    writeFileSync(b, one("a", "a"));
    process.env["KUBECONFIG"] = `${a}:${b}`;
    expect(() => new KubeConfig().loadFromDefault(kubeEnvironment(process.env))).toThrow("Duplicate cluster: a");
    expect(() => new Reference().loadFromDefault()).toThrow("Duplicate cluster: a");
  });

  it("reads $KUBECONFIG of the environment it is given, not the process's", () => {
    const file = join(dir, `given-${String(n++)}`);
    writeFileSync(file, one("g", "g"));
    delete process.env["KUBECONFIG"];
    process.env["HOME"] = join(dir, `no-home-${String(n++)}`);
    const ours = new KubeConfig();
    ours.loadFromDefault(kubeEnvironment({ KUBECONFIG: file }));
    expect(ours.getCurrentCluster()?.server).toBe("https://g:6443");
  });

  it("reads ~/.kube/config without $KUBECONFIG", () => {
    const home = join(dir, `home-${String(n++)}`);
    mkdirSync(join(home, ".kube"), { recursive: true });
    writeFileSync(join(home, ".kube", "config"), one("h", "h"));
    delete process.env["KUBECONFIG"];
    process.env["HOME"] = home;
    const ours = new KubeConfig();
    ours.loadFromDefault(kubeEnvironment(process.env));
    expect(ours.getCurrentCluster()?.server).toBe("https://h:6443");
  });
});

describe("KubeConfig.loadFromCluster", () => {
  const saved = { host: process.env["KUBERNETES_SERVICE_HOST"], port: process.env["KUBERNETES_SERVICE_PORT"] };
  afterEach(() => {
    if (saved.host === undefined) delete process.env["KUBERNETES_SERVICE_HOST"];
    else process.env["KUBERNETES_SERVICE_HOST"] = saved.host;
    if (saved.port === undefined) delete process.env["KUBERNETES_SERVICE_PORT"];
    else process.env["KUBERNETES_SERVICE_PORT"] = saved.port;
  });

  it.each([
    ["10.96.0.1", "443", "https://10.96.0.1:443"],
    ["fd00::1", "443", "https://[fd00::1]:443"],
    ["10.96.0.1", "8080", "http://10.96.0.1:8080"],
  ])("the service account of %s:%s, as client-node builds it", async (host, port, server) => {
    const root = join(dir, `sa-${String(n++)}`);
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "token"), "sa-token");
    writeFileSync(join(root, "ca.crt"), "SA CA");
    writeFileSync(join(root, "namespace"), "argocd");
    process.env["KUBERNETES_SERVICE_HOST"] = host;
    process.env["KUBERNETES_SERVICE_PORT"] = port;
    const ours = new KubeConfig();
    ours.loadFromCluster(kubeEnvironment(process.env), root);
    const ref = new Reference();
    // client-node prefixes the standard absolute paths.
    ref.loadFromCluster("");
    expect(ours.getCurrentCluster()).toEqual({ ...ref.getCurrentCluster(), caFile: join(root, "ca.crt"), server });
    expect(ours.getContextObject(ours.getCurrentContext())).toEqual({
      cluster: "inCluster",
      name: "inClusterContext",
      user: "inClusterUser",
      namespace: "argocd",
    });
    const req = await request(ours);
    expect(req).toEqual(
      port === "8080"
        ? { error: expect.stringContaining("HTTP protocol") }
        : { headers: expect.objectContaining({ Authorization: "Bearer sa-token" }), dispatcher: true },
    );
  });
});
