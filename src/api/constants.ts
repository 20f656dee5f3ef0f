/**
 * The API coordinates of Argo CD's resources and the annotation, label, finalizer and cluster names
 * both controllers read and write, Argo CD's values verbatim. The ApplicationSet's condition and
 * RollingSync strings are in `appset-status.ts`, the Application's status codes, hooks and sync
 * options in `application-status.ts`; the reconcile path uses these names and never inline literals.
 */

// ---------------------------------------------------------------------------------------------
// API coordinates
// ---------------------------------------------------------------------------------------------

/** The API group of every Argo CD resource. */
export const API_GROUP = "argoproj.io";
/** The only served and stored version. */
export const API_VERSION = "v1alpha1";
/** `apiVersion` of every Argo CD resource. */
export const GROUP_VERSION = "argoproj.io/v1alpha1";

/** Resource kinds. */
export const Kind = {
  ApplicationSet: "ApplicationSet",
  Application: "Application",
  AppProject: "AppProject",
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

/** Plural resource names (the REST path segment). */
export const Plural = {
  ApplicationSet: "applicationsets",
  Application: "applications",
  AppProject: "appprojects",
} as const;

/** Singular resource names. */
export const Singular = {
  ApplicationSet: "applicationset",
  Application: "application",
  AppProject: "appproject",
} as const;

/** Short names, as Argo CD's CRDs declare them. */
export const ShortNames = {
  ApplicationSet: ["appset", "appsets"],
  Application: ["app", "apps"],
  AppProject: ["appproj", "appprojs"],
} as const;

// ---------------------------------------------------------------------------------------------
// Annotations, labels, finalizers
// ---------------------------------------------------------------------------------------------

/** Annotation keys. */
export const Annotation = {
  /** On an ApplicationSet: force a refresh (bypasses the Git revision cache); removed afterwards. */
  ApplicationSetRefresh: "argocd.argoproj.io/application-set-refresh",
  /** On an Application: request a refresh (`normal` or `hard`). */
  Refresh: "argocd.argoproj.io/refresh",
  /** On an Application: request hydration; preserved from the live App. */
  Hydrate: "argocd.argoproj.io/hydrate",
  /** Notifications bookkeeping; preserved from the live App. */
  NotifiedNotifications: "notified.notifications.argoproj.io",
  /** Resource sync wave (signed integer). */
  SyncWave: "argocd.argoproj.io/sync-wave",
  /** Hook types (CSV). */
  Hook: "argocd.argoproj.io/hook",
  /** Hook delete policies (CSV). */
  HookDeletePolicy: "argocd.argoproj.io/hook-delete-policy",
  /** Per-resource sync options (CSV). */
  SyncOptions: "argocd.argoproj.io/sync-options",
  /** Per-resource compare options (CSV). */
  CompareOptions: "argocd.argoproj.io/compare-options",
  /** Annotation-based resource tracking id (`<app>:<group>/<kind>:<ns>/<name>`). */
  TrackingId: "argocd.argoproj.io/tracking-id",
  /** On a Namespace: the Argo CD namespace that manages it. */
  ManagedBy: "argocd.argoproj.io/managed-by",
  /** Resource is left out of the Application's health. */
  IgnoreHealthcheck: "argocd.argoproj.io/ignore-healthcheck",
  /** Pod health ignores the restart policy. */
  IgnoreRestartPolicy: "argocd.argoproj.io/ignore-restart-policy",
  /** Approval of a `Delete=confirm` / `Prune=confirm` resource. */
  DeletionApproved: "argocd.argoproj.io/deletion-approved",
  /** Field manager used for the client-side to server-side apply migration. */
  ClientSideApplyMigrationManager: "argocd.argoproj.io/client-side-apply-migration-manager",
  /** Skips reconciliation of an Application. */
  SkipReconcile: "argocd.argoproj.io/skip-reconcile",
  /** Paths whose changes trigger manifest generation (webhook optimisation). */
  ManifestGeneratePaths: "argocd.argoproj.io/manifest-generate-paths",
  /** kubectl's record of the last applied object (used to name unrecognized generators). */
  LastAppliedConfiguration: "kubectl.kubernetes.io/last-applied-configuration",
  /** Helm hook types (CSV), fallback when no Argo hook annotation. */
  HelmHook: "helm.sh/hook",
  /** Helm hook delete policies (CSV). */
  HelmHookDeletePolicy: "helm.sh/hook-delete-policy",
  /** Helm hook weight: the wave fallback. */
  HelmHookWeight: "helm.sh/hook-weight",
  /** `keep` excludes the resource from cascade deletion. */
  HelmResourcePolicy: "helm.sh/resource-policy",
} as const;

/** Values of the Application refresh annotation. */
export const RefreshType = { Normal: "normal", Hard: "hard" } as const;

/** Annotations always preserved from the live Application (docs/controller.md#creating-and-updating-applications). */
export const DEFAULT_PRESERVED_ANNOTATIONS = [Annotation.NotifiedNotifications, Annotation.Refresh, Annotation.Hydrate] as const;

/** Label keys. */
export const Label = {
  /** Kind of an Argo CD Secret (`cluster`, `repository`, `repo-creds`, `scm-creds`). */
  SecretType: "argocd.argoproj.io/secret-type",
  /** On a cluster Secret: ask Argo CD to label it with cluster info. */
  AutoLabelClusterInfo: "argocd.argoproj.io/auto-label-cluster-info",
  /** Set by Argo CD on labelled cluster Secrets. */
  KubernetesVersion: "argocd.argoproj.io/kubernetes-version",
  /** Label-based resource tracking (Argo CD's default application instance label). */
  AppInstance: "app.kubernetes.io/instance",
  /** `argocd` on every Argo CD owned object. */
  PartOf: "app.kubernetes.io/part-of",
} as const;

/** Values of the `argocd.argoproj.io/secret-type` label. */
export const SecretType = {
  Cluster: "cluster",
  Repository: "repository",
  RepoCreds: "repo-creds",
  ScmCreds: "scm-creds",
} as const;

/** Finalizer names. */
export const Finalizer = {
  /** Cascade-deletes an Application's resources; also guards ApplicationSet reverse deletion. */
  Resources: "resources-finalizer.argocd.argoproj.io",
  ResourcesForeground: "resources-finalizer.argocd.argoproj.io/foreground",
  ResourcesBackground: "resources-finalizer.argocd.argoproj.io/background",
  /** Prefix matched when preserving PreDelete finalizers from the live Application. */
  PreDelete: "pre-delete-finalizer.argocd.argoproj.io",
  PreDeleteCleanup: "pre-delete-finalizer.argocd.argoproj.io/cleanup",
  /** Prefix matched when preserving PostDelete finalizers from the live Application. */
  PostDelete: "post-delete-finalizer.argocd.argoproj.io",
  PostDeleteCleanup: "post-delete-finalizer.argocd.argoproj.io/cleanup",
  /** Put on every hook object before it is applied. */
  Hook: "argocd.argoproj.io/hook-finalizer",
} as const;

// ---------------------------------------------------------------------------------------------
// Clusters
// ---------------------------------------------------------------------------------------------

/** The synthetic local cluster every Argo CD knows without a Secret. */
export const InCluster = { name: "in-cluster", server: "https://kubernetes.default.svc" } as const;

/** The component name the controller reports events and operations under. */
export const CONTROLLER_COMPONENT = "applicationset-controller";
