/**
 * The process's one cache (controller-runtime's shared cache): one {@link Informer} per resource
 * kind, namespace scope and label selector, handed to every loop that asks for it, so the
 * ApplicationSet controller, the sync engine and the webhook read the same objects from the same
 * watch. The cache starts every informer it holds, waits for all to sync, and stops them.
 *
 * I/O boundary: the informers' list/watch through the injected source.
 */
import { parseApplication, parseAppProject, type Application, type AppProject, type ParseResult } from "../api/index.js";
import type { Clock } from "../clock/index.js";
import { Informer, resources, type InformerLog, type KubeObject, type ListWatchSource, type ResourceDescriptor } from "../kube/index.js";

/** Which objects one informer holds, and how they are read. */
export interface InformerSpec<T> {
  readonly resource: ResourceDescriptor;
  /** One namespace, or every namespace when absent. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  /** A field selector (`metadata.name=argocd-cm`, say). */
  readonly fieldSelector?: string;
  /** Turns a raw object into the cached type; throw to reject it. */
  readonly parse: (raw: KubeObject) => T;
}

/** Options of {@link SharedCache}. */
export interface SharedCacheOptions {
  readonly source: ListWatchSource;
  readonly clock: Clock;
  readonly log?: InformerLog;
  /** `--cache-sync-period` (ms; 0 or absent: never): every informer relists this often. */
  readonly resyncPeriodMs?: number;
}

/**
 * `raw` without `metadata.managedFields`, which no loop reads of the objects it caches (Applications,
 * ApplicationSets, projects, Secrets): a field manager's entry mirrors every field it wrote, so
 * keeping it would about double the memory of each cached object. An update built from a cached
 * object leaves them as they are: the apiserver keeps the live object's managed fields when a
 * request carries none.
 */
export function withoutManagedFieldsEntries(raw: KubeObject): KubeObject {
  const meta = raw.metadata;
  if (meta?.managedFields === undefined) return raw;
  const { managedFields: _dropped, ...rest } = meta;
  return { ...raw, metadata: rest };
}

/**
 * An informer's parse from an API parser: an object that does not parse is rejected (and counted).
 * Managed fields are dropped on receipt ({@link withoutManagedFieldsEntries}).
 */
export function parserOf<T>(parse: (raw: unknown) => ParseResult<T>): (raw: KubeObject) => T {
  return (raw) => {
    const res = parse(withoutManagedFieldsEntries(raw));
    if (!res.ok) throw res.error;
    return res.value;
  };
}

/**
 * The Applications' informer (one namespace, or all), as the ApplicationSet controller and the
 * sync engine both ask the shared cache for it.
 */
export function applicationsSpec(namespace: string | undefined): InformerSpec<Application> {
  return { resource: resources.Applications, ...(namespace !== undefined ? { namespace } : {}), parse: parserOf(parseApplication) };
}

/** The AppProjects' informer of Argo CD's namespace, as every loop asks the shared cache for it. */
export function appProjectsSpec(namespace: string): InformerSpec<AppProject> {
  return { resource: resources.AppProjects, namespace, parse: parserOf(parseAppProject) };
}

/** The identity of an informer: resource, scope and selectors. */
export function informerKey(spec: Omit<InformerSpec<unknown>, "parse">): string {
  const r = spec.resource;
  return [r.group, r.version, r.plural, spec.namespace ?? "", spec.labelSelector ?? "", spec.fieldSelector ?? ""].join("\u0000");
}

/** One informer per resource, scope and selector, shared by every loop of the process. */
export class SharedCache {
  private readonly informers = new Map<string, Informer<unknown>>();
  private started = false;

  constructor(private readonly opts: SharedCacheOptions) {}

  /**
   * The informer of `spec`, created on first use. Every caller of one resource, scope and selector
   * gets the same informer (and so the parse of the first caller: callers of one kind parse alike).
   * An informer asked for after {@link start} is started at once.
   */
  informer<T>(spec: InformerSpec<T>): Informer<T> {
    const key = informerKey(spec);
    const found = this.informers.get(key);
    if (found !== undefined) return found as Informer<T>;
    const informer = new Informer<T>({
      source: this.opts.source,
      clock: this.opts.clock,
      resource: spec.resource,
      parse: spec.parse,
      resyncPeriodMs: this.opts.resyncPeriodMs ?? 0,
      ...(spec.namespace !== undefined ? { namespace: spec.namespace } : {}),
      ...(spec.labelSelector !== undefined ? { labelSelector: spec.labelSelector } : {}),
      ...(spec.fieldSelector !== undefined ? { fieldSelector: spec.fieldSelector } : {}),
      ...(this.opts.log !== undefined ? { log: this.opts.log } : {}),
    });
    this.informers.set(key, informer as Informer<unknown>);
    if (this.started) informer.start();
    return informer;
  }

  /** How many informers (and so watches) the process holds. */
  get size(): number {
    return this.informers.size;
  }

  /** Starts every informer (and those asked for later). Calling it again does nothing. */
  start(): void {
    this.started = true;
    for (const i of this.informers.values()) i.start();
  }

  /** Resolves once every informer has synced; rejects when `signal` aborts first. */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync(signal)));
  }

  /** True once every informer has synced. */
  hasSynced(): boolean {
    return [...this.informers.values()].every((i) => i.hasSynced());
  }

  /** Has every informer waiting after a failed list or watch try again at once (the apiserver is back). */
  retryNow(): void {
    for (const i of this.informers.values()) i.retryNow();
  }

  /** Stops every informer; resolves when all are quiet. */
  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
