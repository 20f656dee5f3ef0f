/**
 * Which namespaces an AppProject takes Applications from (`spec.sourceNamespaces`): an
 * Application in the controller's namespace (or with no namespace yet) always may use the project;
 * one elsewhere only when its namespace matches an entry (a glob, or a `/regex/`). Pure core:
 * facts from Argo CD v3.6.2 (`AppProject.IsAppNamespacePermitted`).
 */
import type { AppProject } from "../api/appproject.js";
import { matchStringInList } from "../glob/index.js";

/**
 * True when an Application in `appNamespace` may use the project: `appNamespace` is empty or the
 * controller's namespace, or it matches an entry of `spec.sourceNamespaces` (Argo CD's pattern
 * list: globs, or `/…/` regular expressions). An empty or absent list admits no other namespace.
 */
export function isAppNamespacePermitted(project: Pick<AppProject, "spec">, appNamespace: string, controllerNamespace: string): boolean {
  if (appNamespace === "" || appNamespace === controllerNamespace) return true;
  return matchStringInList(project.spec.sourceNamespaces ?? [], appNamespace);
}
