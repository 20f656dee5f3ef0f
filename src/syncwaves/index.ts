/**
 * The sync engine: orders an Application's resources by phase, wave and kind, runs hooks with their
 * delete policies, prunes in mirrored order, and reports health. The ordering and planning are pure;
 * the executor applies a wave plan through the kube ports.
 *
 * How a sync runs (Argo CD's model, docs/sync-engine.md lists where we differ):
 *
 * Phases. Every task belongs to one phase: PreSync, Sync, PostSync or SyncFail. Plain resources are
 * Sync tasks; hooks (`argocd.argoproj.io/hook`, or Helm's `helm.sh/hook` when an object has no Argo
 * CD hook annotation) run in the phases they name, one task per phase. `Skip` objects and hooks of
 * no valid type take no part; PreDelete/PostDelete hooks run only when the Application is deleted.
 *
 * Order. Tasks sort by phase, wave (`argocd.argoproj.io/sync-wave`, else `helm.sh/hook-weight`,
 * else 0), the kind order of Helm's kind sorter, and name (order.ts). A Namespace moves before the
 * first object in it and a CRD before its first custom resource, taking that task's phase and wave.
 * Prune tasks (live objects no manifest claims) get mirrored waves, so higher waves are pruned
 * first; PruneLast prunes run after everything else (waves.ts).
 *
 * Steps. A sync is a sequence of steps (plan.ts, step.ts). Each step re-reads the live objects,
 * updates running tasks from their health (health/), waits while any awaited task runs, and
 * otherwise runs the next (phase, wave) batch: hook finalizers removed, prunes, BeforeHookCreation
 * deletions (creation then waits a step), and applies in runs of one kind. State between steps is
 * only `status.operationState.syncResult.resources[]`, so a restarted engine resumes where it was.
 * A failed task ends the sync after the SyncFail hooks ran; a sync whose last batch has no hooks
 * succeeds as soon as it is applied.
 *
 * Delete policies. BeforeHookCreation (the default) deletes an existing hook before re-creating it;
 * HookSucceeded deletes hooks when the whole operation succeeds; HookFailed when it fails.
 *
 * Terminate. `operationState.phase = Terminating` (or deleting an Application whose operation runs)
 * deletes running hooks and ends the operation Failed "Operation terminated", never retried.
 *
 * Deletion. A deleted Application runs, one stage per finalizer: PreDelete hooks
 * (`pre-delete-finalizer.argocd.argoproj.io`), the cascade (`resources-finalizer.argocd.argoproj.io`,
 * `/foreground`, `/background`: highest wave first, one wave at a time), PostDelete hooks
 * (`post-delete-finalizer.argocd.argoproj.io`), then the `/cleanup` stages that delete hooks by
 * policy. The deletion-hook finalizers are added while the manifests have such hooks.
 *
 * Sources and destinations. Manifests come from Git (git-source.ts, the shared src/git reader and
 * its cache by commit): directory, Helm and Kustomize sources; every source of a multi-source
 * Application, `$ref` value files included (sources.ts, render/ref-values.ts). Destinations are the local cluster or
 * clusters of cluster Secrets (destinations.ts). Managed resources are watched per cluster and kind
 * (watches.ts); a change requeues the Applications tracking the object.
 *
 * Modules: pure — order, hooks, waves, options, health/, tasks, build, plan, messages, compare,
 * retry, operation, automated, deletion, manifests (parsing), terminate (plan); shell — executor
 * (server-side apply, field manager `argocd-controller`), live (fresh reads), observe, step,
 * finalize, destinations, git-source, watches, reconcile, engine, metrics (the metric port and
 * the client that counts an Application's requests; the Prometheus side is in src/metrics).
 */
export { buildTasks, isTrackedBy, prepareTarget, trackingId, type BuildInput } from "./build.js";
export { compare, type Comparison } from "./compare.js";
export { hookFinalizers, planAppDeletion, type AppDeletionInput, type AppDeletionStep } from "./app-deletion.js";
export { ClusterSecretDestinations, LocalDestinations, type ClusterAccess, type DestinationResolver } from "./destinations.js";
export { GitManifestSource } from "./git-source.js";
export { SyncEngine, type SyncEngineOptions } from "./engine.js";
export { FIELD_MANAGER, SyncExecutor } from "./executor.js";
export { resourceHealth, aggregateHealth } from "./health/index.js";
export { parseDirectory, StaticManifestSource, type ManifestSource, type Manifests, type SourceFile } from "./manifests.js";
export { accessFor, CountingClient, type K8sRequestLabels, type SyncMetrics } from "./metrics.js";
export { compareTasks, KIND_ORDER, kindRank, sortTasks } from "./order.js";
export { planStep, concludeBatch, type Step, type StepContext } from "./plan.js";
export { AppReconciler, type AppRequeue, type ReconcilerDeps } from "./reconcile.js";
export { runSyncStep, type StepExecutor } from "./step.js";
export { planTerminate } from "./terminate.js";
export { ResourceWatches } from "./watches.js";
export type { HealthResult, ResourceKey, SyncTask, TaskState } from "./types.js";
