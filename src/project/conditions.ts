/**
 * The conditions Argo CD's application controller sets on an Application before it may compare or
 * sync it: the project must exist and take Applications from the Application's namespace; the
 * sources must be well formed and come from repositories the project allows; the destination must
 * resolve to a known cluster and be allowed by the project. The project is checked as the
 * controller sees it: with the clusters and repositories scoped to it. Pure core: facts from Argo
 * CD v3.6.2 (`refreshAppConditions`, `getAppProj`, `projectErrorToCondition` in
 * controller/appcontroller.go; `ValidatePermissions` in util/argo).
 */
import type { Application, ApplicationSource, ApplicationSpec, SourceHydrator } from "../api/application.js";
import type { AppProject } from "../api/appproject.js";
import { isAppNamespacePermitted } from "./app-namespace.js";
import { projectWithScopedResources, resolveDestinationCluster, type ClusterLookup, type ProjectCluster } from "./clusters.js";
import { isDestinationPermittedByProject } from "./destinations.js";
import { ProjectMessage } from "./messages.js";
import { hydratorShapeErrors, sourceShapeError } from "./source-shape.js";
import { isSourcePermitted } from "./source-repos.js";

/** An Application condition this check reports. */
export interface ProjectCondition {
  /** The Application condition type. */
  readonly type: "InvalidSpecError" | "UnknownError";
  /** Argo CD's message. */
  readonly message: string;
}

/** What {@link projectConditions} reads. */
export interface ProjectConditionsInput {
  /** The Application refreshed. */
  readonly app: Pick<Application, "metadata" | "spec">;
  /** The AppProject named by `spec.project` (empty means "default"), or undefined when it is not found. */
  readonly project: AppProject | undefined;
  /** The namespace the controller runs in. */
  readonly controllerNamespace: string;
  /** The known clusters (cluster Secrets; the in-cluster entry may be among them). */
  readonly clusters: readonly ProjectCluster[];
  /** `cluster.inClusterEnabled` of argocd-cm is not "false". */
  readonly inClusterEnabled: boolean;
  /** The URLs of the repositories scoped to the project (repository Secrets with its `project`). */
  readonly projectRepositories?: readonly string[];
}

const invalid = (message: string): ProjectCondition => ({ type: "InvalidSpecError", message });

/** The source conditions of a hydrator: its shape, then its dry and sync repositories. */
function hydratorConditions(hydrator: SourceHydrator, project: AppProject): { conditions: ProjectCondition[]; stop: boolean } {
  const shape = hydratorShapeErrors(hydrator);
  if (shape.length > 0) return { conditions: shape.map(invalid), stop: true };
  const name = project.metadata.name ?? "";
  const out: ProjectCondition[] = [];
  const dry = hydrator.drySource.repoURL;
  if (!isSourcePermitted(project, dry)) out.push(invalid(ProjectMessage.repoNotPermitted(dry, name)));
  const sync = hydrator.syncSource.repoURL ?? "";
  const syncRepo = sync === "" ? dry : sync;
  if (syncRepo !== dry && !isSourcePermitted(project, syncRepo))
    out.push(invalid(ProjectMessage.syncSourceRepoNotPermitted(syncRepo, name)));
  return { conditions: out, stop: false };
}

/** The source conditions of plain sources: each one's shape (which ends the check) and repository. */
function plainSourceConditions(
  sources: readonly ApplicationSource[],
  multiple: boolean,
  project: AppProject,
): { conditions: ProjectCondition[]; stop: boolean } {
  const out: ProjectCondition[] = [];
  for (const source of sources) {
    const shape = sourceShapeError(source, multiple);
    if (shape !== undefined) return { conditions: [...out, invalid(shape)], stop: true };
    if (!isSourcePermitted(project, source.repoURL))
      out.push(invalid(ProjectMessage.repoNotPermitted(source.repoURL, project.metadata.name ?? "")));
  }
  return { conditions: out, stop: false };
}

/** The source conditions of a spec, and whether they end the check (a shape error does). */
function sourceConditions(spec: ApplicationSpec, project: AppProject): { conditions: ProjectCondition[]; stop: boolean } {
  if (spec.sourceHydrator !== undefined) return hydratorConditions(spec.sourceHydrator, project);
  const sources = spec.sources ?? [];
  if (sources.length > 0) return plainSourceConditions(sources, true, project);
  return plainSourceConditions([spec.source ?? { repoURL: "" }], false, project);
}

/** The destination condition of a spec, if any: a lookup error, or a destination the project refuses. */
function destinationCondition(spec: ApplicationSpec, project: AppProject, lookup: ClusterLookup): ProjectCondition | undefined {
  const resolved = resolveDestinationCluster(spec.destination, lookup);
  if (!resolved.ok) return invalid(resolved.error);
  const namespace = spec.destination.namespace ?? "";
  if (isDestinationPermittedByProject(project, { cluster: resolved.cluster, namespace }, lookup.clusters)) return undefined;
  const byName = (spec.destination.name ?? "") !== "";
  const server = byName ? resolved.cluster.name : resolved.cluster.server;
  return invalid(ProjectMessage.destinationNotPermitted(server, namespace, project.metadata.name ?? ""));
}

/**
 * The permission conditions of an Application's spec against its project as the controller sees
 * it (Argo CD's `ValidatePermissions`): source shape errors (the first ends the check), sources
 * from repositories the project does not allow, then the destination (its lookup error, or its
 * refusal by the project).
 */
export function permissionConditions(spec: ApplicationSpec, project: AppProject, lookup: ClusterLookup): ProjectCondition[] {
  const sources = sourceConditions(spec, project);
  if (sources.stop) return sources.conditions;
  const destination = destinationCondition(spec, project, lookup);
  return destination === undefined ? sources.conditions : [...sources.conditions, destination];
}

/**
 * The conditions that keep an Application from being compared or synced, in Argo CD's order; an
 * empty list when it may go on. A missing project gives one InvalidSpecError; a namespace the
 * project does not take Applications from gives one UnknownError; otherwise the project (with the
 * clusters and repositories scoped to it) checks the spec ({@link permissionConditions}).
 */
export function projectConditions(input: ProjectConditionsInput): ProjectCondition[] {
  const { app, project } = input;
  if (project === undefined) return [invalid(ProjectMessage.projectNotFound(app.spec.project))];
  const appNamespace = app.metadata.namespace ?? "";
  if (!isAppNamespacePermitted(project, appNamespace, input.controllerNamespace)) {
    const message = ProjectMessage.namespaceNotPermitted(app.metadata.name ?? "", appNamespace, project.metadata.name ?? "");
    return [{ type: "UnknownError", message }];
  }
  const effective = projectWithScopedResources(project, { clusters: input.clusters, repositories: input.projectRepositories ?? [] });
  return permissionConditions(app.spec, effective, { clusters: input.clusters, inClusterEnabled: input.inClusterEnabled });
}
