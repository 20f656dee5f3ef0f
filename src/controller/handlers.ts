/**
 * Event handlers (docs/controller.md#which-events-start-a-pass): map informer events to queue keys
 * through the pure predicates.
 * ApplicationSet create/delete always enqueue, updates when {@link appSetChanged}; owned Application
 * creates are ignored, deletes enqueue the owner, updates when {@link appChanged}; a cluster Secret
 * event enqueues the ApplicationSets it can affect; an AppProject event those with a validation
 * error or whose Applications may use that project; a RolloutPolicy event those of its namespace, a
 * RolloutRun event its ApplicationSet. Objects outside the allowed namespaces are dropped.
 */
import {
  RollingSyncStatus,
  type Application,
  type ApplicationSet,
  type AppProject,
  type RolloutPolicy,
  type RolloutRun,
  type Secret,
} from "../api/index.js";
import { objectKey, type Informer } from "../kube/index.js";
import { affectedByCluster, affectedByProject, appChanged, appSetChanged, ownerKey } from "./predicates.js";

/** What the handlers need. */
export interface HandlerOptions {
  /** Queues a key; `urgent` ones are served first (a rollout under way). */
  readonly enqueue: (key: string, urgent?: boolean) => void;
  readonly allowed: (namespace: string) => boolean;
  readonly progressiveSyncs: boolean;
  /** Every cached ApplicationSet (for cluster Secret and AppProject fan-out). */
  readonly appSets: () => ApplicationSet[];
}

function allowedKey(opts: HandlerOptions, obj: { metadata: { namespace?: string } }, key: string | undefined): void {
  if (key !== undefined && opts.allowed(obj.metadata.namespace ?? "")) opts.enqueue(key);
}

/** True while a RollingSync rollout of `appSet` is under way: an Application is Pending or Progressing. */
export function rolloutUnderWay(appSet: ApplicationSet): boolean {
  return (appSet.status?.applicationStatus ?? []).some(
    (e) => e.status === RollingSyncStatus.Pending || e.status === RollingSyncStatus.Progressing,
  );
}

/**
 * ApplicationSet events. On the initial list (and any add) a rollout under way is queued first, so
 * after a restart the work that moves a rollout forward does not wait behind every other pass.
 */
export function watchAppSets(informer: Informer<ApplicationSet>, opts: HandlerOptions): () => void {
  return informer.on({
    add: (a) => {
      if (opts.allowed(a.metadata.namespace ?? "")) opts.enqueue(objectKey(a), rolloutUnderWay(a));
    },
    update: (o, n) => {
      if (appSetChanged(o, n, opts.progressiveSyncs)) allowedKey(opts, n, objectKey(n));
    },
    delete: (a) => allowedKey(opts, a, objectKey(a)),
  });
}

/** Owned Application events, mapped to the owning ApplicationSet. */
export function watchApps(informer: Informer<Application>, opts: HandlerOptions): () => void {
  return informer.on({
    update: (o, n) => {
      if (appChanged(o, n, opts.progressiveSyncs)) allowedKey(opts, n, ownerKey(n) ?? ownerKey(o));
    },
    delete: (a) => allowedKey(opts, a, ownerKey(a)),
  });
}

function fanOut(opts: HandlerOptions, sets: ApplicationSet[]): void {
  for (const a of sets) allowedKey(opts, a, objectKey(a));
}

/** Cluster Secret events. */
export function watchClusterSecrets(informer: Informer<Secret>, opts: HandlerOptions): () => void {
  const labels = (s: Secret): Record<string, string> => s.metadata.labels ?? {};
  return informer.on({
    add: (s) => fanOut(opts, affectedByCluster(opts.appSets(), [labels(s)])),
    update: (o, n) => fanOut(opts, affectedByCluster(opts.appSets(), [labels(o), labels(n)])),
    delete: (s) => fanOut(opts, affectedByCluster(opts.appSets(), [labels(s)])),
  });
}

/** AppProject events. */
export function watchProjects(informer: Informer<AppProject>, opts: HandlerOptions): () => void {
  const affected = (p: AppProject): void => fanOut(opts, affectedByProject(opts.appSets(), p.metadata.name ?? ""));
  return informer.on({ add: affected, update: (_, n) => affected(n), delete: affected });
}

/** RolloutPolicy events: every ApplicationSet of the policy's namespace (a policy changes rarely; a pass without one is cheap). */
export function watchRolloutPolicies(informer: Informer<RolloutPolicy>, opts: HandlerOptions): () => void {
  const affected = (p: RolloutPolicy): void => {
    const ns = p.metadata.namespace ?? "";
    if (!opts.allowed(ns)) return;
    for (const a of opts.appSets()) if ((a.metadata.namespace ?? "") === ns) opts.enqueue(`${ns}/${a.metadata.name ?? ""}`);
  };
  return informer.on({ add: affected, update: (_, n) => affected(n), delete: affected });
}

/**
 * RolloutRun events: its ApplicationSet, when the run appears, goes, or its spec changes (a control
 * request); the controller's own status writes do not move `generation` and queue nothing.
 */
export function watchRolloutRuns(informer: Informer<RolloutRun>, opts: HandlerOptions): () => void {
  const owner = (r: RolloutRun): void => allowedKey(opts, r, `${r.metadata.namespace ?? ""}/${r.spec.applicationSet}`);
  return informer.on({
    add: owner,
    update: (o, n) => {
      if (o.metadata.generation !== n.metadata.generation) owner(n);
    },
    delete: owner,
  });
}
