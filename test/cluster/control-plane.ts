/**
 * A real local Kubernetes control plane for tests and the demo: etcd, kube-apiserver,
 * kube-controller-manager, kube-scheduler and KWOK (standing in for kubelets), built from Go modules
 * by `build.sh`, started on free loopback ports with a private data directory, token-authenticated,
 * and torn down completely by `stop()` (or by a watchdog when the owning process dies).
 */
import { execFile } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { httpCall, waitFor } from "./http.js";
import { startProcess, startWatchdog, stopProcess, type Managed } from "./processes.js";
import { createKwokNode, installCrds, waitForNodeReady } from "./bootstrap.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..");

/** The components a control plane can run; etcd and the apiserver are always started. */
export type Component = "etcd" | "apiserver" | "controller-manager" | "scheduler" | "kwok";

export const ALL_COMPONENTS: readonly Component[] = ["etcd", "apiserver", "controller-manager", "scheduler", "kwok"];

/** Options of {@link startControlPlane}. */
export interface ControlPlaneOptions {
  /** Components to run (default: all). Without kwok no node exists and pods stay Pending. */
  components?: readonly Component[];
  /** Install the project's CRDs from deploy/crds (default true). */
  installCrds?: boolean;
  /** Where the CRDs to install are (default: the project's deploy/crds), e.g. Argo CD's. */
  crdDir?: string;
  /** Where the binaries are (default: built or reused by build.sh). */
  binDir?: string;
  /** More kube-apiserver flags, after the harness's own (e.g. an audit policy for a benchmark). */
  apiServerFlags?: readonly string[];
  /** More kube-controller-manager flags, after the harness's own (e.g. a benchmark's client limits). */
  controllerManagerFlags?: readonly string[];
}

/** A running control plane. */
export interface ControlPlane {
  /** Kubeconfig with an admin token (group system:masters); TLS is not verified. */
  readonly kubeconfigPath: string;
  readonly server: string;
  readonly token: string;
  readonly dataDir: string;
  /** etcd's client URL (HTTP, with the v3 JSON gateway). */
  readonly etcdEndpoint: string;
  /** Milliseconds from the start to each phase being ready (etcd, apiserver, crds, node, ready). */
  readonly timings: Readonly<Record<string, number>>;
  stopApiServer(): Promise<void>;
  startApiServer(): Promise<void>;
  restartApiServer(): Promise<void>;
  stop(): Promise<void>;
}

/** Builds the binaries if needed (cached outside the repo) and returns their directory. */
export async function controlPlaneBinDir(): Promise<string> {
  const { stdout } = await promisify(execFile)("bash", [join(here, "build.sh")], {
    maxBuffer: 16 * 1024 * 1024,
  });
  const lines = stdout.trim().split("\n");
  const bin = lines[lines.length - 1] ?? "";
  if (!existsSync(join(bin, "kube-apiserver"))) throw new Error(`control-plane build gave no binaries in '${bin}'`);
  return bin;
}

