/**
 * Argo CD v3.6 beside our controller, as its users run it: Argo CD's application controller and
 * repo-server (the reference binary built by `test/argocd/build.sh`) and a Redis, started out of
 * cluster against the local control plane for one namespace, as Argo CD's own e2e runs them
 * (`ARGOCD_FAKE_IN_CLUSTER=true`: the in-cluster destination is the kubeconfig's server). Each
 * process runs in its own process group under a watchdog, and `stop()` removes everything.
 */
import { defaultProject } from "../../../src/syncwaves/default-project.js";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resources, type KubeClient } from "../../../src/kube/index.js";
import { freePort } from "../../cluster/control-plane.js";
import { httpCall, waitFor } from "../../cluster/http.js";
import { killGroup, startProcess, startWatchdog, stopProcess, type Managed } from "../../cluster/processes.js";

/** The Argo CD build the harness runs: `$APPSET_ARGOCD_HOME` holds `bin/argocd` and `crds/`. */
export function argocdHome(): string {
  const home = process.env["APPSET_ARGOCD_HOME"];
  if (home === undefined || home === "") {
    throw new Error(
      "APPSET_ARGOCD_HOME is not set: run the suite through `npm test` (scripts/test.sh builds Argo CD with test/argocd/build.sh and sets it)",
    );
  }
  for (const p of ["bin/argocd", "crds/application-crd.yaml"]) {
    if (!existsSync(join(home, p))) throw new Error(`APPSET_ARGOCD_HOME=${home} has no ${p}: rebuild it with bash test/argocd/build.sh`);
  }
  return home;
}

/** Argo CD's CRDs of the pinned release. */
export const argocdCrdDir = (): string => join(argocdHome(), "crds");

/** A running Argo CD for one namespace. */
export interface ArgoCd {
  readonly namespace: string;
  /** Where the processes log (`redis.log`, `repo-server.log`, `application-controller.log`). */
  readonly dataDir: string;
  /** Freezes the application controller (SIGSTOP), so an operation written meanwhile waits. */
  pause(): void;
  /** Lets a paused application controller go on (SIGCONT). */
  resume(): void;
  stop(): Promise<void>;
}

/** Options of {@link startArgoCd}. */
export interface ArgoCdOptions {
  readonly kubeconfigPath: string;
  readonly namespace: string;
  /** Extra flags of the application controller. */
  readonly controllerFlags?: readonly string[];
  /** Extra environment of the application controller (`ARGOCD_SYNC_WAVE_DELAY`, say). */
  readonly controllerEnv?: Readonly<Record<string, string>>;
}

function redisPath(): string {
  for (const p of ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]) if (existsSync(p)) return p;
  throw new Error("redis-server is not installed: scripts/test.sh installs Debian's redis-server package");
}

async function tcpReady(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: "127.0.0.1", port }, () => {
      s.end();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

async function waitTcp(name: string, port: number, proc: Managed, dataDir: string): Promise<void> {
  await waitFor(
    `${name} listening on ${port} (log: ${join(dataDir, `${name}.log`)})`,
    async () => {
      if (!proc.isRunning()) throw new Error(`${name} exited; see ${join(dataDir, `${name}.log`)}`);
      return (await tcpReady(port)) ? true : undefined;
    },
    { intervalMs: 100, timeoutMs: 60_000 },
  );
}

/** The `default` AppProject in `namespace`, allowing every repository, destination and cluster-scoped kind. */
export async function createDefaultProject(client: KubeClient, namespace: string): Promise<void> {
  await client.create(resources.AppProjects, defaultProject(namespace));
}

/** The ConfigMaps and Secret Argo CD's settings manager reads, in `namespace`; `argocdCm` adds keys to argocd-cm. */
export async function createSettings(client: KubeClient, namespace: string, argocdCm: Record<string, string> = {}): Promise<void> {
  const labels = { "app.kubernetes.io/part-of": "argocd" };
  const cm = (name: string, data: Record<string, string> = {}) => ({
    metadata: { name, namespace, labels: { ...labels, "app.kubernetes.io/name": name } },
    data,
  });
  // An installation ID of its own: objects another instance deployed are not this one's.
  await client.create(resources.ConfigMaps, cm("argocd-cm", { "timeout.reconciliation": "180s", installationID: namespace, ...argocdCm }));
  await client.create(resources.ConfigMaps, cm("argocd-rbac-cm"));
  await client.create(resources.ConfigMaps, cm("argocd-cmd-params-cm"));
  await client.create(resources.Secrets, {
    metadata: { name: "argocd-secret", namespace, labels: { ...labels, "app.kubernetes.io/name": "argocd-secret" } },
    stringData: { "server.secretkey": Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2) },
  });
}

/** A Redis and a repo-server, started by {@link startRepoServer}. */
export interface RepoServer {
  /** `127.0.0.1:<port>` of the repo-server (plaintext gRPC). */
  readonly address: string;
  /** `127.0.0.1:<port>` of the Redis. */
  readonly redis: string;
  /** The environment Argo CD's programs run with (fake in-cluster, askpass socket, HOME, PATH). */
  readonly env: Readonly<Record<string, string>>;
}

