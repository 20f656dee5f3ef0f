/**
 * The reconciler's contract and its pure operation helpers: what it needs ({@link ReconcilerDeps}),
 * when it looks again ({@link AppRequeue}), what one reconcile decides about the operation, which
 * operation is active, and the sync result a comparison names. No I/O.
 */
import { OperationPhase, type Application, type ApplicationSource, type Operation, type OperationState } from "../api/index.js";
import type { Clock } from "../clock/index.js";
import type { SelfHealBackoff } from "../config/index.js";
import type { KubeClient, KubeObject, ResourceDescriptor } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import type { ReconcileResult } from "../manager/worker.js";
import type { ResourceCustomizations } from "./customizations/index.js";
import type { ClusterAccess, DestinationResolver } from "./destinations.js";
import type { ManifestSource } from "./manifests.js";
import type { SyncMetrics } from "./metrics.js";
import { sourceOf, type Observed } from "./observe.js";
import { hasMultipleSources } from "./sources.js";
import { isCompletedPhase, newOperationState } from "./operation.js";
import type { ProjectSettings } from "./project-gate.js";

/** What the reconciler needs. */
export interface ReconcilerDeps {
  /** Reads and writes Applications (and, without `destinations`, the managed resources). */
  readonly client: KubeClient;
  readonly resolve: (obj: KubeObject) => Promise<ResourceDescriptor>;
  readonly source: ManifestSource;
  readonly clock: Clock;
  readonly log: Logger;
  /** Where each Application's resources live; default: the cluster of `client`. */
  readonly destinations?: DestinationResolver;
  /** Pause after a wave before the next step (ARGOCD_SYNC_WAVE_DELAY; 0 by default here). */
  readonly waveDelayMs?: number;
  /** How often an idle Application is re-compared (default 3 min). */
  readonly pollMs?: number;
  /** How often a running operation is re-checked while it waits (default 1 s). */
  readonly operationPollMs?: number;
  /** Optional per-operation deadline. */
  readonly deadlineMs?: number;
  /** The name tracking ids carry; defaults to the Application's name. */
  readonly trackingName?: (app: Application) => string;
  /** Told, after each comparison, which kinds of which cluster the Application uses. */
  readonly onManaged?: (access: ClusterAccess, descriptors: readonly ResourceDescriptor[]) => void;
  /** Argo CD's application-controller metrics; none when absent. */
  readonly metrics?: SyncMetrics;
  /** The back-off between self-heal syncs of one revision (default Argo CD's 2 s × 3, at most 300 s). */
  readonly selfHealBackoff?: SelfHealBackoff;
  /**
   * The customizations of `argocd-cm` as they are now (custom health, system-level ignore rules,
   * exclusions), asked once per reconcile; none when absent.
   */
  readonly customizations?: () => ResourceCustomizations;
  /**
   * The AppProjects, clusters and settings the project gate reads (docs/projects.md); absent: no
   * project rules at all (tests of the sync machinery alone; the processes always give them).
   */
  readonly projects?: ProjectSettings;
  /**
   * Sharded replicas (docs/sharding.md#the-sync-engine): whether this replica owns the Application
   * `namespace/name` now. A reconcile of a key it does not own does nothing, and the writes of one
   * ask again first. Absent: every Application is this replica's.
   */
  readonly owns?: (key: string) => boolean;
}

/**
 * When to look at an Application again: after `requeueAfterMs` (0: at once; absent: only on a
 * change), and not before `holdMs` for changes of its managed resources (the wave delay).
 */
export interface AppRequeue {
  readonly requeueAfterMs?: number;
  readonly holdMs?: number;
}

/**
 * The operation state with the revision and source this reconcile compared in its sync result; a
 * multi-source Application's result has `revision: ""`, the first source as `source`, and
 * `revisions` and `sources`, as Argo CD writes it.
 */
export function withCompared(
  app: Application,
  state: OperationState,
  observed: Pick<Observed, "revision" | "revisions" | "multiSource">,
): OperationState {
  if (!observed.multiSource) {
    const source = sourceOf(app);
    return { ...state, syncResult: { ...(state.syncResult ?? {}), revision: observed.revision, ...(source ? { source } : {}) } };
  }
  return {
    ...state,
    syncResult: { ...(state.syncResult ?? {}), ...multiSyncResult(app, state), revision: "", revisions: observed.revisions },
  };
}

/**
 * The sources of a multi-source sync's result, as Argo CD first fills it: an operation that names
 * sources (an automated one does) gives its `sources` and its `source` (empty when it names none:
 * `repoURL: ""`); otherwise the Application's sources, the first as `source`.
 */
function multiSyncResult(app: Application, state: OperationState): { source: ApplicationSource; sources: ApplicationSource[] } {
  const op = state.operation.sync ?? {};
  const named = op.sources ?? [];
  if (named.length > 0 || op.source !== undefined) return { source: op.source ?? { repoURL: "" }, sources: named };
  return { source: sourceOf(app) ?? { repoURL: "" }, sources: app.spec.sources ?? [] };
}

/** The revisions a running sync reads at: those it resolved, else those it asks for; undefined: the targets. */
export function pinnedRevisions(app: Application, state: OperationState | undefined): { revision?: string; revisions?: string[] } {
  if (state === undefined) return {};
  if (hasMultipleSources(app)) {
    const revisions = [state.syncResult?.revisions, state.operation.sync?.revisions].find((r) => r !== undefined && r.length > 0);
    return revisions ? { revisions } : {};
  }
  const revision = state.syncResult?.revision || state.operation.sync?.revision || undefined;
  return revision ? { revision } : {};
}

/** What a reconcile decided about the operation. */
export interface Outcome {
  readonly state: OperationState | undefined;
  /** null clears the operation; undefined leaves it as it is. */
  readonly operation: Operation | null | undefined;
  readonly requeueAfterMs: number;
  readonly holdMs?: number;
  /** The message of the `SyncError` condition automated sync reports; absent clears it. */
  readonly syncError?: string;
}

/**
 * The operation state to act on, when an operation is active: a newly requested operation starts,
 * and a running one of a deleted Application is terminated.
 */
export function currentOperation(app: Application, nowMs: number): OperationState | undefined {
  let state = app.status?.operationState;
  if (app.operation?.sync !== undefined && (state === undefined || isCompletedPhase(state.phase)))
    state = newOperationState(app.operation, nowMs);
  if (app.metadata.deletionTimestamp && state?.phase === OperationPhase.Running) state = { ...state, phase: OperationPhase.Terminating };
  return state !== undefined && (state.phase === OperationPhase.Running || state.phase === OperationPhase.Terminating) ? state : undefined;
}

/** The worker pool's result of a requeue decision: 0 is "again at once". */
export function resultOf(next: AppRequeue): ReconcileResult {
  const ms = next.requeueAfterMs;
  if (ms === undefined) return {};
  return ms > 0 ? { requeueAfterMs: ms } : { requeue: true };
}