/** A free TCP port on the loopback address. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr !== null ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

function kubeconfigYaml(server: string, token: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: ${server}
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: ${token}
contexts:
- name: local
  context:
    cluster: local
    user: admin
current-context: local
`;
}

interface Layout {
  bin: string;
  dir: string;
  token: string;
  etcdPort: number;
  peerPort: number;
  apiPort: number;
  schedPort: number;
  kwokPort: number;
}

function etcdArgs(l: Layout): string[] {
  const client = `http://127.0.0.1:${l.etcdPort}`;
  const peer = `http://127.0.0.1:${l.peerPort}`;
  return [
    "--name=node0",
    `--data-dir=${join(l.dir, "etcd")}`,
    "--unsafe-no-fsync",
    "--quota-backend-bytes=4294967296",
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=node0=${peer}`,
    "--log-level=warn",
  ];
}

function apiServerArgs(l: Layout): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${l.etcdPort}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    `--secure-port=${l.apiPort}`,
    `--cert-dir=${join(l.dir, "pki")}`,
    `--token-auth-file=${join(l.dir, "tokens.csv")}`,
    "--authorization-mode=Node,RBAC",
    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
    `--service-account-key-file=${join(l.dir, "sa.key")}`,
    `--service-account-signing-key-file=${join(l.dir, "sa.key")}`,
    "--service-cluster-ip-range=10.96.0.0/16",
    "--allow-privileged=true",
    "--endpoint-reconciler-type=none",
    "--v=0",
  ];
}

function componentArgs(name: Component, l: Layout): string[] {
  const kubeconfig = `--kubeconfig=${join(l.dir, "kubeconfig")}`;
  switch (name) {
    case "controller-manager":
      return [
        kubeconfig,
        "--leader-elect=false",
        "--secure-port=0",
        `--service-account-private-key-file=${join(l.dir, "sa.key")}`,
        `--root-ca-file=${join(l.dir, "pki", "apiserver.crt")}`,
        "--concurrent-deployment-syncs=10",
        "--concurrent-gc-syncs=20",
        "--node-monitor-period=1s",
      ];
    case "scheduler":
      return [kubeconfig, "--leader-elect=false", "--bind-address=127.0.0.1", `--secure-port=${l.schedPort}`];
    case "kwok":
      return [
        kubeconfig,
        `--config=${join(l.bin, "..", "kwok-stages.yaml")}`,
        "--manage-all-nodes=false",
        "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
        "--manage-nodes-with-label-selector=",
        "--cidr=10.244.0.0/16",
        "--node-ip=127.0.0.1",
        `--server-address=127.0.0.1:${l.kwokPort}`,
        "--node-lease-duration-seconds=40",
      ];
    default:
      throw new Error(`not a secondary component: ${name}`);
  }
}

const BINARIES: Record<Component, string> = {
  etcd: "etcd",
  apiserver: "kube-apiserver",
  "controller-manager": "kube-controller-manager",
  scheduler: "kube-scheduler",
  kwok: "kwok",
};

async function layout(bin: string): Promise<Layout> {
  const dir = mkdtempSync(join(tmpdir(), "appset-cp-"));
  const token = randomBytes(24).toString("hex");
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  writeFileSync(join(dir, "sa.key"), privateKey.export({ type: "pkcs1", format: "pem" }));
  writeFileSync(join(dir, "tokens.csv"), `${token},admin,admin,"system:masters"\n`);
  const [etcdPort, peerPort, apiPort, schedPort, kwokPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  return { bin, dir, token, etcdPort: etcdPort, peerPort: peerPort, apiPort: apiPort, schedPort: schedPort, kwokPort: kwokPort };
}

/** Starts a control plane and waits until it is ready (and, with kwok, until its node is Ready). */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const components = opts.components ?? ALL_COMPONENTS;
  const l = await layout(opts.binDir ?? process.env.APPSET_CONTROL_PLANE_BIN ?? (await controlPlaneBinDir()));
  startWatchdog(process.pid, l.dir);
  const server = `https://127.0.0.1:${l.apiPort}`;
  const etcdEndpoint = `http://127.0.0.1:${l.etcdPort}`;
  const procs = new Map<string, Managed>();
  const start = (name: string, args: string[]): void => {
    procs.set(name, startProcess(name, join(l.bin, BINARIES[name as Component]), args, l.dir));
  };
  const exitedEarly = (name: string): void => {
    const p = procs.get(name);
    if (p !== undefined && !p.isRunning()) throw new Error(`${name} exited; see ${join(l.dir, `${name}.log`)}`);
  };

  const startApiServer = async (): Promise<void> => {
    start("apiserver", [...apiServerArgs(l), ...(opts.apiServerFlags ?? [])]);
    await waitFor(
      "kube-apiserver /readyz",
      async () => {
        exitedEarly("apiserver");
        const r = await httpCall("GET", `${server}/readyz`, { token: l.token, timeoutMs: 2_000 });
        return r.status === 200 ? true : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 100 },
    );
  };
  const stopApiServer = async (): Promise<void> => {
    const p = procs.get("apiserver");
    if (p !== undefined) await stopProcess(p);
  };
  const stop = async (): Promise<void> => {
    const order = ["kwok", "scheduler", "controller-manager", "apiserver", "etcd"];
    for (const name of order) {
      const p = procs.get(name);
      if (p !== undefined) await stopProcess(p);
    }
    rmSync(l.dir, { recursive: true, force: true });
  };

  const t0 = Date.now();
  const timings: Record<string, number> = {};
  const mark = (phase: string): void => {
    timings[phase] = Date.now() - t0;
  };
  try {
    start("etcd", etcdArgs(l));
    await waitFor(
      "etcd /health",
      async () => {
        exitedEarly("etcd");
        const r = await httpCall("GET", `${etcdEndpoint}/health`, { timeoutMs: 2_000 });
        return r.status === 200 ? true : undefined;
      },
      { intervalMs: 50 },
    );
    mark("etcd");
    await startApiServer();
    mark("apiserver");
    writeFileSync(join(l.dir, "kubeconfig"), kubeconfigYaml(server, l.token));
    for (const name of components) {
      if (name !== "etcd" && name !== "apiserver")
        start(name, [...componentArgs(name, l), ...(name === "controller-manager" ? (opts.controllerManagerFlags ?? []) : [])]);
    }
    const api = { server, token: l.token };
    // The CRDs and the node come up independently: do both at once.
    await Promise.all([
      (opts.installCrds ?? true) ? installCrds(api, opts.crdDir ?? join(repoRoot, "deploy", "crds")).then(() => mark("crds")) : undefined,
      components.includes("kwok")
        ? createKwokNode(api, "kwok-node-0")
            .then(() => waitForNodeReady(api, "kwok-node-0", components.includes("controller-manager")))
            .then(() => mark("node"))
        : undefined,
    ]);
    mark("ready");
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    kubeconfigPath: join(l.dir, "kubeconfig"),
    server,
    token: l.token,
    dataDir: l.dir,
    etcdEndpoint,
    timings,
    stopApiServer,
    startApiServer,
    restartApiServer: async () => {
      await stopApiServer();
      await startApiServer();
    },
    stop,
  };
}
