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
 * Modules: pure — order, hooks, waves, options, health/, tasks, build, plan, messages, compare,
 * retry, operation, automated, manifests (parsing); shell — executor (server-side apply, field
 * manager `argocd-controller`), live (fresh reads), step, reconcile, engine.
 */
export { buildTasks, isTrackedBy, prepareTarget, trackingId, type BuildInput } from "./build.js";
export { compare, type Comparison } from "./compare.js";
export { SyncEngine, type SyncEngineOptions } from "./engine.js";
export { FIELD_MANAGER, SyncExecutor } from "./executor.js";
export { resourceHealth, aggregateHealth } from "./health/index.js";
export { parseDirectory, StaticManifestSource, type ManifestSource, type Manifests, type SourceFile } from "./manifests.js";
export { compareTasks, KIND_ORDER, kindRank, sortTasks } from "./order.js";
export { planStep, concludeBatch, type Step, type StepContext } from "./plan.js";
export { AppReconciler, type ReconcilerDeps, type ReconcileResult } from "./reconcile.js";
export { runSyncStep, type StepExecutor } from "./step.js";
export type { HealthResult, ResourceKey, SyncTask, TaskState } from "./types.js";
