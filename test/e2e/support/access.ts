/**
 * Acting as the controller's ServiceAccount on a real apiserver: a short-lived token from the
 * TokenRequest API, a client that authenticates with it, one request per RBAC attribute set, and
 * the apiserver's own access reviews (SelfSubjectAccessReview as the ServiceAccount,
 * SubjectAccessReview about it).
 */
import { KubeConfig } from "@kubernetes/client-node";
import { KubeApiClient, KubeTransport, resourcePath, type ResourceDescriptor } from "../../../src/kube/index.js";

/** The attributes RBAC decides on. */
export interface Access {
  readonly verb: "get" | "list" | "watch" | "create" | "update" | "patch" | "delete";
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  /** Absent for cluster-scoped resources or requests across all namespaces. */
  readonly namespace?: string;
  readonly name?: string;
}

const VERSIONS: Record<string, string> = {
  "": "v1",
  "argoproj.io": "v1alpha1",
  "coordination.k8s.io": "v1",
  "progressivesync.appset.dev": "v1alpha1",
};
const CLUSTER_SCOPED = new Set(["namespaces", "nodes", "clusterroles"]);

/**
 * A KubeConfig acting as `serviceAccount` in `namespace` on the cluster of `kubeconfigPath`, with a
 * token from the TokenRequest API (valid one hour).
 */
export async function serviceAccountKubeConfig(
  admin: KubeApiClient,
  kubeconfigPath: string,
  namespace: string,
  serviceAccount: string,
): Promise<KubeConfig> {
  const review = (await admin.transport.request({
    method: "POST",
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`,
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  })) as { status: { token: string } };
  const base = new KubeConfig();
  base.loadFromFile(kubeconfigPath);
  const cluster = base.getCurrentCluster();
  if (cluster === null) throw new Error("the kubeconfig has no current cluster");
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: serviceAccount, token: review.status.token }],
    contexts: [{ name: serviceAccount, cluster: cluster.name, user: serviceAccount, namespace }],
    currentContext: serviceAccount,
  });
  return kc;
}

/** A client acting as `serviceAccount` in `namespace`, with a token from the TokenRequest API. */
export async function serviceAccountClient(
  admin: KubeApiClient,
  kubeconfigPath: string,
  namespace: string,
  serviceAccount: string,
): Promise<KubeApiClient> {
  return new KubeApiClient(new KubeTransport(await serviceAccountKubeConfig(admin, kubeconfigPath, namespace, serviceAccount)));
}

function descriptor(a: Access): ResourceDescriptor {
  const version = VERSIONS[a.group];
  if (version === undefined) throw new Error(`no version known for group ${a.group}`);
  return { group: a.group, version, plural: a.resource, kind: "", namespaced: !CLUSTER_SCOPED.has(a.resource) };
}

/** Issues the one request that needs exactly `a` (the body is minimal: RBAC decides before validation). */
export async function attempt(client: KubeApiClient, a: Access): Promise<unknown> {
  const d = descriptor(a);
  const collection = resourcePath(d, { namespace: a.namespace });
  const item = `${collection}/${a.name ?? "x"}${a.subresource === undefined ? "" : `/${a.subresource}`}`;
  const body = { apiVersion: d.group === "" ? "v1" : `${d.group}/${d.version}`, metadata: { name: a.name ?? "x", namespace: a.namespace } };
  switch (a.verb) {
    case "get":
      return client.transport.request({ method: "GET", path: item });
    case "list":
      return client.transport.request({ method: "GET", path: collection });
    case "watch":
      return client.transport.request({ method: "GET", path: collection, query: { watch: true, timeoutSeconds: 1 } });
    case "create":
      return client.transport.request({ method: "POST", path: collection, body });
    case "update":
      return client.transport.request({ method: "PUT", path: item, body });
    case "patch":
      return client.transport.request({ method: "PATCH", path: item, body: {}, contentType: "application/merge-patch+json" });
    case "delete":
      return client.transport.request({ method: "DELETE", path: item });
  }
}

function resourceAttributes(a: Access): Record<string, string> {
  const out: Record<string, string> = { verb: a.verb, group: a.group, resource: a.resource };
  if (a.subresource !== undefined) out["subresource"] = a.subresource;
  if (a.namespace !== undefined) out["namespace"] = a.namespace;
  if (a.name !== undefined) out["name"] = a.name;
  return out;
}

/** The apiserver's answer to a SelfSubjectAccessReview sent by `client`. */
export async function selfReview(client: KubeApiClient, a: Access): Promise<boolean> {
  const res = (await client.transport.request({
    method: "POST",
    path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    body: { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: { resourceAttributes: resourceAttributes(a) } },
  })) as { status?: { allowed?: boolean } };
  return res.status?.allowed === true;
}

/** The apiserver's answer to a SubjectAccessReview about a ServiceAccount, asked by `admin`. */
export async function subjectReview(admin: KubeApiClient, namespace: string, serviceAccount: string, a: Access): Promise<boolean> {
  const res = (await admin.transport.request({
    method: "POST",
    path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
    body: {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: {
        user: `system:serviceaccount:${namespace}:${serviceAccount}`,
        groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"],
        resourceAttributes: resourceAttributes(a),
      },
    },
  })) as { status?: { allowed?: boolean } };
  return res.status?.allowed === true;
}

/** `verb group/resource[/sub] [ns/name]`, for test names. */
export function describeAccess(a: Access): string {
  const res = `${a.group === "" ? "" : `${a.group}/`}${a.resource}${a.subresource === undefined ? "" : `/${a.subresource}`}`;
  const where = a.namespace === undefined ? "in every namespace" : `in ${a.namespace}`;
  return `${a.verb} ${res}${a.name === undefined ? "" : ` ${a.name}`} ${where}`;
}
