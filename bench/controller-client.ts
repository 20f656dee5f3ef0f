/**
 * A kube client wrapper that counts every write sent through it (per verb and resource), used by the
 * controller benchmark and e2e tests to prove that a converged controller writes nothing, and the
 * controller wired in-process as the CLI wires it.
 */
import { SystemClock } from "../src/clock/index.js";
import { AppSetController, DEFAULT_PLAN_SETTINGS, generatorFn, type PlanSettings } from "../src/controller/index.js";
import { createGeneratorRegistry, DEFAULT_GENERATOR_SETTINGS } from "../src/generators/index.js";
import { portsFromKubeReader } from "../src/generators/object-ports.js";
import { silentLogger, type Logger } from "../src/log/logger.js";
import { TemplateEngine } from "../src/template/index.js";
import type {
  DeleteOptions,
  KubeApiClient,
  KubeClient,
  KubeObject,
  ListOptions,
  ListWatchSource,
  ObjectKey,
  ObjectList,
  Patch,
  ResourceDescriptor,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from "../src/kube/index.js";

/** A client that counts the writes sent through it. */
export class CountingClient implements KubeClient, ListWatchSource {
  /** One `verb resource/name` line per write, in order. */
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

/** Options of {@link inProcessController}. */
export interface InProcessOptions {
  readonly namespace: string;
  readonly settings?: Partial<PlanSettings>;
  readonly dryRun?: boolean;
  readonly concurrentReconciliations?: number;
  readonly concurrentApplicationUpdates?: number;
  readonly appSetNamespaces?: readonly string[];
  readonly logger?: Logger;
}

/** A controller wired as the CLI wires it (List, Cluster and object-backed generators), not started. */
export function inProcessController(client: CountingClient, opts: InProcessOptions): AppSetController {
  const clock = new SystemClock();
  const engine = new TemplateEngine({ now: () => clock.now() });
  const registry = createGeneratorRegistry();
  const objects = portsFromKubeReader(client, opts.namespace);
  return new AppSetController({
    client,
    clock,
    logger: opts.logger ?? silentLogger(),
    namespace: opts.namespace,
    appSetNamespaces: opts.appSetNamespaces ?? [],
    settings: { ...DEFAULT_PLAN_SETTINGS, ...opts.settings },
    generate: (clusters) =>
      generatorFn({
        registry,
        engine,
        ctx: {
          ports: { clusters, configMaps: objects.configMaps, secrets: objects.secrets, resources: objects.resources },
          settings: DEFAULT_GENERATOR_SETTINGS,
          clock,
        },
      }),
    concurrentReconciliations: opts.concurrentReconciliations ?? 4,
    concurrentApplicationUpdates: opts.concurrentApplicationUpdates ?? 4,
    dryRun: opts.dryRun ?? false,
    progressiveSyncs: false,
  });
}
