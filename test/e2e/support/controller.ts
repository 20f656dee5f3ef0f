/**
 * Running the ApplicationSet controller in-process against the shared control plane: a namespace of
 * its own with the `default` AppProject, a client that counts every write the controller sends, and
 * polling helpers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { inject } from "vitest";
import { errorMessage } from "../../../src/errors.js";
import { parseApplication, type Application, type ApplicationSet } from "../../../src/api/index.js";
import type { AppSetController } from "../../../src/controller/index.js";
import { KubeApiClient, resources, type KubeClient, type KubeObject } from "../../../src/kube/index.js";
import { CountingClient, inProcessController, type InProcessOptions } from "../../../bench/controller-client.js";
import { programArgs } from "../../support/program.js";
export { CountingClient };

/** The shared control plane's client. */
export function sharedClient(): KubeApiClient {
  return KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
}

/** Creates `<prefix>-<random>` with the `default` AppProject in it (Argo CD's: everything allowed). */
export async function controllerNamespace(client: KubeClient, prefix: string): Promise<string> {
  const ns = `${prefix}-${randomBytes(3).toString("hex")}`;
  await client.create(resources.Namespaces, { metadata: { name: ns } });
  await client.create(resources.AppProjects, {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "AppProject",
    metadata: { name: "default", namespace: ns },
    spec: { sourceRepos: ["*"], destinations: [{ server: "*", namespace: "*" }], clusterResourceWhitelist: [{ group: "*", kind: "*" }] },
  });
  return ns;
}

/** A controller running in-process, and how to stop it. */
export interface RunningController {
  readonly controller: AppSetController;
  readonly client: CountingClient;
  stop(): Promise<void>;
}

/** Options of {@link startController}: `kubeconfigPath` sends the controller through another endpoint. */
export type StartOptions = InProcessOptions & { readonly kubeconfigPath?: string };

/** Starts a controller for `namespace` and waits until its caches have synced. */
export async function startController(opts: StartOptions): Promise<RunningController> {
  const api = opts.kubeconfigPath === undefined ? sharedClient() : KubeApiClient.fromConfig({ kind: "file", path: opts.kubeconfigPath });
  const client = new CountingClient(api);
  const controller = inProcessController(client, opts);
  await controller.start();
  return {
    controller,
    client,
    stop: async () => {
      await controller.stop(5_000);
      await client.inner.transport.close();
    },
  };
}

/** Polls `fn` until it returns a value other than undefined. */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (performance.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last === undefined ? "" : `: ${errorMessage(last)}`}`);
    await sleep(100);
  }
}

/** The Applications of a namespace, by name. */
export async function applications(client: KubeClient, namespace: string): Promise<Map<string, Application>> {
  const list = await client.list(resources.Applications, { namespace });
  const out = new Map<string, Application>();
  for (const o of list.items) {
    const r = parseApplication(o);
    if (r.ok) out.set(r.value.metadata.name ?? "", r.value);
  }
  return out;
}

/** Reads an ApplicationSet. */
export async function readAppSet(client: KubeClient, namespace: string, name: string): Promise<ApplicationSet> {
  return client.get<ApplicationSet & KubeObject>(resources.ApplicationSets, { namespace, name });
}

/** The conditions of an ApplicationSet as `[type, status, reason, message]` rows. */
export function conditionRows(appSet: ApplicationSet): string[][] {
  return (appSet.status?.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message]);
}

/** A List-generator ApplicationSet producing one Application per name. */
export function listAppSet(name: string, namespace: string, names: readonly string[], extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name, namespace },
    spec: {
      generators: [{ list: { elements: names.map((n) => ({ name: n })) } }],
      template: {
        metadata: { name: "{{name}}", labels: { app: "{{name}}" } },
        spec: {
          project: "default",
          source: { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook", targetRevision: "HEAD" },
          destination: { server: "https://kubernetes.default.svc", namespace: "{{name}}" },
        },
      },
      ...extra,
    },
  };
}

/** The flags of a controller process for namespace `ns` on free loopback ports, then `extra`. */
export function processArgs(ns: string, ...extra: string[]): string[] {
  return ["--namespace", ns, "--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", ...extra];
}

/** An `appset controller` child process and what it logged. */
export interface ControllerProcess {
  readonly child: ChildProcess;
  /** Parsed JSON log lines. */
  readonly logs: Array<Record<string, unknown>>;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** Waits for a log line whose `msg` is `msg`. */
  waitForLog(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
}

/**
 * Starts `appset controller ARGS` (or another subcommand that takes the controller's flags, such as
 * `sync-engine`) as one Node process, against the shared control plane (or through another
 * kubeconfig, such as a counting proxy's): the shipped program, bundled once for the e2e run
 * (`inject("programPath")`), or, in a project that does not bundle it, src/cli/main.ts through tsx.
 */
export function spawnController(
  args: readonly string[],
  command = "controller",
  kubeconfigPath = inject("kubeconfigPath"),
  env: NodeJS.ProcessEnv = process.env,
): ControllerProcess {
  const argv = [command, "--kubeconfig", kubeconfigPath, ...args];
  const main = inject("programPath") as string | undefined;
  const child = spawn(process.execPath, main === undefined ? ["--import", "tsx", "src/cli/main.ts", ...argv] : programArgs(main, argv), {
    stdio: ["ignore", "ignore", "pipe"],
    env,
  });
  const logs: Array<Record<string, unknown>> = [];
  let buffer = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  const waitForLog = (msg: string, timeoutMs = 60_000): Promise<Record<string, unknown>> =>
    eventually(`log "${msg}"`, () => Promise.resolve(logs.find((l) => l["msg"] === msg)), timeoutMs);
  return { child, logs, exited, waitForLog };
}
