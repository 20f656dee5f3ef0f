/**
 * The one adapter from the kube ports to a real apiserver. It speaks the REST API directly through
 * {@link KubeTransport} (client-node's authentication and HTTP stack), so any resource, core or
 * custom, and its status subresource is addressed the same way by its {@link ResourceDescriptor},
 * bodies travel as untouched JSON, and every patch names its type explicitly.
 */
import { KubeApiError, KubeReason } from "./errors.js";
import {
  apiVersionOf,
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
} from "./ports.js";
import type { LimiterPerResource, RequestLimiter } from "./rate-limiter.js";
import { resourcePath } from "./resources.js";
import { KubeConfig } from "./kubeconfig.js";
import { applyKubeOverrides, type KubeOverrides } from "./overrides.js";
import { KubeTransport, loadKubeConfig, type KubeConfigSource, type TransportOptions } from "./transport.js";

const patchContentType: Record<Patch["type"], string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

const watchEventTypes = new Set<string>(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

/** Options of {@link KubeApiClient}: the transport's, and the kubeconfig overrides of kubectl's flags. */
export interface KubeApiClientOptions extends TransportOptions {
  /** fieldManager sent on writes that do not name their own. */
  fieldManager?: string;
  /** kubectl's client overrides applied to the loaded kubeconfig. */
  overrides?: KubeOverrides;
  /** A limiter per resource, each request waiting on its resource's instead of the transport's `limiter`. */
  limiters?: LimiterPerResource;
}

/**
 * One cluster and its credentials, held in memory (kubeconfig fields; `*Data` values base64-encoded
 * PEM as in a kubeconfig). Nothing is written to or read from disk.
 */
export interface InMemoryClusterConfig {
  server: string;
  caData?: string;
  tlsServerName?: string;
  skipTLSVerify?: boolean;
  token?: string;
  username?: string;
  password?: string;
  certData?: string;
  keyData?: string;
}

/** A KubeConfig of one cluster, user and context built in memory. */
export function inMemoryKubeConfig(c: InMemoryClusterConfig): KubeConfig {
  const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== "")) as T;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      defined({
        name: "cluster",
        server: c.server,
        caData: c.caData,
        tlsServerName: c.tlsServerName,
        skipTLSVerify: c.skipTLSVerify === true,
      }),
    ],
    users: [
      defined({ name: "user", token: c.token, username: c.username, password: c.password, certData: c.certData, keyData: c.keyData }),
    ],
    contexts: [{ name: "context", cluster: "cluster", user: "user" }],
    currentContext: "context",
  });
  return kc;
}

/** {@link KubeClient} and {@link ListWatchSource} over the apiserver's REST API. */
export class KubeApiClient implements KubeClient, ListWatchSource {
  constructor(
    readonly transport: KubeTransport,
    private readonly options: KubeApiClientOptions = {},
  ) {}

  /** Builds a client from a kubeconfig file, the in-cluster service account, or the defaults. */
  static fromConfig(source: KubeConfigSource, options?: KubeApiClientOptions): KubeApiClient {
    const kc = loadKubeConfig(source);
    return new KubeApiClient(new KubeTransport(options?.overrides ? applyKubeOverrides(kc, options.overrides) : kc, options), options);
  }

  /** Builds a client from an in-memory cluster configuration (see {@link inMemoryKubeConfig}). */
  static fromOptions(config: InMemoryClusterConfig, options?: KubeApiClientOptions): KubeApiClient {
    return new KubeApiClient(new KubeTransport(inMemoryKubeConfig(config), options), options);
  }

