/**
 * Discovery: maps an object's apiVersion and kind to the {@link ResourceDescriptor} needed to
 * address it, from the apiserver's per-group-version resource lists. Lists are cached per
 * group-version; a kind missing from a cached list triggers one refetch (a CRD may have been
 * installed since), and {@link Discovery.invalidate} drops the cache.
 */
import { isNotFound, KubeApiError, KubeReason } from "./errors.js";
import type { ResourceDescriptor } from "./ports.js";

/** Anything that can GET a JSON document by path (the transport, or a test double). */
export interface JsonGetter {
  request(req: { method: "GET"; path: string }): Promise<unknown>;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** Resolves kinds to resources, caching the apiserver's answers. */
export class Discovery {
  private readonly cache = new Map<string, Promise<Map<string, ResourceDescriptor>>>();

  constructor(private readonly http: JsonGetter) {}

  /** The descriptor of `kind` in `apiVersion`; fails with NotFound when the apiserver serves no such kind. */
  async resourceFor(apiVersion: string, kind: string): Promise<ResourceDescriptor> {
    const cached = this.cache.get(apiVersion);
    if (cached !== undefined) {
      const hit = (await cached.catch(() => undefined))?.get(kind);
      if (hit !== undefined) return hit;
      this.cache.delete(apiVersion);
    }
    const fresh = this.fetch(apiVersion);
    this.cache.set(apiVersion, fresh);
    let found: ResourceDescriptor | undefined;
    try {
      found = (await fresh).get(kind);
    } catch (err) {
      this.cache.delete(apiVersion);
      if (!isNotFound(err)) throw err;
      // client-go's words, as Argo CD reports them.
      const message = `failed to discover server resources for group version ${apiVersion}: the server could not find the requested resource`;
      throw new KubeApiError({ status: 404, reason: KubeReason.NotFound, message, cause: err });
    }
    if (found === undefined) {
      // A NotFound of the (group, kind) "resource", as Argo CD's lookup reports a kind its group-version lacks.
      const { group } = splitApiVersion(apiVersion);
      const qualified = group === "" ? kind : `${kind}.${group}`;
      throw new KubeApiError({ status: 404, reason: KubeReason.NotFound, message: `${qualified} "" not found` });
    }
    return found;
  }

  /** Forgets every cached group-version (or just one). */
  invalidate(apiVersion?: string): void {
    if (apiVersion === undefined) this.cache.clear();
    else this.cache.delete(apiVersion);
  }

  private async fetch(apiVersion: string): Promise<Map<string, ResourceDescriptor>> {
    const { group, version } = splitApiVersion(apiVersion);
    const path = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
    const body = (await this.http.request({ method: "GET", path })) as { resources?: ApiResource[] } | undefined;
    return descriptorsFrom(group, version, body?.resources ?? []);
  }
}

/** `group/version` (or a core `version`) split in two. */
function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The descriptors of a resource list, keyed by kind; subresources ("pods/status") are skipped. */
export function descriptorsFrom(group: string, version: string, resources: readonly ApiResource[]): Map<string, ResourceDescriptor> {
  const byKind = new Map<string, ResourceDescriptor>();
  for (const r of resources) {
    if (r.name.includes("/") || byKind.has(r.kind)) continue;
    byKind.set(r.kind, { group, version, plural: r.name, kind: r.kind, namespaced: r.namespaced });
  }
  return byKind;
}
