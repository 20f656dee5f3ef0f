/**
 * The pure side of `appset diff APP`: the sync engine's comparison of an Application shown as a
 * unified diff of each resource's YAML, live on the left and desired on the right, as
 * `argocd app diff` prints it. Both sides are normalised as the comparison normalises them: the
 * fields `ignoreDifferences` names left out, `status` and metadata other than labels and
 * annotations dropped, and of the live object only the fields the desired object sets (fields the
 * apiserver defaults are no difference). A live object no manifest claims (one a prune would
 * delete) is shown against nothing, a missing one as wholly added. Secrets are left out, as
 * `argocd app diff` leaves them out: their data would be printed.
 */
import { SyncStatus, type ResourceIgnoreDifferences } from "../api/index.js";
import type { KubeObject } from "../kube/index.js";
import { comparable, type Comparison } from "../syncwaves/compare.js";
import { withoutIgnored } from "../syncwaves/ignore-differences.js";
import { keyString, resourceKeyOf } from "../syncwaves/objects.js";
import { subsetAt } from "../syncwaves/subset.js";
import { unifiedHunks } from "./line-diff.js";

/** What the comparison read and found. */
export interface DiffInput {
  readonly targets: readonly KubeObject[];
  readonly live: readonly KubeObject[];
  readonly comparison: Comparison;
  readonly ignoreDifferences: readonly ResourceIgnoreDifferences[];
}

/** One differing resource: `GROUP/KIND NAMESPACE/NAME` and the hunks of its diff. */
export interface ResourceDiff {
  readonly resource: string;
  readonly hunks: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The live value as the comparison sees it against `desired`: the desired value where they match,
 * else, of an object, the keys `desired` sets that are there live; of an array of the same length,
 * each element so; otherwise the live value itself.
 */
export function projectLive(desired: unknown, live: unknown, path: readonly string[] = []): unknown {
  if (subsetAt(desired, live, path)) return desired;
  if (isRecord(desired) && isRecord(live)) {
    const keys = Object.keys(desired).filter((k) => live[k] !== undefined && live[k] !== null);
    return Object.fromEntries(keys.map((k) => [k, projectLive(desired[k], live[k], [...path, k])]));
  }
  if (Array.isArray(desired) && Array.isArray(live) && desired.length === live.length)
    return live.map((l, i) => projectLive(desired[i], l, [...path, String(i)]));
  return live;
}

/** The object's identity, then the compared parts, as YAML is printed. */
function shown(obj: KubeObject, parts: Record<string, unknown>): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata, ...rest } = parts;
  const meta = (metadata ?? {}) as { labels?: object; annotations?: object };
  const name = obj.metadata?.name;
  const namespace = obj.metadata?.namespace;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      ...(meta.labels !== undefined && Object.keys(meta.labels).length > 0 ? { labels: meta.labels } : {}),
      ...(meta.annotations !== undefined && Object.keys(meta.annotations).length > 0 ? { annotations: meta.annotations } : {}),
    },
    ...rest,
  };
}

/** The normalised live and desired sides of one resource, `undefined` where it has none. */
export function normalisedPair(
  target: KubeObject | undefined,
  live: KubeObject | undefined,
  rules: readonly ResourceIgnoreDifferences[],
): { live?: Record<string, unknown>; desired?: Record<string, unknown> } {
  if (target === undefined) return live === undefined ? {} : { live: shown(live, comparable(live)) };
  const desired = shown(target, comparable(withoutIgnored(target, rules, live)));
  if (live === undefined) return { desired };
  const projected = projectLive(desired, shown(live, comparable(withoutIgnored(live, rules, live))));
  return { live: projected as Record<string, unknown>, desired };
}

/** `GROUP/KIND NAMESPACE/NAME` as Argo CD's diff heads a resource. */
function resourceName(obj: KubeObject): string {
  const k = resourceKeyOf(obj);
  return `${k.group}/${k.kind} ${k.namespace}/${k.name}`;
}

/**
 * The diffs of the resources the comparison found OutOfSync (hooks have no sync status and are not
 * shown), in its order; `toYaml` prints one side (an absent side is empty).
 */
export function resourceDiffs(input: DiffInput, toYaml: (v: unknown) => string): ResourceDiff[] {
  const byKey = (objs: readonly KubeObject[]): Map<string, KubeObject> => new Map(objs.map((o) => [keyString(resourceKeyOf(o)), o]));
  const targets = byKey(input.targets);
  const live = byKey(input.live);
  const out: ResourceDiff[] = [];
  for (const r of input.comparison.resources) {
    if (r.status !== SyncStatus.OutOfSync || (r.group === "" && r.kind === "Secret")) continue;
    const key = keyString({ group: r.group ?? "", kind: r.kind ?? "", namespace: r.namespace ?? "", name: r.name ?? "" });
    const [t, l] = [targets.get(key), live.get(key)];
    const obj = t ?? l;
    if (obj === undefined) continue;
    const pair = normalisedPair(t, l, input.ignoreDifferences);
    const text = (v: unknown): string => (v === undefined ? "" : toYaml(v));
    const hunks = unifiedHunks(text(pair.live), text(pair.desired));
    if (hunks !== "") out.push({ resource: resourceName(obj), hunks });
  }
  return out;
}

/** The diffs printed: each resource headed as `argocd app diff` heads it, then `--- live`, `+++ desired` and its hunks. */
export function formatDiffs(diffs: readonly ResourceDiff[]): string {
  return diffs.map((d) => `\n===== ${d.resource} ======\n--- live\n+++ desired\n${d.hunks}`).join("");
}
