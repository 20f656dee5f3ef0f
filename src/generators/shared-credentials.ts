/**
 * Which ApplicationSets may use credentials of the control plane's namespace that were not given to
 * everyone: the repository Secrets scoped to an AppProject, and the SCM tokens of the process's
 * environment (`GITHUB_TOKEN`, `GITLAB_TOKEN`, `GITEA_TOKEN`). An ApplicationSet in the control
 * plane's namespace may; one elsewhere only when its literal project takes Applications from its
 * namespace (`spec.sourceNamespaces`), the rule that already decides whether its Applications may
 * use that project. Argo CD lets any ApplicationSet name any project here (docs/security.md#credentials).
 */
import type { ApplicationSet, AppProject } from "../api/index.js";
import { isAppNamespacePermitted } from "../project/app-namespace.js";
import type { GeneratorContext } from "./types.js";

/** The spec-level project when it is literal (no `{{`), else undefined. */
export function literalProject(appSet: ApplicationSet): string | undefined {
  const project = appSet.spec.template?.spec?.project ?? "";
  return project.includes("{{") ? undefined : project;
}

/**
 * True when `appSet` may use the shared credentials: it lives in the control plane's namespace (or
 * no namespace is known: an offline preview, on the user's own machine), or its literal project
 * exists and lists its namespace in `sourceNamespaces`. A project that cannot be read denies.
 */
export async function sharedCredentialsAllowed(appSet: ApplicationSet, ctx: GeneratorContext): Promise<boolean> {
  const controllerNamespace = ctx.ports.secrets?.namespace;
  if (lendsSharedCredentials(appSet, undefined, controllerNamespace)) return true;
  const name = literalProject(appSet);
  if (name === undefined || ctx.ports.projects === undefined) return false;
  const project = await ctx.ports.projects.getAppProject(name === "" ? "default" : name, ctx.signal).catch(() => undefined);
  return lendsSharedCredentials(appSet, project, controllerNamespace);
}

/**
 * The rule of {@link sharedCredentialsAllowed} over a project already read (undefined: none), for
 * a caller that has it: the control plane's namespace (or none known), or a namespace the project takes.
 */
export function lendsSharedCredentials(
  appSet: ApplicationSet,
  project: Pick<AppProject, "spec"> | undefined,
  controllerNamespace: string | undefined,
): boolean {
  const namespace = appSet.metadata.namespace ?? "";
  if (controllerNamespace === undefined || namespace === "" || namespace === controllerNamespace) return true;
  return project !== undefined && isAppNamespacePermitted(project, namespace, controllerNamespace);
}
