/**
 * Comparison (docs/sync-engine.md#comparison-and-status): desired objects against live ones →
 * per-resource sync status and health, the Application's sync status and aggregated health, and
 * which resources are modified (for ApplyOutOfSyncOnly). Pure.
 *
 * A live object is in sync when every field the desired object sets has the same value live
 * (objects compared key by key, arrays element by element with equal length), ignoring `status`
 * and metadata other than labels and annotations. Fields the apiserver or controllers add are
 * therefore never a difference, which is what server-side apply makes true for fields we own.
 */
import type { ResourceCustomizations } from "./customizations/index.js";
import { Annotation, CompareOption, HealthStatus, SyncStatus, type ResourceIgnoreDifferences, type ResourceStatus } from "../api/index.js";
import type { KubeObject } from "../kube/index.js";
import { aggregateHealth, resourceHealth, type AggregateInput } from "./health/index.js";
import { isHook } from "./hooks.js";
import { annotation, groupOf, resourceKeyOf, keyString, versionOf } from "./objects.js";
import { parseCsv } from "./hooks.js";
import { withoutIgnored } from "./ignore-differences.js";
import { isSubset } from "./subset.js";
import { objectWave } from "./waves.js";
import type { HealthResult } from "./types.js";

/**
 * A Secret's `stringData` as the apiserver stores it: base64 in `data` (its keys win), as Argo CD's
 * diff normalises it.
 */
function withStringDataEncoded(obj: KubeObject): KubeObject {
  const stringData = obj["stringData"];
  if (obj.kind !== "Secret" || groupOf(obj) !== "" || stringData === null || typeof stringData !== "object") return obj;
  const { stringData: _s, ...rest } = obj;
  const encoded = Object.fromEntries(Object.entries(stringData).map(([k, v]) => [k, Buffer.from(String(v), "utf8").toString("base64")]));
  return { ...rest, data: { ...(obj["data"] ?? {}), ...encoded } };
}

/** The parts of an object that are compared: all but `status`, and of metadata the labels and annotations. */
export function comparable(obj: KubeObject): Record<string, unknown> {
  const { metadata, status: _status, ...rest } = withStringDataEncoded(obj);
  return { ...rest, metadata: { labels: metadata?.labels ?? {}, annotations: metadata?.annotations ?? {} } };
}

/** True when the live object matches the desired one. */
export function inSync(desired: KubeObject, live: KubeObject | undefined): boolean {
  if (live === undefined) return false;
  const d = comparable(desired);
  const dm = d.metadata as { labels: object; annotations: object };
  const l = comparable(live);
  const lm = l.metadata as { labels: object; annotations: object };
  return (
    isSubset({ ...d, metadata: undefined }, { ...l, metadata: undefined }) &&
    isSubset(dm.labels, lm.labels) &&
    isSubset(dm.annotations, lm.annotations)
  );
}

/** The result of comparing an Application. */
export interface Comparison {
  readonly sync: SyncStatus;
  readonly health: HealthResult;
  /** `status.resources[]`, in a stable order. */
  readonly resources: ResourceStatus[];
  /** keyString → false when the live object already matches (ApplyOutOfSyncOnly may skip it). */
  readonly modified: ReadonlyMap<string, boolean>;
}

interface Entry {
  readonly obj: KubeObject;
  readonly live?: KubeObject;
  /** Undefined for live hooks and `hook: Skip` targets: they carry no sync status or health. */
  readonly status?: SyncStatus;
  readonly requiresPruning: boolean;
  readonly hook?: boolean;
  /** The wave shown, when it is not the object's own (a live hook shows its Git manifest's). */
  readonly wave?: number;
}

function toStatus(e: Entry, health: HealthResult | undefined): ResourceStatus {
  const k = resourceKeyOf(e.obj);
  const out: ResourceStatus = {
    group: k.group,
    version: versionOf(e.obj),
    kind: k.kind,
    namespace: k.namespace,
    name: k.name,
    ...(e.status !== undefined ? { status: e.status } : {}),
  };
  if (health !== undefined) out.health = { status: health.status, ...(health.message ? { message: health.message } : {}) };
  if (e.hook === true) out.hook = true;
  if (e.requiresPruning) out.requiresPruning = true;
  const wave = e.wave ?? objectWave(e.obj);
  if (wave !== 0) out.syncWave = wave;
  return out;
}

