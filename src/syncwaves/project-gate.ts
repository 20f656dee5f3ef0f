/**
 * The sync engine's AppProject gate (docs/projects.md), as Argo CD's application controller applies
 * it: before anything is read for an Application, its project must exist, admit the Application's
 * namespace and permit its sources and destination (else the Application gets `InvalidSpecError` /
 * `UnknownError` conditions, sync and health Unknown, and a running operation ends in Error), and
 * a project that asks for signed Git sources stops it with a `ComparisonError`, since this engine
 * cannot verify signatures (src/syncwaves/source-integrity.ts); every
 * object of a sync (hooks, the namespace `CreateNamespace=true` creates, prunes) must be of a kind
 * and in a namespace the project permits (else the sync fails before anything is applied); live
 * objects the project does not permit are neither read as the Application's nor pruned. The project
 * is looked up live, so an edit applies at the next reconcile. With sync impersonation on, the
 * verdict also says which service account a sync or a deletion writes as. Pure: the settings are
 * read through the injected {@link ProjectSettings}.
 */
import {
  AppConditionType,
  HealthStatus,
  SyncStatus,
  type AppProject,
  type SyncWindow,
  type Application,
  type ApplicationStatus,
  type Cluster,
} from "../api/index.js";
import { rfc3339 } from "../clock/index.js";
import type { KubeObject } from "../kube/index.js";
import {
  isAppNamespacePermitted,
  isDestinationPermitted,
  isGroupKindNamePermitted,
  projectConditions,
  ProjectMessage,
  projectWithScopedResources,
  resolveDestinationCluster,
  syncPermissionError,
  type ClusterResolution,
  type ProjectCluster,
} from "../project/index.js";
import { groupOf } from "./objects.js";
import { appImpersonation, type AppImpersonation } from "./impersonation.js";
import { signatureCondition } from "./source-integrity.js";

/** Where the gate reads the projects and clusters from (the shared cache, read live). */
export interface ProjectSettings {
  /** Argo CD's namespace: the AppProjects and cluster Secrets live there. */
  readonly namespace: string;
  /** The AppProject of that name now, or undefined when there is none. */
  project(name: string): AppProject | undefined;
  /** The clusters of the cluster Secrets now. */
  clusters(): readonly Cluster[];
  /** Argo CD's `cluster.inClusterEnabled` (argocd-cm) now. */
  inClusterEnabled(): boolean;
  /** Argo CD's `application.sync.impersonation.enabled` (argocd-cm) now. */
  impersonationEnabled(): boolean;
  /** Argo CD's `application.sync.impersonation.enforced` (argocd-cm) now. */
  impersonationEnforced(): boolean;
  /** The URLs of the repositories scoped to project `name` (repository Secrets with its `project`). */
  projectRepositories(name: string): readonly string[];
}

/**
 * The condition types the gate decides on every reconcile (Argo CD's `refreshAppConditions`), and
 * the `ComparisonError` of a project that asks for signed sources (src/syncwaves/source-integrity.ts).
 */
export const PROJECT_CONDITION_TYPES: ReadonlySet<string> = new Set([
  AppConditionType.InvalidSpecError,
  AppConditionType.UnknownError,
  AppConditionType.ComparisonError,
]);

/** What the gate decided about one Application. */
export interface ProjectVerdict {
  /** `InvalidSpecError` / `UnknownError` / `ComparisonError` conditions; none when the Application may be compared. */
  readonly conditions: ReadonlyArray<{ readonly type: string; readonly message: string }>;
  /** Why the project could not be loaded (a missing project, a namespace it does not admit). */
  readonly loadError?: string;
  /** Why an object may not be synced (undefined: it may), given whether its kind is namespaced. */
  readonly objectError: (obj: KubeObject, namespaced: boolean | undefined) => string | undefined;
  /** Whether a live object belongs to what the project permits. */
  readonly livePermitted: (obj: KubeObject) => boolean;
  /** Why the destination does not resolve to a known cluster, when it does not. */
  readonly destinationError?: string;
  /**
   * Whether the project's resource lists permit a kind (and, cluster-scoped, a name): a compared
   * resource they refuse is reported with sync status Unknown, as Argo CD reports it.
   */
  readonly kindPermitted: (gk: { group: string; kind: string }, name: string, namespaced: boolean) => boolean;
  /** The project's sync windows (none when the project could not be loaded). */
  readonly syncWindows?: readonly SyncWindow[] | undefined;
  /**
   * Who a sync or a deletion writes as, while impersonation is enabled and the project and the
   * destination cluster are known; undefined otherwise (the engine's own identity).
   */
  readonly impersonation?: AppImpersonation | undefined;
}

/** The clusters as the project rules see them. */
function projectClusters(settings: ProjectSettings): ProjectCluster[] {
  return settings.clusters().map((c) => ({
    server: c.server,
    name: c.name,
    ...(c.project ? { project: c.project } : {}),
    ...(c.namespaces.length > 0 ? { namespaces: c.namespaces } : {}),
  }));
}

/** Argo CD's error when the project cannot be loaded (the lister's NotFound, or the namespace rule). */
function loadErrorOf(app: Application, project: AppProject | undefined, name: string, namespace: string): string | undefined {
  if (project === undefined) return `error getting app project "${name}": appproject.argoproj.io "${name}" not found`;
  if (isAppNamespacePermitted(project, app.metadata.namespace ?? "", namespace)) return undefined;
  return ProjectMessage.namespaceNotPermitted(app.metadata.name ?? "", app.metadata.namespace ?? "", name);
}

