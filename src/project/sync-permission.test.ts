import { describe, expect, it } from "vitest";
import type { AppProject, AppProjectSpec } from "../api/appproject.js";
import type { ProjectCluster } from "./clusters.js";
import type { DestinationCluster } from "./destinations.js";
import { syncPermissionError, type SyncResource } from "./sync-permission.js";

const IN = "https://kubernetes.default.svc";
const inCluster: DestinationCluster = { server: IN, name: "in-cluster" };

function project(spec: AppProjectSpec): AppProject {
  return { apiVersion: "argoproj.io/v1alpha1", kind: "AppProject", metadata: { name: "proj" }, spec };
}

const deployment = (namespace: string): SyncResource => ({ group: "apps", kind: "Deployment", name: "web", namespace, namespaced: true });

describe("syncPermissionError (the per-resource sync check)", () => {
  it.each([
    // spec: the project's spec
    // resource: the resource synced
    // cluster: the destination cluster
    // clusters: the known clusters
    // error: the expected refusal, undefined when permitted
    {
      name: "a namespaced resource in an allowed namespace is permitted",
      spec: { destinations: [{ server: IN, namespace: "web" }] },
      resource: deployment("web"),
      cluster: inCluster,
      clusters: [],
      error: undefined,
    },
    {
      name: "a kind the apiserver does not serve is refused",
      spec: {},
      resource: { group: "example.com", kind: "Widget", name: "w", namespace: "web", namespaced: undefined },
      cluster: inCluster,
      clusters: [],
      error: "failed to get API resource info for example.com/Widget: unable to verify permissions",
    },
    {
      name: "a blacklisted kind is refused",
      spec: { destinations: [{ server: IN, namespace: "*" }], namespaceResourceBlacklist: [{ group: "apps", kind: "Deployment" }] },
      resource: deployment("web"),
      cluster: inCluster,
      clusters: [],
      error: "resource apps:Deployment is not permitted in project proj",
    },
    {
      name: "a cluster-scoped kind outside the whitelist is refused",
      spec: { destinations: [{ server: IN, namespace: "*" }] },
      resource: { group: "", kind: "Namespace", name: "web", namespace: "", namespaced: false },
      cluster: inCluster,
      clusters: [],
      error: "resource :Namespace is not permitted in project proj",
    },
    {
      name: "a whitelisted cluster-scoped kind skips the namespace check",
      spec: { clusterResourceWhitelist: [{ group: "*", kind: "*" }] },
      resource: { group: "", kind: "Namespace", name: "web", namespace: "", namespaced: false },
      cluster: inCluster,
      clusters: [],
      error: undefined,
    },
    {
      name: "a namespace outside the destinations is refused",
      spec: { destinations: [{ server: IN, namespace: "web" }] },
      resource: deployment("kube-system"),
      cluster: inCluster,
      clusters: [],
      error: "namespace kube-system is not permitted in project 'proj'",
    },
    {
      name: "an empty namespace prints as nothing",
      spec: { destinations: [{ server: IN, namespace: "web" }] },
      resource: deployment(""),
      cluster: inCluster,
      clusters: [],
      error: "namespace  is not permitted in project 'proj'",
    },
    {
      name: "a cluster scoped to the project allows its namespaces",
      spec: {},
      resource: deployment("web"),
      cluster: { server: "https://prod", name: "prod" },
      clusters: [{ server: "https://prod", name: "prod", project: "proj" }],
      error: undefined,
    },
    {
      name: "an unresolved cluster refuses every namespace",
      spec: { destinations: [{ server: "*", namespace: "*" }] },
      resource: deployment("web"),
      cluster: undefined,
      clusters: [],
      error: "namespace web is not permitted in project 'proj'",
    },
  ] satisfies Array<{
    name: string;
    spec: AppProjectSpec;
    resource: SyncResource;
    cluster: DestinationCluster | undefined;
    clusters: ProjectCluster[];
    error: string | undefined;
  }>)("$name", ({ spec, resource, cluster, clusters, error }) => {
    expect(syncPermissionError(project(spec), resource, cluster, clusters)).toBe(error);
  });
});
