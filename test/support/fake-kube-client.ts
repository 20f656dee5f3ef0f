/**
 * An in-memory, recording implementation of {@link KubeClient} for unit tests of code that calls
 * the ports (executors, reconcilers): it records every call in order (sample-controller's expected
 * actions), lets a test intercept any verb to inject a failure (controller-runtime's
 * `interceptor.Funcs`), and keeps just enough bookkeeping to behave plausibly: uid, resourceVersion
 * and generation are assigned, a stale resourceVersion conflicts, names collide, preconditions hold.
 *
 * It is NOT a model of the apiserver: strategic-merge and apply patches are approximated by a JSON
 * merge patch, there is no admission, defaulting, validation or garbage collection. Kubernetes
 * behaviour itself is tested against the real control plane, never against this fake.
 */
import { KubeApiError, KubeReason } from "../../src/kube/errors.js";
import { applyJsonPatch, applyMergePatch, JsonPatchError } from "../../src/kube/patching.js";
import {
  apiVersionOf,
  objectKey,
  type DeleteOptions,
  type KubeClient,
  type KubeObject,
  type ListOptions,
  type ObjectKey,
  type ObjectList,
  type Patch,
  type ResourceDescriptor,
  type WriteOptions,
} from "../../src/kube/ports.js";
import { matchesLabelSelector } from "../../src/kube/selector.js";

/** The verbs of {@link KubeClient}. */
export type Verb = "get" | "list" | "create" | "update" | "patch" | "delete" | "updateStatus" | "patchStatus";

/** One recorded call. `object` is the written object, `patch` the patch, as the caller passed them. */
export interface Action {
  verb: Verb;
  resource: string;
  namespace?: string;
  name?: string;
  object?: KubeObject;
  patch?: Patch;
  options?: WriteOptions | DeleteOptions | ListOptions;
}

/**
 * Replaces one verb: receives the recorded action and `next`, which runs the fake's own behaviour.
 * Throw (e.g. a `KubeApiError`) to inject a failure, or call `next()` to pass through.
 */
export type Interceptor = (action: Action, next: () => Promise<unknown>) => Promise<unknown>;

/** The recording fake. */
export class FakeKubeClient implements KubeClient {
  /** Every call, in order (including calls that failed). */
  readonly actions: Action[] = [];
  /** Per-verb interceptors; set or replace entries at any time. */
  readonly interceptors: Partial<Record<Verb, Interceptor>> = {};
  /** The deletionTimestamp a delete of an object with finalizers sets. */
  deletionTime = "2026-01-01T00:00:00Z";
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private counter = 0;

  /**
   * Stores objects without recording actions (uid and generation are filled in; a numeric
   * resourceVersion is kept, as a cache holding the object would have it, anything else replaced).
   */
  seed(resource: ResourceDescriptor, ...objs: KubeObject[]): void {
    for (const obj of objs) {
      const given = /^\d+$/.test(obj.metadata?.resourceVersion ?? "") ? Number(obj.metadata?.resourceVersion) : undefined;
      const stored = this.stamp(resource, structuredClone(obj), undefined);
      if (given !== undefined) {
        this.counter = Math.max(this.counter, given);
        stored.metadata = { ...stored.metadata, resourceVersion: String(given) };
      }
      this.bucket(resource).set(objectKey(stored), stored);
    }
  }

  /** Forgets the recorded actions. */
  clearActions(): void {
    this.actions.length = 0;
  }

  /** The stored object, without recording an action. */
  peek(resource: ResourceDescriptor, key: ObjectKey): KubeObject | undefined {
    const obj = this.bucket(resource).get(keyOf(resource, key));
    return obj === undefined ? undefined : structuredClone(obj);
  }

