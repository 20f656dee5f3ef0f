/**
 * Builders of Kubernetes objects and sync tasks for the sync engine's unit tests.
 */
import type { AppProject, Application } from "../../../src/api/index.js";
import type { KubeObject } from "../../../src/kube/index.js";
import type { SyncTask, TaskState } from "../../../src/syncwaves/types.js";

/** Options of {@link obj}. */
export interface ObjOptions {
  apiVersion?: string;
  namespace?: string;
  annotations?: Record<string, string>;
  generateName?: string;
  finalizers?: string[];
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  generation?: number;
  deletionTimestamp?: string;
}

const DEFAULT_API_VERSION: Record<string, string> = {
  Deployment: "apps/v1",
  StatefulSet: "apps/v1",
  DaemonSet: "apps/v1",
  ReplicaSet: "apps/v1",
  Job: "batch/v1",
  CronJob: "batch/v1",
  CustomResourceDefinition: "apiextensions.k8s.io/v1",
  Ingress: "networking.k8s.io/v1",
  ClusterRole: "rbac.authorization.k8s.io/v1",
};

/** A plain object of `kind` named `name`. */
export function obj(kind: string, name: string, o: ObjOptions = {}): KubeObject {
  const metadata: Record<string, unknown> = {};
  if (name !== "") metadata.name = name;
  if (o.generateName !== undefined) metadata.generateName = o.generateName;
  if (o.namespace !== undefined) metadata.namespace = o.namespace;
  if (o.annotations !== undefined) metadata.annotations = o.annotations;
  if (o.finalizers !== undefined) metadata.finalizers = o.finalizers;
  if (o.generation !== undefined) metadata.generation = o.generation;
  if (o.deletionTimestamp !== undefined) metadata.deletionTimestamp = o.deletionTimestamp;
  const out: KubeObject = { apiVersion: o.apiVersion ?? DEFAULT_API_VERSION[kind] ?? "v1", kind, metadata };
  if (o.spec !== undefined) out.spec = o.spec;
  if (o.status !== undefined) out.status = o.status;
  return out;
}

/** Annotations of a wave. */
export function wave(n: number): Record<string, string> {
  return { "argocd.argoproj.io/sync-wave": String(n) };
}

/** Options of {@link task}. */
export interface TaskOptions {
  phase?: SyncTask["phase"];
  prune?: boolean;
  hook?: boolean;
  waveOverride?: number;
  state?: TaskState;
  live?: KubeObject;
}

/** A task applying (or, with `prune`, pruning) `o`. */
export function task(o: KubeObject, t: TaskOptions = {}): SyncTask {
  const base: SyncTask = {
    phase: t.phase ?? "Sync",
    hook: t.hook ?? false,
    state: t.state ?? {},
    ...(t.prune === true ? { live: o } : { target: o, ...(t.live !== undefined ? { live: t.live } : {}) }),
  };
  return t.waveOverride === undefined ? base : { ...base, waveOverride: t.waveOverride };
}

/** `kind/name` of a task's object, for readable assertions. */
export function label(t: SyncTask): string {
  const o = t.target ?? t.live ?? {};
  return `${o.kind ?? ""}/${o.metadata?.name ?? ""}`;
}

/** Application `shop` in `argocd`, of project `team`, deploying to namespace `web` of the local cluster. */
export function application(extra: Partial<Application> = {}): Application {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name: "shop", namespace: "argocd" },
    spec: {
      project: "team",
      destination: { server: "https://kubernetes.default.svc", namespace: "web" },
      source: { repoURL: "https://git.example.com/shop.git", path: "deploy", targetRevision: "HEAD" },
    },
    ...extra,
  };
}

/** AppProject `team` in `argocd`, permitting every source and destination, with `spec` on top. */
export function appProject(spec: Partial<AppProject["spec"]> = {}): AppProject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "AppProject",
    metadata: { name: "team", namespace: "argocd" },
    spec: { sourceRepos: ["*"], destinations: [{ server: "*", namespace: "*" }], ...spec },
  };
}
