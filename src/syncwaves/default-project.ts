/**
 * The `default` AppProject, as Argo CD's API server creates it when it starts and finds none: every
 * repository, every destination, every cluster-scoped kind. Without Argo CD installed nothing else
 * would create it, and the project gate refuses an Application whose project does not exist; an
 * existing `default` project is never changed.
 *
 * I/O boundary: one create through the given client.
 */
import { GROUP_VERSION, type AppProject } from "../api/index.js";
import { isAlreadyExists, resources, type KubeClient } from "../kube/index.js";

/** Argo CD's default project of `namespace`. */
export function defaultProject(namespace: string): AppProject {
  return {
    apiVersion: GROUP_VERSION,
    kind: "AppProject",
    metadata: { name: "default", namespace },
    spec: {
      sourceRepos: ["*"],
      destinations: [{ server: "*", namespace: "*" }],
      clusterResourceWhitelist: [{ group: "*", kind: "*" }],
    },
  };
}

/** Creates the `default` AppProject in `namespace` unless one exists; true when it created it. */
export async function ensureDefaultProject(client: Pick<KubeClient, "create">, namespace: string): Promise<boolean> {
  try {
    await client.create(resources.AppProjects, defaultProject(namespace));
    return true;
  } catch (err) {
    if (isAlreadyExists(err)) return false;
    throw err;
  }
}
