/**
 * Running the ApplicationSet controller in-process against the shared control plane: a namespace of
 * its own with the `default` AppProject, a client that counts every write the controller sends, and
 * polling helpers.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { inject } from "vitest";
import { parseApplication, type Application, type ApplicationSet } from "../../../src/api/index.js";
import { SystemClock } from "../../../src/clock/index.js";
import { AppSetController, DEFAULT_PLAN_SETTINGS, generatorFn, type PlanSettings } from "../../../src/controller/index.js";
import { createRegistry, DEFAULT_GENERATOR_SETTINGS } from "../../../src/generators/index.js";
import { portsFromKubeReader } from "../../../src/generators/object-ports.js";
import {
  KubeApiClient,
  resources,
  type DeleteOptions,
  type KubeClient,
  type KubeObject,
  type ListOptions,
  type ListWatchSource,
  type ObjectKey,
  type ObjectList,
  type Patch,
  type ResourceDescriptor,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from "../../../src/kube/index.js";
import { silentLogger } from "../../../src/log/logger.js";
import { TemplateEngine } from "../../../src/template/index.js";

/** A client that counts the writes sent through it, per verb and resource. */
export class CountingClient implements KubeClient, ListWatchSource {
  readonly writes: string[] = [];

  constructor(readonly inner: KubeApiClient) {}

  /** Forgets the writes counted so far. */
  reset(): void {
    this.writes.length = 0;
  }

  get<T extends KubeObject = KubeObject>(r: ResourceDescriptor, key: ObjectKey): Promise<T> {
    return this.inner.get<T>(r, key);
  }
  list<T extends KubeObject = KubeObject>(r: ResourceDescriptor, o?: ListOptions): Promise<ObjectList<T>> {
    return this.inner.list<T>(r, o);
  }
  watch(r: ResourceDescriptor, o: WatchOptions, on: (e: WatchEvent) => void): Promise<void> {
    return this.inner.watch(r, o, on);
  }
  create<T extends KubeObject = KubeObject>(r: ResourceDescriptor, obj: T, o?: WriteOptions): Promise<T> {
    this.writes.push(`create ${r.plural}/${obj.metadata?.name ?? obj.metadata?.generateName ?? ""}`);
    return this.inner.create(r, obj, o);
  }
  update<T extends KubeObject = KubeObject>(r: ResourceDescriptor, obj: T, o?: WriteOptions): Promise<T> {
    this.writes.push(`update ${r.plural}/${obj.metadata?.name ?? ""}`);
    return this.inner.update(r, obj, o);
  }
  updateStatus<T extends KubeObject = KubeObject>(r: ResourceDescriptor, obj: T, o?: WriteOptions): Promise<T> {
    this.writes.push(`updateStatus ${r.plural}/${obj.metadata?.name ?? ""}`);
    return this.inner.updateStatus(r, obj, o);
  }
  patch<T extends KubeObject = KubeObject>(r: ResourceDescriptor, key: ObjectKey, p: Patch, o?: WriteOptions): Promise<T> {
    this.writes.push(`patch ${r.plural}/${key.name}`);
    return this.inner.patch(r, key, p, o);
  }
  patchStatus<T extends KubeObject = KubeObject>(r: ResourceDescriptor, key: ObjectKey, p: Patch, o?: WriteOptions): Promise<T> {
    this.writes.push(`patchStatus ${r.plural}/${key.name}`);
    return this.inner.patchStatus(r, key, p, o);
  }
  delete(r: ResourceDescriptor, key: ObjectKey, o?: DeleteOptions): Promise<void> {
    this.writes.push(`delete ${r.plural}/${key.name}`);
    return this.inner.delete(r, key, o);
  }
}

/** The shared control plane's client. */
export function sharedClient(): KubeApiClient {
  return KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
}

/** Creates `<prefix>-<random>` with the `default` AppProject in it. */
export async function controllerNamespace(client: KubeClient, prefix: string): Promise<string> {
  const ns = `${prefix}-${randomBytes(3).toString("hex")}`;
  await client.create(resources.Namespaces, { metadata: { name: ns } });
  await client.create(resources.AppProjects, {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "AppProject",
    metadata: { name: "default", namespace: ns },
    spec: { sourceRepos: ["*"], destinations: [{ server: "*", namespace: "*" }] },
  });
  return ns;
}

/** A controller running in-process, and how to stop it. */
export interface RunningController {
  readonly controller: AppSetController;
  readonly client: CountingClient;
  stop(): Promise<void>;
}

/** Options of {@link startController}. */
export interface StartOptions {
  readonly namespace: string;
  readonly settings?: Partial<PlanSettings>;
  readonly dryRun?: boolean;
  readonly concurrentApplicationUpdates?: number;
  readonly appSetNamespaces?: readonly string[];
}

/** Starts a controller for `namespace` and waits until its caches have synced. */
export async function startController(opts: StartOptions): Promise<RunningController> {
  const client = new CountingClient(sharedClient());
  const clock = new SystemClock();
  const engine = new TemplateEngine({ now: () => clock.now() });
  const registry = createRegistry();
  const objects = portsFromKubeReader(client, opts.namespace);
  const controller = new AppSetController({
    client,
    clock,
    logger: silentLogger(),
    namespace: opts.namespace,
    appSetNamespaces: opts.appSetNamespaces ?? [],
    settings: { ...DEFAULT_PLAN_SETTINGS, ...opts.settings },
    generate: (clusters) =>
      generatorFn({ registry, engine, ctx: { ports: { clusters, configMaps: objects.configMaps, secrets: objects.secrets, resources: objects.resources }, settings: DEFAULT_GENERATOR_SETTINGS, clock } }),
    concurrentReconciliations: 4,
    concurrentApplicationUpdates: opts.concurrentApplicationUpdates ?? 4,
    dryRun: opts.dryRun ?? false,
    progressiveSyncs: false,
  });
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
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
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

/** An `appset controller` child process and what it logged. */
export interface ControllerProcess {
  readonly child: import("node:child_process").ChildProcess;
  /** Parsed JSON log lines. */
  readonly logs: Array<Record<string, unknown>>;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** Waits for a log line whose `msg` is `msg`. */
  waitForLog(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
}

/** Starts `appset controller ARGS` (through tsx, as one Node process) against the shared control plane. */
export async function spawnController(args: readonly string[]): Promise<ControllerProcess> {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "controller", "--kubeconfig", inject("kubeconfigPath"), ...args], {
    stdio: ["ignore", "ignore", "pipe"],
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