  get<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, key: ObjectKey): Promise<T> {
    return this.run({ verb: "get", ...this.target(resource, key) }, () => this.mustGet(resource, key)) as Promise<T>;
  }

  list<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, options: ListOptions = {}): Promise<ObjectList<T>> {
    const action: Action = { verb: "list", resource: resource.plural, namespace: options.namespace, options };
    return this.run(action, () => {
      const items = [...this.bucket(resource).values()].filter(
        (o) =>
          (options.namespace === undefined || o.metadata?.namespace === options.namespace) &&
          matchesLabelSelector(options.labelSelector ?? "", o.metadata?.labels ?? {}),
      );
      return Promise.resolve({ items: structuredClone(items), resourceVersion: String(this.counter) });
    }) as Promise<ObjectList<T>>;
  }

  create<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, obj: T, options: WriteOptions = {}): Promise<T> {
    const action = { verb: "create" as const, ...this.target(resource, metaKey(obj)), object: obj, options };
    return this.run(action, () => {
      const copy = structuredClone(obj) as KubeObject;
      const meta = (copy.metadata ??= {});
      if (meta.name === undefined && meta.generateName !== undefined) meta.name = `${meta.generateName}${(this.counter + 1).toString(36)}`;
      if (meta.name === undefined) throw invalid(`${resource.kind}: metadata.name or generateName is required`);
      if (this.bucket(resource).has(objectKey(copy))) throw alreadyExists(resource, meta.name);
      return Promise.resolve(this.commit(resource, this.stamp(resource, copy, undefined), options.dryRun));
    }) as Promise<T>;
  }

  update<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, obj: T, options: WriteOptions = {}): Promise<T> {
    const action = { verb: "update" as const, ...this.target(resource, metaKey(obj)), object: obj, options };
    return this.run(action, async () => {
      const live = await this.mustGet(resource, metaKey(obj));
      checkVersion(live, obj);
      const next = { ...structuredClone(obj), status: live.status } as KubeObject;
      return this.commit(resource, this.stamp(resource, next, live), options.dryRun);
    }) as Promise<T>;
  }

  updateStatus<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, obj: T, options: WriteOptions = {}): Promise<T> {
    const action = { verb: "updateStatus" as const, ...this.target(resource, metaKey(obj)), object: obj, options };
    return this.run(action, async () => {
      const live = await this.mustGet(resource, metaKey(obj));
      checkVersion(live, obj);
      const next = { ...live, status: structuredClone(obj.status) };
      return this.commit(resource, this.stamp(resource, next, live), options.dryRun);
    }) as Promise<T>;
  }

  patch<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    key: ObjectKey,
    patch: Patch,
    options: WriteOptions = {},
  ): Promise<T> {
    const action = { verb: "patch" as const, ...this.target(resource, key), patch, options };
    return this.run(action, async () => {
      const live = patch.type === "apply" ? this.peek(resource, key) : await this.mustGet(resource, key);
      if (live !== undefined) checkPatchVersion(live, patch);
      const patched = patchObject(live ?? {}, patch);
      const next = { ...patched, metadata: { ...patched.metadata, name: key.name, namespace: key.namespace }, status: live?.status };
      return this.commit(resource, this.stamp(resource, next, live), options.dryRun);
    }) as Promise<T>;
  }

  patchStatus<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    key: ObjectKey,
    patch: Patch,
    options: WriteOptions = {},
  ): Promise<T> {
    const action = { verb: "patchStatus" as const, ...this.target(resource, key), patch, options };
    return this.run(action, async () => {
      const live = await this.mustGet(resource, key);
      checkPatchVersion(live, patch);
      const next = { ...live, status: patchObject(live, patch).status };
      return this.commit(resource, this.stamp(resource, next, live), options.dryRun);
    }) as Promise<T>;
  }

  delete(resource: ResourceDescriptor, key: ObjectKey, options: DeleteOptions = {}): Promise<void> {
    const action = { verb: "delete" as const, ...this.target(resource, key), options };
    return this.run(action, async () => {
      const live = await this.mustGet(resource, key);
      const pre = options.preconditions ?? {};
      if (
        (pre.uid !== undefined && pre.uid !== live.metadata?.uid) ||
        (pre.resourceVersion !== undefined && pre.resourceVersion !== live.metadata?.resourceVersion)
      ) {
        throw new KubeApiError({
          status: 409,
          reason: KubeReason.Conflict,
          message: `precondition failed for ${resource.plural} ${key.name}`,
        });
      }
      if (options.dryRun) return;
      // As the API server does: an object with finalizers is only marked; it goes once they are removed.
      if ((live.metadata?.finalizers?.length ?? 0) > 0) {
        if (live.metadata?.deletionTimestamp == null)
          this.commit(
            resource,
            this.stamp(resource, { ...live, metadata: { ...live.metadata, deletionTimestamp: this.deletionTime } }, live),
            false,
          );
        return;
      }
      this.bucket(resource).delete(keyOf(resource, key));
    }) as Promise<void>;
  }

  private async run(action: Action, own: () => Promise<unknown>): Promise<unknown> {
    this.actions.push(action);
    const interceptor = this.interceptors[action.verb];
    return interceptor === undefined ? own() : interceptor(action, own);
  }

  private target(resource: ResourceDescriptor, key: ObjectKey): { resource: string; namespace?: string; name: string } {
    return { resource: resource.plural, ...(resource.namespaced ? { namespace: key.namespace } : {}), name: key.name };
  }

  private bucket(resource: ResourceDescriptor): Map<string, KubeObject> {
    const id = `${apiVersionOf(resource)}/${resource.plural}`;
    let b = this.objects.get(id);
    if (b === undefined) this.objects.set(id, (b = new Map<string, KubeObject>()));
    return b;
  }

  private mustGet(resource: ResourceDescriptor, key: ObjectKey): Promise<KubeObject> {
    const obj = this.peek(resource, key);
    if (obj === undefined) {
      return Promise.reject(
        new KubeApiError({ status: 404, reason: KubeReason.NotFound, message: `${resource.plural} "${key.name}" not found` }),
      );
    }
    return Promise.resolve(obj);
  }

  /** Fills in type, uid, a new resourceVersion, and generation (bumped when anything but metadata/status changed). */
  private stamp(resource: ResourceDescriptor, obj: KubeObject, live: KubeObject | undefined): KubeObject {
    const meta = { ...obj.metadata };
    meta.uid = live?.metadata?.uid ?? meta.uid ?? `uid-${this.counter + 1}`;
    meta.resourceVersion = String(++this.counter);
    const liveGen = live?.metadata?.generation ?? 0;
    meta.generation = live === undefined ? (meta.generation ?? 1) : liveGen + (sameSpec(live, obj) ? 0 : 1);
    if (!resource.namespaced) delete meta.namespace;
    return { ...obj, apiVersion: apiVersionOf(resource), kind: resource.kind, metadata: meta };
  }

  private commit(resource: ResourceDescriptor, obj: KubeObject, dryRun: boolean | undefined): KubeObject {
    if (dryRun) return obj;
    // A marked object whose last finalizer is removed is gone.
    if (obj.metadata?.deletionTimestamp != null && (obj.metadata.finalizers?.length ?? 0) === 0)
      this.bucket(resource).delete(objectKey(obj));
    else this.bucket(resource).set(objectKey(obj), structuredClone(obj));
    return obj;
  }
}

