/**
 * Reading the live side of an Application: each candidate object (the desired ones, the resources
 * the last comparison recorded, the objects of the current operation's results) is read fresh from
 * the apiserver — never from a cache — so health is never judged on a stale copy. Kinds are
 * resolved through discovery; an unknown kind reads as absent.
 */
import pLimit from "p-limit";
import type { ResourceResult, ResourceStatus } from "../api/index.js";
import { isForbidden, isNotFound, type KubeClient, type KubeObject, type ResourceDescriptor } from "../kube/index.js";
import { resourceKeyOf, keyString } from "./objects.js";

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

/** A candidate as the object it names (no fields but its identity). */
export function candidateObject(c: Candidate): KubeObject {
  return { apiVersion: c.apiVersion, kind: c.kind, metadata: { name: c.name, ...(c.namespace ? { namespace: c.namespace } : {}) } };
}

/**
 * Candidates of one namespaced resource in one namespace at or above this count are read with one
 * LIST (a fresh, quorum read like a GET) instead of one GET each.
 */
export const LIST_THRESHOLD = 4;

type Resolved = { readonly candidate: Candidate; readonly resource: ResourceDescriptor };

async function resolveAll(deps: LiveDeps, candidates: readonly Candidate[]): Promise<Resolved[]> {
  const limit = pLimit(deps.concurrency ?? 16);
  const resolved = await Promise.all(
    candidates.map((c) =>
      limit(async () => {
        try {
          return { candidate: c, resource: await deps.resolve(candidateObject(c)) };
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      }),
    ),
  );
  return resolved.filter((r): r is Resolved => r !== undefined);
}

async function getOne(deps: LiveDeps, { candidate: c, resource }: Resolved): Promise<KubeObject | undefined> {
  try {
    return await deps.client.get<KubeObject>(resource, {
      name: c.name,
      ...(resource.namespaced && c.namespace ? { namespace: c.namespace } : {}),
    });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** One LIST for a group of candidates of one resource and namespace; undefined when it is not allowed. */
async function listGroup(deps: LiveDeps, group: readonly Resolved[]): Promise<KubeObject[] | undefined> {
  const first = group[0]!;
  try {
    const list = await deps.client.list<KubeObject>(first.resource, { namespace: first.candidate.namespace ?? "" });
    const wanted = new Set(group.map((r) => r.candidate.name));
    return list.items.filter((o) => wanted.has(o.metadata?.name ?? ""));
  } catch (err) {
    if (isForbidden(err) || isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * Reads every distinct candidate; absent objects and unknown kinds are left out. Namespaced
 * candidates sharing a resource and namespace are read with one LIST when there are at least
 * {@link LIST_THRESHOLD} of them (GETs when the LIST is forbidden), the rest with GETs.
 */
export async function readLive(deps: LiveDeps, candidates: readonly Candidate[]): Promise<KubeObject[]> {
  const seen = new Map<string, Candidate>();
  for (const c of candidates) {
    if (c.name !== "") seen.set(keyString(resourceKeyOf(candidateObject(c))), c);
  }
  const groups = new Map<string, Resolved[]>();
  for (const r of await resolveAll(deps, [...seen.values()])) {
    const { group, version, plural } = r.resource;
    const key =
      r.resource.namespaced && r.candidate.namespace ? `${group}/${version}/${plural}/${r.candidate.namespace}` : `single/${groups.size}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const limit = pLimit(deps.concurrency ?? 16);
  const gets = (group: readonly Resolved[]): Promise<Array<KubeObject | undefined>> =>
    Promise.all(group.map((r) => limit(() => getOne(deps, r))));
  const found = await Promise.all(
    [...groups.values()].map(async (group) => {
      const listed = group.length >= LIST_THRESHOLD ? await limit(() => listGroup(deps, group)) : undefined;
      return listed ?? (await gets(group));
    }),
  );
  return found.flat().filter((o): o is KubeObject => o !== undefined);
}
