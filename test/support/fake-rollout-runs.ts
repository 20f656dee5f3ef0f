/**
 * An in-memory stand-in for the RolloutRuns of one ApplicationSet, for the unit tests of the
 * `appset rollout` commands: resourceVersions, JSON patches with their test op, one watch.
 */
import { expect } from "vitest";
import type { RolloutRun, RunRequest } from "../../src/api/rollout-run.js";
import {
  KubeApiError,
  KubeReason,
  type KubeObject,
  type ListOptions,
  type ObjectKey,
  type ObjectList,
  type Patch,
  type ResourceDescriptor,
  type WatchEvent,
  type WatchOptions,
} from "../../src/kube/index.js";
import type { RolloutClient } from "../../src/cli/rollout-cluster.js";

/** A RolloutRun of ApplicationSet guestbook in argocd. */
export const runObject = (name: string, o: { phase?: string; requests?: RunRequest[]; startedAt?: string } = {}): RolloutRun => ({
  apiVersion: "progressivesync.appset.dev/v1alpha1",
  kind: "RolloutRun",
  metadata: { name, namespace: "argocd", resourceVersion: "1", labels: { "progressivesync.appset.dev/application-set": "guestbook" } },
  spec: { applicationSet: "guestbook", ...(o.requests === undefined ? {} : { requests: o.requests }) },
  status: { phase: o.phase ?? "Running", startedAt: o.startedAt ?? "2026-01-01T00:00:00Z" },
});

/** An in-memory apiserver of RolloutRuns: JSON patches with their test op, resourceVersions, one watch. */
export class FakeRuns implements RolloutClient {
  readonly runs = new Map<string, RolloutRun>();
  private rv = 1;
  readonly patches: Patch[] = [];
  /** Runs before each patch is applied (another sender's write). */
  beforePatch: (() => void) | undefined;
  username: string | Error = "alice@example.com";
  onEvent: ((e: WatchEvent) => void) | undefined;

  add(run: RolloutRun): void {
    this.runs.set(run.metadata.name!, { ...run, metadata: { ...run.metadata, resourceVersion: String(++this.rv) } });
  }
  append(name: string, req: RunRequest): void {
    const r = this.runs.get(name)!;
    this.add({ ...r, spec: { ...r.spec, requests: [...(r.spec.requests ?? []), req] } });
  }
  get<T extends KubeObject>(_: ResourceDescriptor, key: ObjectKey): Promise<T> {
    const r = this.runs.get(key.name);
    if (r === undefined) return Promise.reject(new KubeApiError({ status: 404, reason: KubeReason.NotFound, message: "not found" }));
    return Promise.resolve(structuredClone(r) as unknown as T);
  }
  list<T extends KubeObject>(_: ResourceDescriptor, o?: ListOptions): Promise<ObjectList<T>> {
    expect(o?.labelSelector).toBe("progressivesync.appset.dev/application-set=guestbook");
    const items = [...this.runs.values()].map((r) => structuredClone(r)) as unknown as T[];
    return Promise.resolve({ items, resourceVersion: String(this.rv) });
  }
  create<T extends KubeObject>(_: ResourceDescriptor, obj: T): Promise<T> {
    if (this.username instanceof Error) return Promise.reject(this.username);
    return Promise.resolve({ ...obj, status: { userInfo: { username: this.username } } });
  }
  async patch<T extends KubeObject>(_: ResourceDescriptor, key: ObjectKey, patch: Patch): Promise<T> {
    await Promise.resolve();
    this.patches.push(patch);
    this.beforePatch?.();
    const r = this.runs.get(key.name)!;
    if (patch.type !== "json") throw new Error("not a json patch");
    const [test, add] = patch.ops;
    if (test?.op !== "test" || test.value !== r.metadata.resourceVersion) {
      throw new KubeApiError({ status: 422, reason: KubeReason.Invalid, message: "the test operation failed" });
    }
    if (add?.op !== "add") throw new Error("no add");
    const requests = add.path === "/spec/requests" ? (add.value as RunRequest[]) : [...(r.spec.requests ?? []), add.value as RunRequest];
    this.add({ ...r, spec: { ...r.spec, requests } });
    return structuredClone(this.runs.get(key.name)) as unknown as T;
  }
  watch(_: ResourceDescriptor, o: WatchOptions, onEvent: (e: WatchEvent) => void): Promise<void> {
    this.onEvent = onEvent;
    return new Promise((_resolve, reject) => o.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
  }
  emit(name: string, phase: string): void {
    const r = this.runs.get(name)!;
    this.add({ ...r, status: { ...r.status, phase } });
    this.onEvent?.({ type: "MODIFIED", object: structuredClone(this.runs.get(name)) as unknown as KubeObject });
  }
}