function metaKey(obj: KubeObject): ObjectKey {
  return { namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? "" };
}

function keyOf(resource: ResourceDescriptor, key: ObjectKey): string {
  return resource.namespaced && key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

function checkVersion(live: KubeObject, obj: KubeObject): void {
  const want = obj.metadata?.resourceVersion;
  if (want !== undefined && want !== live.metadata?.resourceVersion) {
    throw new KubeApiError({
      status: 409,
      reason: KubeReason.Conflict,
      statusReason: "Conflict",
      message: `Operation cannot be fulfilled on ${obj.metadata?.name ?? ""}: the object has been modified; please apply your changes to the latest version and try again`,
    });
  }
}

/** A merge patch that names a resourceVersion is fenced by it, as the apiserver fences it. */
function checkPatchVersion(live: KubeObject, patch: Patch): void {
  if (patch.type !== "merge") return;
  const metadata = (patch.body as { metadata?: { resourceVersion?: unknown } }).metadata;
  if (typeof metadata?.resourceVersion === "string")
    checkVersion(live, { ...live, metadata: { ...live.metadata, resourceVersion: metadata.resourceVersion } });
}

function sameSpec(a: KubeObject, b: KubeObject): boolean {
  const strip = ({ metadata: _m, status: _s, ...rest }: KubeObject): string => JSON.stringify(rest);
  return strip(a) === strip(b);
}

function patchObject(live: KubeObject, patch: Patch): KubeObject {
  try {
    const result = patch.type === "json" ? applyJsonPatch(live, patch.ops) : applyMergePatch(live, patch.body);
    return result as KubeObject;
  } catch (err) {
    if (err instanceof JsonPatchError) throw invalid(err.message);
    throw err;
  }
}

function invalid(message: string): KubeApiError {
  return new KubeApiError({ status: 422, reason: KubeReason.Invalid, message });
}

function alreadyExists(resource: ResourceDescriptor, name: string): KubeApiError {
  return new KubeApiError({
    status: 409,
    reason: KubeReason.AlreadyExists,
    statusReason: "AlreadyExists",
    message: `${resource.plural} "${name}" already exists`,
  });
}
