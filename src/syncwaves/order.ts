/**
 * The order of a sync (docs/sync-engine.md#order-of-the-objects): phase → wave → kind rank → name,
 * then the dependency fix-ups that put a Namespace before the objects in it and a CRD before its
 * custom resources. Pure.
 *
 * Argo CD's `sort.Sort` is not stable and stops at the name; we break the remaining ties by
 * namespace, group, kind and prune-ness, so the comparator is a total order and a sync's order never
 * depends on the order manifests were read in.
 */
import type { SyncPhase } from "../api/index.js";
import type { KubeObject } from "../kube/index.js";
import { groupOf, isCrd, str } from "./objects.js";
import type { SyncTask } from "./types.js";
import { taskWave } from "./waves.js";

/** The kind order, copied by Argo CD from Helm's `kind_sorter.go`. Unlisted kinds come after all of these. */
export const KIND_ORDER: readonly string[] = [
  "Namespace",
  "NetworkPolicy",
  "ResourceQuota",
  "LimitRange",
  "PodSecurityPolicy",
  "PodDisruptionBudget",
  "ServiceAccount",
  "Secret",
  "SecretList",
  "ConfigMap",
  "StorageClass",
  "PersistentVolume",
  "PersistentVolumeClaim",
  "CustomResourceDefinition",
  "ClusterRole",
  "ClusterRoleList",
  "ClusterRoleBinding",
  "ClusterRoleBindingList",
  "Role",
  "RoleList",
  "RoleBinding",
  "RoleBindingList",
  "Service",
  "DaemonSet",
  "Pod",
  "ReplicationController",
  "ReplicaSet",
  "Deployment",
  "HorizontalPodAutoscaler",
  "StatefulSet",
  "Job",
  "CronJob",
  "IngressClass",
  "Ingress",
  "APIService",
];

const rankByKind = new Map(KIND_ORDER.map((kind, i) => [kind, i - KIND_ORDER.length]));

/** A kind's rank: Namespace −35 … APIService −1; any other kind 0. The group is ignored. */
export function kindRank(kind: string): number {
  return rankByKind.get(kind) ?? 0;
}

/** Phase order: PreSync −1, Sync 0, PostSync 1, SyncFail 2. */
export const PHASE_ORDER: Readonly<Record<SyncPhase, number>> = {
  PreSync: -1,
  Sync: 0,
  PostSync: 1,
  SyncFail: 2,
};

/** The object a task is about: its target, or for a prune task its live object. */
export function taskObject(task: SyncTask): KubeObject {
  return task.target ?? task.live ?? {};
}

/** The sort key of a task, most significant first. */
function sortKey(task: SyncTask): (string | number)[] {
  const obj = taskObject(task);
  const kind = obj.kind ?? "";
  const meta = obj.metadata ?? {};
  return [
    PHASE_ORDER[task.phase],
    taskWave(task),
    kindRank(kind),
    meta.name ?? "",
    meta.namespace ?? "",
    groupOf(obj),
    kind,
    task.target === undefined ? 1 : 0,
  ];
}

/**
 * Compares two tasks: phase, wave, kind rank, name (Argo CD's keys), then namespace, group, kind
 * and finally target-before-prune so that distinct tasks never tie.
 */
export function compareTasks(a: SyncTask, b: SyncTask): number {
  const ka = sortKey(a);
  const kb = sortKey(b);
  for (let i = 0; i < ka.length; i++) {
    const x = ka[i] ?? 0;
    const y = kb[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Recognises a dependency (returns its key) or a dependent (returns the key it depends on). */
interface DependencyRule {
  dependencyKey(obj: KubeObject): string | undefined;
  dependsOn(obj: KubeObject): string | undefined;
}

const namespaceRule: DependencyRule = {
  dependencyKey: (obj) => (obj.kind === "Namespace" && groupOf(obj) === "" ? (obj.metadata?.name ?? "") : undefined),
  dependsOn: (obj) => obj.metadata?.namespace || undefined,
};

const crdRule: DependencyRule = {
  dependencyKey: (obj) => (isCrd(obj) ? `${str(obj, "spec", "group") ?? ""}/${str(obj, "spec", "names", "kind") ?? ""}` : undefined),
  dependsOn: (obj) => `${groupOf(obj)}/${obj.kind ?? ""}`,
};

/**
 * Moves each dependency that sorts after its first dependent to just before it; the moved task
 * takes the dependent's phase and wave. Only tasks with a target take part.
 */
function adjustDependencies(tasks: SyncTask[], rule: DependencyRule): SyncTask[] {
  const out = [...tasks];
  const firstDependent = new Map<string, number>();
  for (let i = 0; i < out.length; i++) {
    const task = out[i];
    if (task?.target === undefined) continue;
    const depKey = rule.dependencyKey(task.target);
    if (depKey === undefined) {
      const needs = rule.dependsOn(task.target);
      if (needs !== undefined && !firstDependent.has(needs)) firstDependent.set(needs, i);
      continue;
    }
    const at = firstDependent.get(depKey);
    const dependent = at === undefined ? undefined : out[at];
    if (at === undefined || dependent === undefined) continue;
    out.splice(i, 1);
    out.splice(at, 0, { ...task, phase: dependent.phase, waveOverride: taskWave(dependent) });
    for (const [k, v] of firstDependent) if (v >= at) firstDependent.set(k, v + 1);
  }
  return out;
}

/** Sorts tasks with {@link compareTasks}, then applies the Namespace and CRD dependency fix-ups. */
export function sortTasks(tasks: readonly SyncTask[]): SyncTask[] {
  const sorted = [...tasks].sort(compareTasks);
  return adjustDependencies(adjustDependencies(sorted, namespaceRule), crdRule);
}