/** Refuses everything: the Application is not compared, so nothing is read or written. */
const REFUSED = {
  objectError: (): undefined => undefined,
  livePermitted: (): boolean => false,
  kindPermitted: (): boolean => true,
} as const;

/** The impersonation of `app` while it is enabled, when the project and the cluster are known. */
function impersonationOf(
  app: Application,
  project: AppProject | undefined,
  resolved: ClusterResolution,
  settings: ProjectSettings,
): { impersonation?: AppImpersonation } {
  if (project === undefined || !resolved.ok || !settings.impersonationEnabled()) return {};
  return { impersonation: appImpersonation({ project, app, cluster: resolved.cluster, enforced: settings.impersonationEnforced() }) };
}

/** Judges an Application against its AppProject as the settings are now. */
export function judgeProject(app: Application, settings: ProjectSettings): ProjectVerdict {
  const name = app.spec.project || "default";
  const stored = settings.project(name);
  const clusters = projectClusters(settings);
  const lookup = { clusters, inClusterEnabled: settings.inClusterEnabled() };
  const repositories = settings.projectRepositories(name);
  const permission = projectConditions({
    app,
    project: stored,
    controllerNamespace: settings.namespace,
    projectRepositories: repositories,
    ...lookup,
  });
  // Signatures are checked once the spec is permitted, at the comparison, as in Argo CD.
  const signature = stored === undefined || permission.length > 0 ? undefined : signatureCondition(app, stored);
  const conditions = signature === undefined ? permission : [signature];
  const loadError = loadErrorOf(app, stored, name, settings.namespace);
  const resolved = resolveDestinationCluster(app.spec.destination, lookup);
  const impersonation = impersonationOf(app, stored, resolved, settings);
  if (stored === undefined || conditions.length > 0 || !resolved.ok) {
    const destinationError = resolved.ok ? undefined : resolved.error;
    return {
      conditions,
      ...(loadError !== undefined ? { loadError } : {}),
      ...(destinationError !== undefined ? { destinationError } : {}),
      ...REFUSED,
      ...impersonation,
    };
  }
  const project = projectWithScopedResources(stored, { clusters, repositories });
  const cluster = resolved.cluster;
  return {
    conditions: [],
    syncWindows: project.spec.syncWindows,
    kindPermitted: (gk, objName, namespaced) => isGroupKindNamePermitted(project, gk, objName, namespaced),
    ...impersonation,
    objectError: (obj, namespaced) =>
      syncPermissionError(
        project,
        { group: groupOf(obj), kind: obj.kind ?? "", name: obj.metadata?.name ?? "", namespace: obj.metadata?.namespace ?? "", namespaced },
        cluster,
        clusters,
      ),
    livePermitted: (obj) => {
      const namespace = obj.metadata?.namespace ?? "";
      if (!isGroupKindNamePermitted(project, { group: groupOf(obj), kind: obj.kind ?? "" }, obj.metadata?.name ?? "", namespace !== "")) {
        return false;
      }
      return namespace === "" || isDestinationPermitted(project, { cluster, namespace }, clusters);
    },
  };
}

/**
 * The status of an Application its project stops (Argo CD's refresh with error conditions): the
 * gate's conditions replace the previous ones of their types, sync and health are Unknown, and
 * nothing else is compared. A condition that holds keeps its transition time.
 */
export function projectErrorStatus(app: Application, verdict: ProjectVerdict, nowMs: number): ApplicationStatus {
  const status = { ...(app.status ?? {}) };
  const now = rfc3339(nowMs);
  const before = status.conditions ?? [];
  const since = (type: string, message: string): string =>
    before.find((x) => x.type === type && x.message === message)?.lastTransitionTime ?? now;
  status.conditions = [
    ...before.filter((x) => !PROJECT_CONDITION_TYPES.has(x.type)),
    ...verdict.conditions.map((c) => ({ type: c.type, message: c.message, lastTransitionTime: since(c.type, c.message) })),
  ];
  status.sync = { ...(status.sync ?? {}), status: SyncStatus.Unknown };
  status.health = {
    status: HealthStatus.Unknown,
    lastTransitionTime: app.status?.health?.status === HealthStatus.Unknown ? (app.status.health.lastTransitionTime ?? now) : now,
  };
  status.reconciledAt = now;
  return status;
}

/**
 * The message a running operation ends with when the project stops it: Argo CD's "Failed to load
 * application project: …" when the project cannot be loaded, the lookup error of a destination that
 * does not resolve, else its conditions as Argo CD formats them (`<type>: <message>` joined by `;`).
 */
export function projectOperationMessage(verdict: ProjectVerdict): string {
  if (verdict.loadError !== undefined) return `Failed to load application project: ${verdict.loadError}`;
  // Argo CD's comparison fails on a destination it cannot look up, with the lookup's own words.
  if (verdict.destinationError !== undefined) return verdict.destinationError;
  return verdict.conditions
    .filter((c) => c.type === AppConditionType.InvalidSpecError || c.type === AppConditionType.ComparisonError)
    .map((c) => `${c.type}: ${c.message}`)
    .join(";");
}
