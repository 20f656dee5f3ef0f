/**
 * What one reconcile reads, frozen into plain data so the planner is a pure function: the
 * ApplicationSet, the outcome of generating its Applications, the Applications it owns and the live
 * Applications that share a generated name, the AppProject names and the known clusters. The
 * reconciler builds it from the informer caches (and the generators); tests build it by hand.
 */
import type { Application, ApplicationSet, ApplicationsSyncPolicy, Cluster, Reason, RolloutPolicy, RolloutRun } from "../api/index.js";
import type { RenderedApplication } from "../generators/applications.js";

/** The outcome of running the generators and rendering the template. */
export type Generation =
  | {
      readonly ok: true;
      /** The rendered Applications, sorted by name (invalid ones included). */
      readonly apps: readonly RenderedApplication[];
      /** The ApplicationSet's generator requeue (ms): the minimum non-zero, 0 for none. */
      readonly requeueAfterMs: number;
    }
  | {
      readonly ok: false;
      /** `ApplicationGenerationFromParamsError` or `RenderTemplateParamsError`. */
      readonly reason: Reason;
      readonly message: string;
      /** When the error says retrying makes sense, ms from now (a provider's rate-limit reset). */
      readonly retryAfterMs?: number;
      /** The ApplicationSet's generator requeue (ms), as for a generation that went through; 0 for none. */
      readonly requeueAfterMs?: number;
    };

/** Everything a reconcile of one ApplicationSet looks at. */
export interface AppSetSnapshot {
  readonly appSet: ApplicationSet;
  /** Absent when the ApplicationSet is being deleted (nothing is generated then). */
  readonly generation?: Generation;
  /** Applications in the ApplicationSet's namespace whose controller owner is this ApplicationSet. */
  readonly owned: readonly Application[];
  /**
   * Live Applications of the ApplicationSet's namespace by name, for every generated name (owned or
   * not: an unowned one is adopted, one owned by another controller is an error).
   */
  readonly live: ReadonlyMap<string, Application>;
  /** Names of the AppProjects in the controller namespace. */
  readonly projects: ReadonlySet<string>;
  /** Clusters decoded from the cluster Secrets of the controller namespace. */
  readonly clusters: readonly Cluster[];
  /**
   * Rollout safety's objects (docs/progressive-syncs.md#rollout-safety): the RolloutPolicies of the
   * ApplicationSet's namespace and its RolloutRuns. Absent when the controller does not read them
   * (the CRDs are not installed): every ApplicationSet then behaves as without a policy.
   */
  readonly rollout?: RolloutRead;
}

/** The RolloutPolicies of an ApplicationSet's namespace and the ApplicationSet's RolloutRuns. */
export interface RolloutRead {
  readonly policies: readonly RolloutPolicy[];
  readonly runs: readonly RolloutRun[];
}

/** The controller-wide settings the planner honours (resolved once from the config). */
export interface PlanSettings {
  /** `--policy`, with "" already resolved to `sync`. */
  readonly policy: ApplicationsSyncPolicy;
  /** `--enable-policy-override`: honour the ApplicationSet's `syncPolicy.applicationsSync`. */
  readonly enablePolicyOverride: boolean;
  /** `--preserved-annotations` / `--preserved-labels`. */
  readonly preservedAnnotations: readonly string[];
  readonly preservedLabels: readonly string[];
  /** `--max-resources-status-count` (0 = unlimited). */
  readonly maxResourcesStatusCount: number;
  /** Whether the implicit in-cluster destination is available (Argo CD's `cluster.inClusterEnabled`). */
  readonly inClusterEnabled: boolean;
  /** `--enable-progressive-syncs`: plan RollingSync (docs/progressive-syncs.md). Absent means off. */
  readonly progressiveSyncs?: boolean;
  /** `--refresh-grace-period-seconds` in ms; absent means the planner's default (30 s). */
  readonly refreshGracePeriodMs?: number;
  /** `--max-application-bytes`; absent means {@link MAX_APPLICATION_BYTES}. */
  readonly maxApplicationBytes?: number;
}

/** Defaults matching Argo CD's. */
export const DEFAULT_PLAN_SETTINGS: PlanSettings = {
  policy: "sync",
  enablePolicyOverride: true,
  preservedAnnotations: [],
  preservedLabels: [],
  maxResourcesStatusCount: 5000,
  inClusterEnabled: true,
  progressiveSyncs: false,
};
