/**
 * The project gate's settings as the shared cache holds them now (docs/projects.md): the AppProjects
 * of Argo CD's namespace, its `argocd-cm` (`cluster.inClusterEnabled`,
 * `application.sync.impersonation.enabled` and `.enforced`), the clusters of the cluster
 * Secrets, and the repositories scoped to a project (`repository` Secrets with a `project`), which
 * Argo CD adds to that project's `sourceRepos`. Read on every call, so an edit applies at the next
 * reconcile without a restart.
 *
 * I/O boundary: none of its own; it reads informers' caches.
 */
import { Label, SecretType, secretValue, type AppProject, type Cluster, type Secret } from "../api/index.js";
import type { Informer, KubeObject } from "../kube/index.js";
import { ARGOCD_CM } from "./customizations/index.js";
import type { ProjectSettings } from "./project-gate.js";

/** What {@link InformerProjectSettings} reads. */
export interface ProjectSources {
  /** Argo CD's namespace. */
  readonly namespace: string;
  readonly projects: Informer<AppProject>;
  /** The informer of `argocd-cm` (the engine's). */
  readonly argoCdConfigMap: Pick<Informer<KubeObject>, "get">;
  /** Repository Secrets of Argo CD's namespace. */
  readonly repoSecrets: Pick<Informer<Secret>, "list" | "on">;
  /** The clusters of the cluster Secrets now. */
  readonly clusters: () => readonly Cluster[];
}

/** `cluster.inClusterEnabled` of argocd-cm: on unless it says "false" (Argo CD's `IsInClusterEnabled`). */
export function inClusterEnabled(cm: KubeObject | undefined): boolean {
  return cmValue(cm, "cluster.inClusterEnabled") !== "false";
}

/** A string value of argocd-cm's `data`, or undefined. */
function cmValue(cm: KubeObject | undefined, key: string): string | undefined {
  const value = (cm?.["data"] as Record<string, unknown> | undefined)?.[key];
  return typeof value === "string" ? value : undefined;
}

/** `application.sync.impersonation.enabled` of argocd-cm: on only when it says "true" (Argo CD's `IsImpersonationEnabled`). */
export function impersonationEnabled(cm: KubeObject | undefined): boolean {
  return cmValue(cm, "application.sync.impersonation.enabled") === "true";
}

/** `application.sync.impersonation.enforced` of argocd-cm: on unless it says "false" (Argo CD's `IsImpersonationEnforced`). */
export function impersonationEnforced(cm: KubeObject | undefined): boolean {
  return cmValue(cm, "application.sync.impersonation.enforced") !== "false";
}

/** {@link ProjectSettings} over the shared cache's informers. */
export class InformerProjectSettings implements ProjectSettings {
  /** Project → the URLs of its repositories, rebuilt after a repository Secret changed. */
  private scoped: Map<string, string[]> | undefined;

  constructor(private readonly sources: ProjectSources) {
    const changed = (): void => {
      this.scoped = undefined;
    };
    sources.repoSecrets.on({ add: changed, update: changed, delete: changed });
  }

  get namespace(): string {
    return this.sources.namespace;
  }

  project(name: string): AppProject | undefined {
    return this.sources.projects.get(this.sources.namespace, name);
  }

  clusters(): readonly Cluster[] {
    return this.sources.clusters();
  }

  inClusterEnabled(): boolean {
    return inClusterEnabled(this.configMap());
  }

  impersonationEnabled(): boolean {
    return impersonationEnabled(this.configMap());
  }

  impersonationEnforced(): boolean {
    return impersonationEnforced(this.configMap());
  }

  private configMap(): KubeObject | undefined {
    return this.sources.argoCdConfigMap.get(this.sources.namespace, ARGOCD_CM);
  }

  /** The URLs of the `repository` Secrets scoped to project `name`. */
  projectRepositories(name: string): readonly string[] {
    this.scoped ??= scopedRepositories(this.sources.repoSecrets.list());
    return this.scoped.get(name) ?? [];
  }
}

/** Project → the URLs of the `repository` Secrets scoped to it. */
function scopedRepositories(secrets: readonly Secret[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of secrets) {
    const project = secretValue(s, "project") ?? "";
    const url = secretValue(s, "url") ?? "";
    if (s.metadata.labels?.[Label.SecretType] !== SecretType.Repository || project === "" || url === "") continue;
    out.set(project, [...(out.get(project) ?? []), url]);
  }
  return out;
}