  async get<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, key: ObjectKey): Promise<T> {
    const obj = await this.transport.request({ method: "GET", path: resourcePath(resource, key), ...this.limiterOf(resource) });
    return withType(resource, asObject(obj)) as T;
  }

  async list<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, options: ListOptions = {}): Promise<ObjectList<T>> {
    const body = asObject(
      await this.transport.request({
        method: "GET",
        path: resourcePath(resource, { namespace: options.namespace }),
        query: {
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          limit: options.limit,
          continue: options.continue,
        },
        signal: options.signal,
        ...this.limiterOf(resource),
      }),
    );
    const meta = (body.metadata ?? {}) as { resourceVersion?: string; continue?: string };
    const items = Array.isArray(body.items) ? (body.items as KubeObject[]) : [];
    return {
      items: items.map((i) => withType(resource, i) as T),
      resourceVersion: meta.resourceVersion ?? "",
      ...(meta.continue ? { continue: meta.continue } : {}),
    };
  }

  async create<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, obj: T, options: WriteOptions = {}): Promise<T> {
    const created = await this.transport.request({
      method: "POST",
      path: resourcePath(resource, { namespace: obj.metadata?.namespace }),
      query: this.writeQuery(options),
      body: withType(resource, obj),
      ...this.limiterOf(resource),
    });
    return withType(resource, asObject(created)) as T;
  }

  update<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, obj: T, options: WriteOptions = {}): Promise<T> {
    return this.put(resource, obj, options, undefined);
  }

  updateStatus<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, obj: T, options: WriteOptions = {}): Promise<T> {
    return this.put(resource, obj, options, "status");
  }

  patch<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    key: ObjectKey,
    patch: Patch,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.sendPatch(resource, { ...key }, patch, options);
  }

  patchStatus<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    key: ObjectKey,
    patch: Patch,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.sendPatch(resource, { ...key, subresource: "status" }, patch, options);
  }

  async delete(resource: ResourceDescriptor, key: ObjectKey, options: DeleteOptions = {}): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path: resourcePath(resource, key),
      body: {
        apiVersion: "v1",
        kind: "DeleteOptions",
        ...(options.preconditions ? { preconditions: options.preconditions } : {}),
        ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
        ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
        ...(options.dryRun ? { dryRun: ["All"] } : {}),
      },
      ...this.limiterOf(resource),
    });
  }

  /**
   * Opens a watch and hands each event to `onEvent` until the server ends the stream (resolves) or
   * it fails (rejects with a `KubeApiError`). A line that is not a watch event fails the stream
   * rather than being skipped, so the caller restarts instead of silently missing an event.
   */
  watch(resource: ResourceDescriptor, options: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void> {
    return this.transport.stream(
      {
        method: "GET",
        path: resourcePath(resource, { namespace: options.namespace }),
        query: {
          watch: true,
          resourceVersion: options.resourceVersion,
          allowWatchBookmarks: options.allowWatchBookmarks,
          timeoutSeconds: options.timeoutSeconds,
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
        },
        signal: options.signal,
        ...this.limiterOf(resource),
      },
      (line) => onEvent(parseWatchEvent(resource, line)),
    );
  }

  private async put<T extends KubeObject>(
    resource: ResourceDescriptor,
    obj: T,
    options: WriteOptions,
    subresource: "status" | undefined,
  ): Promise<T> {
    const name = obj.metadata?.name;
    if (name === undefined) throw localInvalid(`${resource.kind}: metadata.name is required for an update`);
    const updated = await this.transport.request({
      method: "PUT",
      path: resourcePath(resource, { namespace: obj.metadata?.namespace, name, subresource }),
      query: this.writeQuery(options),
      body: withType(resource, obj),
      ...this.limiterOf(resource),
    });
    return withType(resource, asObject(updated)) as T;
  }

  private async sendPatch<T extends KubeObject>(
    resource: ResourceDescriptor,
    target: ObjectKey & { subresource?: "status" },
    patch: Patch,
    options: WriteOptions,
  ): Promise<T> {
    const apply = patch.type === "apply";
    const query = {
      ...this.writeQuery(apply ? { ...options, fieldManager: patch.fieldManager } : options),
      ...(apply && patch.force ? { force: true } : {}),
    };
    const body = patch.type === "json" ? patch.ops : apply ? withType(resource, patch.body) : patch.body;
    const patched = await this.transport.request({
      method: "PATCH",
      path: resourcePath(resource, target),
      query,
      body,
      contentType: patchContentType[patch.type],
      ...this.limiterOf(resource),
    });
    return withType(resource, asObject(patched)) as T;
  }

  /** The request's own limiter: its resource's, with {@link KubeApiClientOptions.limiters}. */
  private limiterOf(resource: ResourceDescriptor): { limiter?: RequestLimiter } {
    const limiters = this.options.limiters;
    return limiters === undefined ? {} : { limiter: limiters.of(resource) };
  }

  private writeQuery(options: WriteOptions): Record<string, string | undefined> {
    return {
      dryRun: options.dryRun ? "All" : undefined,
      fieldManager: options.fieldManager ?? this.options.fieldManager,
      fieldValidation: options.fieldValidation,
    };
  }
}

/** Parses one line of a watch stream. */
export function parseWatchEvent(resource: ResourceDescriptor, line: string): WatchEvent {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw new KubeApiError({ status: 0, reason: KubeReason.Unknown, message: `malformed watch line: ${line.slice(0, 200)}`, cause: err });
  }
  const ev = value as { type?: unknown; object?: unknown };
  if (typeof ev.type !== "string" || !watchEventTypes.has(ev.type) || ev.object === null || typeof ev.object !== "object") {
    throw new KubeApiError({ status: 0, reason: KubeReason.Unknown, message: `not a watch event: ${line.slice(0, 200)}` });
  }
  const object = ev.type === "ERROR" ? (ev.object as KubeObject) : withType(resource, ev.object as KubeObject);
  return { type: ev.type as WatchEvent["type"], object };
}

/** Fills in apiVersion and kind (list items and some responses omit them). */
function withType<T extends KubeObject>(resource: ResourceDescriptor, obj: T): T {
  if (obj.apiVersion !== undefined && obj.kind !== undefined) return obj;
  return { ...obj, apiVersion: obj.apiVersion ?? apiVersionOf(resource), kind: obj.kind ?? resource.kind };
}

function asObject(value: unknown): KubeObject {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new KubeApiError({ status: 0, reason: KubeReason.Unknown, message: "apiserver returned no object" });
  }
  return value as KubeObject;
}

function localInvalid(message: string): KubeApiError {
  return new KubeApiError({ status: 0, reason: KubeReason.Invalid, message });
}
