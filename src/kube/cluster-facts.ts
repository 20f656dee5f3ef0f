/**
 * What a cluster tells a manifest renderer about itself, as Argo CD's controller passes it to the
 * repo server: the server's version (`gitVersion`, e.g. `v1.36.3`) and its API versions, each
 * `group/version` and `group/version/Kind` it serves (core as `v1`, `v1/Pod`), sorted. Helm's
 * `.Capabilities` and `--kube-version` come from these. Read through discovery and kept for a
 * while, since they change only when an API or the server changes.
 */
import type { JsonGetter } from "./discovery.js";

/** A cluster's version and API versions. */
export interface ClusterFacts {
  readonly kubeVersion: string;
  readonly apiVersions: readonly string[];
}

interface ResourceList {
  resources?: { name: string; kind: string }[];
}

/** The API version strings of one group-version's resource list. */
export function apiVersionStrings(groupVersion: string, list: ResourceList | undefined): string[] {
  const out = [groupVersion];
  for (const r of list?.resources ?? []) if (!r.name.includes("/")) out.push(`${groupVersion}/${r.kind}`);
  return out;
}

/** Reads the facts from the apiserver. */
export async function readClusterFacts(http: JsonGetter): Promise<ClusterFacts> {
  const version = (await http.request({ method: "GET", path: "/version" })) as { gitVersion?: string } | undefined;
  const core = (await http.request({ method: "GET", path: "/api" })) as { versions?: string[] } | undefined;
  const groups = (await http.request({ method: "GET", path: "/apis" })) as
    { groups?: { versions?: { groupVersion: string }[] }[] } | undefined;
  const groupVersions = [
    ...(core?.versions ?? []),
    ...(groups?.groups ?? []).flatMap((g) => (g.versions ?? []).map((v) => v.groupVersion)),
  ];
  const lists = await Promise.all(
    groupVersions.map(async (gv) => {
      const path = gv.includes("/") ? `/apis/${gv}` : `/api/${gv}`;
      const list = (await http.request({ method: "GET", path }).catch(() => undefined)) as ResourceList | undefined;
      return apiVersionStrings(gv, list);
    }),
  );
  return { kubeVersion: version?.gitVersion ?? "", apiVersions: [...new Set(lists.flat())].sort() };
}

/** Keeps a cluster's facts for `ttlMs` (default 60 s); a failed read is not kept. */
export function cachedClusterFacts(http: JsonGetter, now: () => number = Date.now, ttlMs = 60_000): () => Promise<ClusterFacts> {
  let kept: { at: number; facts: Promise<ClusterFacts> } | undefined;
  return () => {
    if (kept !== undefined && now() - kept.at < ttlMs) return kept.facts;
    const facts = readClusterFacts(http);
    const entry = { at: now(), facts };
    kept = entry;
    facts.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return facts;
  };
}
