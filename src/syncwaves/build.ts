/**
 * Building the task list of a sync (gitops-engine `getSyncTasks`;
 * docs/sync-engine.md#order-of-the-objects, docs/sync-engine.md#hooks): one task per target (one
 * per phase for hooks), a prune task per live object no target claims, hook names and finalizers,
 * namespace enrichment, resource tracking, selective sync, prune mirroring, PruneLast and the final
 * order. Pure.
 */
import {
  Annotation,
  Finalizer,
  SyncPhase,
  type ManagedNamespaceMetadata,
  type ResourceIgnoreDifferences,
  type SyncOperationResource,
} from "../api/index.js";
import type { KubeObject } from "../kube/index.js";
import { respectIgnored } from "./ignore-differences.js";
import { hookName, hookPhases, isDeletionOnlyHook, isGarbageHook, isHook, isSkip } from "./hooks.js";
import { annotation, groupOf, isCrd, resourceKeyOf, keyString } from "./objects.js";
import { OptionKey, optionIs } from "./options.js";
import { sortTasks } from "./order.js";
import type { SyncTask } from "./types.js";
import { applyPruneLast, isPrune, mirrorPruneWaves } from "./waves.js";

/** Everything {@link buildTasks} needs. */
export interface BuildInput {
  /** The desired manifests, as read from the source. */
  readonly targets: readonly KubeObject[];
  /** Live objects: those tracked as the Application's, and any found at a target's identity. */
  readonly live: readonly KubeObject[];
  /** The tracking name of the Application (the value written into tracking ids). */
  readonly appName: string;
  readonly destinationNamespace: string;
  /** The resolved revision (names generated hooks). */
  readonly revision: string;
  /** The operation's start, in ms (names generated hooks). */
  readonly startedAtMs: number;
  /** Selective sync, apply strategy, self-heal: hooks are not run. */
  readonly skipHooks: boolean;
  /** Application-level sync options of the operation. */
  readonly appOptions: readonly string[];
  /** A selective sync's resources; empty or absent means all. */
  readonly selected?: readonly SyncOperationResource[];
  /** Scope of a kind: false for cluster-scoped; undefined (unknown) counts as namespaced. */
  readonly isNamespaced?: (obj: KubeObject) => boolean | undefined;
  /** True when the destination namespace already exists (for CreateNamespace=true). */
  readonly namespaceExists?: boolean;
  readonly managedNamespaceMetadata?: ManagedNamespaceMetadata | undefined;
  /** `spec.ignoreDifferences`: with `RespectIgnoreDifferences=true`, ignored fields keep their live values. */
  readonly ignoreDifferences?: readonly ResourceIgnoreDifferences[] | undefined;
}

/** `<app>:<group>/<kind>:<namespace>/<name>`: the annotation that marks an object as the Application's. */
export function trackingId(appName: string, obj: KubeObject): string {
  const k = resourceKeyOf(obj);
  return `${appName}:${k.group}/${k.kind}:${k.namespace}/${k.name}`;
}

/** True when the object's tracking annotation names this Application and the object's own identity. */
export function isTrackedBy(obj: KubeObject, appName: string): boolean {
  return annotation(obj, Annotation.TrackingId) === trackingId(appName, obj);
}

/** True when a desired object takes part in a sync at all (not Skip, not a garbage or deletion-only hook). */
export function isSyncTarget(obj: KubeObject): boolean {
  return !isSkip(obj) && !isGarbageHook(obj) && !isDeletionOnlyHook(obj);
}

/**
 * A copy of a target with the destination namespace filled in (namespaced kinds only) and tracking
 * set. A CustomResourceDefinition gets no tracking, as in Argo CD: it belongs to the Application only
 * while its manifests hold it, so removing it from Git, or deleting the Application, never deletes
 * it (and every custom resource of its kind with it).
 */
export function prepareTarget(obj: KubeObject, input: Pick<BuildInput, "appName" | "destinationNamespace" | "isNamespaced">): KubeObject {
  const copy = structuredClone(obj);
  const meta = (copy.metadata ??= {});
  if (!meta.namespace && input.isNamespaced?.(copy) !== false && input.destinationNamespace !== "") {
    meta.namespace = input.destinationNamespace;
  }
  if (meta.name && !isCrd(copy)) meta.annotations = { ...meta.annotations, [Annotation.TrackingId]: trackingId(input.appName, copy) };
  return copy;
}