/** The environment of Argo CD's programs logging into `dataDir`. */
function argoEnv(dataDir: string, kubeconfigPath: string): Record<string, string> {
  const tmp = join(dataDir, "tmp");
  mkdirSync(tmp, { recursive: true });
  return {
    ARGOCD_FAKE_IN_CLUSTER: "true",
    // The fake in-cluster destination reads the default kubeconfig.
    KUBECONFIG: kubeconfigPath,
    ARGOCD_GPG_ENABLED: "false",
    TMPDIR: tmp,
    // One askpass socket per repo-server (the default is a fixed path under /tmp).
    ARGOCD_ASK_PASS_SOCK: join(dataDir, "askpass.sock"),
    HOME: dataDir,
    PATH: `${join(argocdHome(), "bin")}:${process.env["PATH"] ?? ""}`,
  };
}

/** `env K=V ... <argocd> ARGS` running the Argo CD program `program` (for {@link startProcess}). */
export function argoCommand(program: string, env: Readonly<Record<string, string>>, args: readonly string[]): string[] {
  return [
    ...Object.entries({ ...env, ARGOCD_BINARY_NAME: program }).map(([k, v]) => `${k}=${v}`),
    join(argocdHome(), "bin", "argocd"),
    ...args,
  ];
}

/** Starts a Redis and a repo-server logging into `dataDir`; their processes are pushed onto `procs`. */
export async function startRepoServer(dataDir: string, kubeconfigPath: string, procs: Managed[]): Promise<RepoServer> {
  const [redisPort, repoPort, repoMetrics] = await Promise.all([freePort(), freePort(), freePort()]);
  const redis = startProcess(
    "redis",
    redisPath(),
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    dataDir,
  );
  procs.push(redis);
  await waitTcp("redis", redisPort, redis, dataDir);
  const env = argoEnv(dataDir, kubeconfigPath);
  const repo = startProcess(
    "repo-server",
    "env",
    argoCommand("argocd-repo-server", env, [
      "--address",
      "127.0.0.1",
      "--port",
      String(repoPort),
      "--metrics-address",
      "127.0.0.1",
      "--metrics-port",
      String(repoMetrics),
      "--redis",
      `127.0.0.1:${redisPort}`,
      "--disable-tls",
      "--client-ca-path=",
      "--loglevel",
      "info",
    ]),
    dataDir,
  );
  procs.push(repo);
  await waitTcp("repo-server", repoPort, repo, dataDir);
  return { address: `127.0.0.1:${repoPort}`, redis: `127.0.0.1:${redisPort}`, env };
}

/**
 * Starts Argo CD's application controller for `opts.namespace` against `repo`, logging into
 * `dataDir` (as `<name>.log`, `application-controller` by default); its process is pushed onto
 * `procs`. Resolves once it serves its health endpoint.
 */
export async function startApplicationController(
  repo: RepoServer,
  opts: ArgoCdOptions & { readonly logName?: string },
  dataDir: string,
  procs: Managed[],
): Promise<Managed> {
  const name = opts.logName ?? "application-controller";
  const ctrlMetrics = await freePort();
  const ctrl = startProcess(
    name,
    "env",
    argoCommand("argocd-application-controller", { ...repo.env, ...opts.controllerEnv }, [
      "--kubeconfig",
      opts.kubeconfigPath,
      "--namespace",
      opts.namespace,
      "--repo-server",
      repo.address,
      "--repo-server-plaintext",
      "--redis",
      repo.redis,
      "--metrics-port",
      String(ctrlMetrics),
      "--loglevel",
      "info",
      ...(opts.controllerFlags ?? []),
    ]),
    dataDir,
  );
  procs.push(ctrl);
  await waitFor(
    `application controller healthy (log: ${join(dataDir, `${name}.log`)})`,
    async () => {
      if (!ctrl.isRunning()) throw new Error(`the application controller exited; see ${join(dataDir, `${name}.log`)}`);
      const r = await httpCall("GET", `http://127.0.0.1:${ctrlMetrics}/healthz`).catch(() => undefined);
      return r?.status === 200 ? true : undefined;
    },
    { intervalMs: 200, timeoutMs: 90_000 },
  );
  return ctrl;
}

/**
 * Starts Redis, the repo-server and the application controller for `namespace` (which must exist,
 * with its AppProjects); resolves once the application controller serves its health endpoint.
 */
export async function startArgoCd(client: KubeClient, opts: ArgoCdOptions): Promise<ArgoCd> {
  const dataDir = mkdtempSync(join(tmpdir(), "appset-argocd-"));
  startWatchdog(process.pid, dataDir);
  const procs: Managed[] = [];
  const stop = async (): Promise<void> => {
    for (const p of procs) killGroup(p.pid, "SIGCONT");
    for (const p of [...procs].reverse()) await stopProcess(p, 5_000);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await createSettings(client, opts.namespace);
    const repo = await startRepoServer(dataDir, opts.kubeconfigPath, procs);
    const ctrl = await startApplicationController(repo, opts, dataDir, procs);
    return {
      namespace: opts.namespace,
      dataDir,
      stop,
      pause: () => killGroup(ctrl.pid, "SIGSTOP"),
      resume: () => killGroup(ctrl.pid, "SIGCONT"),
    };
  } catch (err) {
    const logs = ["redis", "repo-server", "application-controller"].map((n) => logTail(join(dataDir, `${n}.log`), 30)).join("\n");
    await stop();
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${logs}`, { cause: err });
  }
}

/** The last `lines` lines of a log file, headed by its path (for failure messages). */
export function logTail(path: string, lines = 40): string {
  try {
    return `--- ${path} (last ${String(lines)} lines)\n${execFileSync("tail", ["-n", String(lines), path], { encoding: "utf8" })}\n`;
  } catch {
    return `--- ${path}: not readable\n`;
  }
}
