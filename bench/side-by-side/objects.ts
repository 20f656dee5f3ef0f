/**
 * The objects the side-by-side benchmark creates: ApplicationSets with List generators (one large,
 * or many of 100), ApplicationSets with Cluster generators over labelled cluster Secrets, and the
 * Applications of the floor. Both controllers get byte-identical objects.
 */
import { emptyApplicationStatus, Finalizer } from "../../src/api/index.js";
import type { KubeObject } from "../../src/kube/index.js";

const SOURCE = { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook", targetRevision: "HEAD" };

/** `prefix-00042`. */
export const numbered = (prefix: string, i: number): string => `${prefix}-${String(i).padStart(5, "0")}`;

/** An ApplicationSet whose List generator yields Applications `prefix-<from>` … `prefix-<to - 1>`. */
export function listAppSet(name: string, namespace: string, prefix: string, from: number, to: number): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name, namespace },
    spec: {
      generators: [{ list: { elements: Array.from({ length: to - from }, (_, i) => ({ n: numbered(prefix, from + i) })) } }],
      template: {
        metadata: { name: "{{n}}" },
        spec: { project: "default", source: SOURCE, destination: { server: "https://kubernetes.default.svc", namespace: "{{n}}" } },
      },
    },
  };
}

/** The label of a cluster Secret that the cluster ApplicationSets select on. */
export const GROUP_LABEL = "bench-group";
/** The label whose value the cluster ApplicationSets copy into their Applications. */
export const ENV_LABEL = "bench-env";

/** A cluster Secret `cluster-<i>` in group `g<i>`, with `bench-env` = `env`. */
export function clusterSecret(namespace: string, i: number, env: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: numbered("cluster", i),
      namespace,
      labels: { "argocd.argoproj.io/secret-type": "cluster", [GROUP_LABEL]: `g${String(i)}`, [ENV_LABEL]: env },
    },
    stringData: { name: numbered("cluster", i), server: `https://cluster-${String(i)}.example.com`, config: "{}" },
  };
}

/** ApplicationSet `c-<j>`: a Cluster generator over group `g<j mod groups>`, one Application per cluster. */
export function clusterAppSet(namespace: string, j: number, groups: number): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: numbered("c", j), namespace },
    spec: {
      generators: [{ clusters: { selector: { matchLabels: { [GROUP_LABEL]: `g${String(j % groups)}` } } } }],
      template: {
        metadata: { name: `${numbered("c", j)}-{{name}}`, labels: { [ENV_LABEL]: `{{metadata.labels.${ENV_LABEL}}}` } },
        spec: { project: "default", source: SOURCE, destination: { server: "{{server}}", namespace: "default" } },
      },
    },
  };
}

/**
 * An Application as the floor creates it: what both controllers create for element `name` of the
 * List ApplicationSet `owner` (Argo CD's resources finalizer, the controller owner reference and
 * Argo CD's empty status), so the apiserver and the garbage collector do the same work for it.
 */
export function floorApp(name: string, namespace: string, owner: KubeObject): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: {
      name,
      namespace,
      finalizers: [Finalizer.Resources],
      ownerReferences: [
        {
          apiVersion: "argoproj.io/v1alpha1",
          kind: "ApplicationSet",
          name: owner.metadata?.name ?? "",
          uid: owner.metadata?.uid ?? "",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { project: "default", source: SOURCE, destination: { server: "https://kubernetes.default.svc", namespace: name } },
    status: emptyApplicationStatus(),
  };
}

/** The `default` AppProject both controllers validate against. */
export function defaultProject(namespace: string): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "AppProject",
    metadata: { name: "default", namespace },
    spec: { sourceRepos: ["*"], destinations: [{ server: "*", namespace: "*" }], clusterResourceWhitelist: [{ group: "*", kind: "*" }] },
  };
}

/** ApplicationSet `git`: a Git directories generator over `apps/*` of `repoURL`, one Application per directory. */
export function gitAppSet(namespace: string, repoURL: string): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "git", namespace },
    spec: {
      generators: [{ git: { repoURL, revision: "HEAD", directories: [{ path: "apps/*" }] } }],
      template: {
        metadata: { name: "{{path.basename}}" },
        spec: {
          project: "default",
          source: { repoURL, targetRevision: "HEAD", path: "{{path}}" },
          destination: { server: "https://kubernetes.default.svc", namespace: "{{path.basename}}" },
        },
      },
    },
  };
}

/** A GitHub push event for `main` of the repository at `url` (`http://host/<name>.git`). */
export function githubPush(url: string, after: string): unknown {
  const html = url.replace(/\.git$/, "");
  const name = html.slice(html.lastIndexOf("/") + 1);
  return {
    ref: "refs/heads/main",
    before: "0".repeat(40),
    after,
    repository: { name, full_name: `bench/${name}`, owner: { login: "bench" }, html_url: html, clone_url: url, default_branch: "main" },
    commits: [{ id: after, added: [], modified: [], removed: [] }],
  };
}
