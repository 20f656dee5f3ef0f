/**
 * Reading the live side of an Application: each candidate object (the desired ones, the resources
 * the last comparison recorded, the objects of the current operation's results) is read fresh from
 * the apiserver — never from a cache — so health is never judged on a stale copy. Kinds are
 * resolved through discovery; an unknown kind reads as absent.
 */
import pLimit from "p-limit";
import type { ResourceResult, ResourceStatus } from "../api/index.js";
import { isNotFound, type KubeClient, type KubeObject, type ResourceDescriptor } from "../kube/index.js";
import { keyOf, keyString } from "./objects.js";

/** How to reach the cluster. */
export interface LiveDeps {
  readonly client: KubeClient;
  readonly resolve: (obj: KubeObject) => Promise<ResourceDescriptor>;
  /** Concurrent reads (default 16). */
  readonly concurrency?: number;
}

/** An object identity with its apiVersion, enough to read it. */
export interface Candidate {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

/** Candidates from recorded resources (status.resources or syncResult.resources). */
export function candidatesFrom(entries: readonly (ResourceStatus | ResourceResult)[]): Candidate[] {
  return entries
    .filter((e) => e.kind && e.name && e.version)
    .map((e) => ({
      apiVersion: e.group ? `${e.group}/${e.version ?? ""}` : (e.version ?? ""),
      kind: e.kind ?? "",
      name: e.name ?? "",
      ...(e.namespace ? { namespace: e.namespace } : {}),
    }));
}

/** A candidate for a desired object. */
export function candidateOf(obj: KubeObject): Candidate {
  return {
    apiVersion: obj.apiVersion ?? "",
    kind: obj.kind ?? "",
    name: obj.metadata?.name ?? "",
    ...(obj.metadata?.namespace ? { namespace: obj.metadata.namespace } : {}),
  };
}

function asObject(c: Candidate): KubeObject {
  return { apiVersion: c.apiVersion, kind: c.kind, metadata: { name: c.name, ...(c.namespace ? { namespace: c.namespace } : {}) } };
}

/** Reads every distinct candidate; absent objects and unknown kinds are left out. */
export async function readLive(deps: LiveDeps, candidates: readonly Candidate[]): Promise<KubeObject[]> {
  const seen = new Map<string, Candidate>();
  for (const c of candidates) {
    if (c.name !== "") seen.set(keyString(keyOf(asObject(c))), c);
  }
  const limit = pLimit(deps.concurrency ?? 16);
  const found = await Promise.all(
    [...seen.values()].map((c) =>
      limit(async () => {
        let resource: ResourceDescriptor;
        try {
          resource = await deps.resolve(asObject(c));
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
        try {
          return await deps.client.get<KubeObject>(resource, { name: c.name, ...(resource.namespaced && c.namespace ? { namespace: c.namespace } : {}) });
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      }),
    ),
  );
  return found.filter((o): o is KubeObject => o !== undefined);
}