/** The hook copy of a target for one phase: generated name (when needed) and the hook finalizer. */
function hookTarget(obj: KubeObject, phase: SyncPhase, input: BuildInput): KubeObject {
  const copy = structuredClone(obj);
  const meta = (copy.metadata ??= {});
  const name = hookName(copy, { revision: input.revision, phase, startedAtMs: input.startedAtMs });
  if (name !== undefined) meta.name = name;
  const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
  if (!finalizers.includes(Finalizer.Hook)) meta.finalizers = [...finalizers, Finalizer.Hook];
  return prepareTarget(copy, input);
}

function targetTasks(input: BuildInput, liveByKey: ReadonlyMap<string, KubeObject>): SyncTask[] {
  const tasks: SyncTask[] = [];
  const respects = optionIs(input.appOptions, OptionKey.RespectIgnoreDifferences, "true");
  for (const raw of input.targets.filter(isSyncTarget)) {
    if (!isHook(raw)) {
      const prepared = prepareTarget(raw, input);
      const live = liveByKey.get(keyString(resourceKeyOf(prepared)));
      const target = respects ? respectIgnored(prepared, live, input.ignoreDifferences ?? []) : prepared;
      tasks.push({ phase: SyncPhase.Sync, target, live, hook: false, state: {} });
      continue;
    }
    if (input.skipHooks) continue;
    for (const phase of hookPhases(raw)) {
      const target = hookTarget(raw, phase, input);
      tasks.push({ phase, target, live: liveByKey.get(keyString(resourceKeyOf(target))), hook: true, state: {} });
    }
  }
  return tasks;
}

/** The PreSync Namespace task of CreateNamespace=true, when one is needed. */
function namespaceTask(input: BuildInput, tasks: readonly SyncTask[]): SyncTask | undefined {
  const ns = input.destinationNamespace;
  if (ns === "" || !optionIs(input.appOptions, OptionKey.CreateNamespace, "true")) return undefined;
  if (tasks.some((t) => t.target?.kind === "Namespace" && groupOf(t.target) === "" && t.target.metadata?.name === ns)) return undefined;
  const meta = input.managedNamespaceMetadata;
  if (input.namespaceExists === true && meta === undefined) return undefined;
  const target: KubeObject = {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name: ns,
      ...(meta?.labels ? { labels: { ...meta.labels } } : {}),
      ...(meta ? { annotations: { ...meta.annotations, [Annotation.SyncOptions]: "ServerSideApply=true" } } : {}),
    },
  };
  return { phase: SyncPhase.PreSync, target, hook: false, state: {} };
}

/** True when a selective sync names the task's object; an entry without a namespace names it in any namespace (as Argo CD matches). */
function isSelected(task: SyncTask, selected: readonly SyncOperationResource[]): boolean {
  const k = resourceKeyOf(task.target ?? task.live ?? {});
  return selected.some(
    (s) => (s.group ?? "") === k.group && s.kind === k.kind && s.name === k.name && (!s.namespace || s.namespace === k.namespace),
  );
}

/**
 * Builds the sorted task list of a sync. Prune tasks come from live objects no target claims;
 * live hooks, Skip objects and garbage hooks are never pruned.
 */
export function buildTasks(input: BuildInput): SyncTask[] {
  const liveByKey = new Map(input.live.map((o) => [keyString(resourceKeyOf(o)), o]));
  let tasks = targetTasks(input, liveByKey);
  // A `hook: Skip` target is not synced, but it still pairs with its live object, which is therefore never pruned.
  const skipped = input.targets.filter(isSkip).map((o) => prepareTarget(o, input));
  const claimed = new Set([...tasks.map((t) => t.target ?? {}), ...skipped].map((o) => keyString(resourceKeyOf(o))));
  for (const live of input.live) {
    if (claimed.has(keyString(resourceKeyOf(live))) || isHook(live) || !isSyncTarget(live)) continue;
    tasks.push({ phase: SyncPhase.Sync, live, hook: false, state: {} });
  }
  const ns = namespaceTask(input, tasks);
  if (ns !== undefined) tasks.push({ ...ns, live: liveByKey.get(keyString(resourceKeyOf(ns.target ?? {}))) });
  if (input.selected !== undefined && input.selected.length > 0) {
    const selected = input.selected;
    tasks = tasks.filter((t) => isSelected(t, selected));
  }
  tasks = mirrorPruneWaves(tasks);
  tasks = applyPruneLast(tasks, (t) => isPrune(t) && optionIs(input.appOptions, OptionKey.PruneLast, "true", t.live));
  return sortTasks(tasks);
}
