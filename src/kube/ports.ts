/**
 * The narrow ports the rest of the project uses to talk to Kubernetes, shaped like
 * controller-runtime's `Reader` / `Writer` / `StatusClient`. Every call names its resource with a
 * {@link ResourceDescriptor}, so the same client serves core kinds and custom resources alike.
 * Objects are plain JSON records; the type parameter is the caller's claim about their shape (the
 * adapter does not validate: parse at the edge, e.g. through the informer's `parse`).
 */

/** Identifies one API resource: the URL segments plus what the objects call themselves. */
export interface ResourceDescriptor {
  /** API group; "" for the core group. */
  readonly group: string;
  readonly version: string;
  /** The plural resource name used in URLs (e.g. "configmaps"). */
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** The ObjectMeta fields the kube edge reads or writes. Everything else passes through. */
export interface KubeObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string | null;
  [field: string]: unknown;
}

/** A Kubernetes object as plain JSON: apiVersion/kind/metadata plus whatever the kind has. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: KubeObjectMeta;
  [field: string]: unknown;
}

/** Names one object. `namespace` is ignored for cluster-scoped resources. */
export interface ObjectKey {
  namespace?: string;
  name: string;
}

/** Options of a list call. */
export interface ListOptions {
  /** Restrict to one namespace; omit to list across all namespaces (or for cluster-scoped kinds). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; the result then carries `continue` when more pages remain. */
  limit?: number;
  continue?: string;
  signal?: AbortSignal;
}

/** One page of a list call. */
export interface ObjectList<T extends KubeObject = KubeObject> {
  items: T[];
  /** The list's resourceVersion: where a watch continuing this list starts. */
  resourceVersion: string;
  /** Present when more pages remain. */
  continue?: string;
}

/** Options every write accepts. */
export interface WriteOptions {
  /** Sends `dryRun=All`: the apiserver validates and admits the request but persists nothing. */
  dryRun?: boolean;
  /** `fieldManager` recorded in managedFields. */
  fieldManager?: string;
  /** `fieldValidation`: `Strict` refuses unknown and duplicate fields; the apiserver's default warns and drops them. */
  fieldValidation?: "Strict" | "Warn" | "Ignore";
}

/** One RFC 6902 JSON Patch operation. */
export type JsonPatchOp =
  | { op: "add" | "replace" | "test"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "move" | "copy"; from: string; path: string };

/**
 * A patch, always with its type spelled out (client-node silently defaults to strategic merge,
 * which the apiserver rejects for custom resources).
 */
export type Patch =
  | { type: "merge"; body: Record<string, unknown> }
  | { type: "json"; ops: JsonPatchOp[] }
  | { type: "strategic"; body: Record<string, unknown> }
  | { type: "apply"; body: KubeObject; fieldManager: string; force: boolean };

/** Options of a delete call. */
export interface DeleteOptions {
  dryRun?: boolean;
  /** The delete fails with Conflict unless the live object still has this uid / resourceVersion. */
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
  gracePeriodSeconds?: number;
}

/** Reads objects (from the apiserver, or from an informer cache behind the same shape). */
export interface KubeReader {
  /** Fails with NotFound when the object does not exist. */
  get<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, key: ObjectKey): Promise<T>;
  list<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, options?: ListOptions): Promise<ObjectList<T>>;
}

/** Writes objects. Every call fails with a `KubeApiError` carrying a stable reason. */
export interface KubeWriter {
  /** Fails with AlreadyExists when the name is taken. */
  create<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, obj: T, options?: WriteOptions): Promise<T>;
  /** Replaces the object; fails with Conflict when `metadata.resourceVersion` is stale. */
  update<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, obj: T, options?: WriteOptions): Promise<T>;
  patch<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, key: ObjectKey, patch: Patch, options?: WriteOptions): Promise<T>;
  /** Fails with NotFound when absent, Conflict when a precondition does not hold. */
  delete(resource: ResourceDescriptor, key: ObjectKey, options?: DeleteOptions): Promise<void>;
}

/** Writes the status subresource. */
export interface StatusWriter {
  updateStatus<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, obj: T, options?: WriteOptions): Promise<T>;
  patchStatus<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    key: ObjectKey,
    patch: Patch,
    options?: WriteOptions,
  ): Promise<T>;
}

/** The full client port. */
export interface KubeClient extends KubeReader, KubeWriter, StatusWriter {}

/** One event of a watch stream, as the apiserver sends it. */
export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: KubeObject;
}

/** Options of a watch call. */
export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Server-side timeout: the apiserver closes the stream after this many seconds. */
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

/**
 * The list+watch source an informer runs on. `watch` resolves when the server ends the stream
 * normally and rejects (with a `KubeApiError`) on any failure, including an abort.
 */
export interface ListWatchSource {
  list(resource: ResourceDescriptor, options: ListOptions): Promise<ObjectList>;
  watch(resource: ResourceDescriptor, options: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void>;
}

/** `namespace/name` (or `name` for cluster-scoped objects): the key caches and queues use. */
export function objectKey(obj: { metadata?: { namespace?: string; name?: string } }): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? "";
  return ns ? `${ns}/${name}` : name;
}

/** `apiVersion` of a descriptor ("v1" for the core group, "group/version" otherwise). */
export function apiVersionOf(resource: ResourceDescriptor): string {
  return resource.group === "" ? resource.version : `${resource.group}/${resource.version}`;
}