function ignoresExtraneous(obj: KubeObject): boolean {
  return parseCsv(annotation(obj, Annotation.CompareOptions)).includes(CompareOption.IgnoreExtraneous);
}

/** Options of {@link compare}. */
export interface CompareOptions {
  /** The rules of fields left out: `spec.ignoreDifferences` and the system-level ones of `argocd-cm`. */
  readonly ignoreDifferences?: readonly ResourceIgnoreDifferences[] | undefined;
  /** The customizations of `argocd-cm` (custom health checks). */
  readonly customizations?: ResourceCustomizations | undefined;
}

/**
 * Compares prepared sync targets (non-hooks are compared) with the live objects tracked as the
 * Application's. Live objects no target claims are OutOfSync and require pruning; with compare
 * option IgnoreExtraneous they do not make the Application OutOfSync. Live hooks and `hook: Skip`
 * targets (`skipped`) are listed without a sync status or health and count for neither; a live
 * hook shows the wave of the hook of the same name in `targets`.
 */
export function compare(
  targets: readonly KubeObject[],
  live: readonly KubeObject[],
  skipped: readonly KubeObject[] = [],
  options: CompareOptions = {},
): Comparison {
  const entries = pairEntries(targets, live, skipped, options.ignoreDifferences ?? []);
  const healthInputs: AggregateInput[] = [];
  const resources: ResourceStatus[] = [];
  const modified = new Map<string, boolean>();
  for (const e of entries) {
    if (e.status === undefined) {
      resources.push(toStatus(e, undefined));
      continue;
    }
    const health = e.live === undefined ? { status: HealthStatus.Missing } : resourceHealth(e.live, { custom: options.customizations });
    // A live object that ignores health checks shows no health (a missing one shows Missing).
    const ignored = e.live !== undefined && annotation(e.live, Annotation.IgnoreHealthcheck) === "true";
    resources.push(toStatus(e, ignored ? undefined : health));
    modified.set(keyString(resourceKeyOf(e.obj)), e.status !== SyncStatus.Synced);
    healthInputs.push({ key: resourceKeyOf(e.obj), health, live: e.live !== undefined, ignored, childApp: e.obj.kind === "Application" });
  }
  const outOfSync = entries.some(
    (e) => e.status !== undefined && e.status !== SyncStatus.Synced && !(e.requiresPruning && ignoresExtraneous(e.obj)),
  );
  return { sync: outOfSync ? SyncStatus.OutOfSync : SyncStatus.Synced, health: aggregateHealth(healthInputs), resources, modified };
}

/** Pairs targets, Skip targets and live objects into entries, sorted by key. */
function pairEntries(
  targets: readonly KubeObject[],
  live: readonly KubeObject[],
  skipped: readonly KubeObject[],
  rules: readonly ResourceIgnoreDifferences[],
): Entry[] {
  const matches = (t: KubeObject, l: KubeObject | undefined): boolean =>
    l !== undefined && inSync(withoutIgnored(t, rules, l), withoutIgnored(l, rules, l));
  const liveByKey = new Map(live.map((o) => [keyString(resourceKeyOf(o)), o]));
  const hookWaves = new Map(targets.filter(isHook).map((o) => [keyString(resourceKeyOf(o)), objectWave(o)]));
  const entries: Entry[] = [];
  const claimed = new Set<string>();
  for (const t of targets.filter((o) => !isHook(o))) {
    const key = keyString(resourceKeyOf(t));
    claimed.add(key);
    const l = liveByKey.get(key);
    entries.push({ obj: t, live: l, status: matches(t, l) ? SyncStatus.Synced : SyncStatus.OutOfSync, requiresPruning: false });
  }
  for (const t of skipped) {
    const key = keyString(resourceKeyOf(t));
    if (claimed.has(key)) continue;
    claimed.add(key);
    entries.push({ obj: t, live: liveByKey.get(key), requiresPruning: false });
  }
  for (const l of live) {
    const key = keyString(resourceKeyOf(l));
    if (claimed.has(key)) continue;
    if (isHook(l)) entries.push({ obj: l, live: l, requiresPruning: true, hook: true, wave: hookWaves.get(key) ?? 0 });
    else entries.push({ obj: l, live: l, status: SyncStatus.OutOfSync, requiresPruning: true });
  }
  return entries.sort((a, b) => keyString(resourceKeyOf(a.obj)).localeCompare(keyString(resourceKeyOf(b.obj))));
}
