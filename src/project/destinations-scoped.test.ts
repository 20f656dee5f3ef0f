import { describe, expect, it } from "vitest";
import type { AppProject, ProjectDestination } from "../api/appproject.js";
import type { ProjectCluster } from "./clusters.js";
import { isDestinationPermitted } from "./destinations.js";

const IN = "https://kubernetes.default.svc";

/** A project named "proj" with these destinations. */
function project(destinations: ProjectDestination[], permitOnlyProjectScopedClusters?: boolean): AppProject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "AppProject",
    metadata: { name: "proj" },
    spec: { destinations, ...(permitOnlyProjectScopedClusters === undefined ? {} : { permitOnlyProjectScopedClusters }) },
  };
}

describe("isDestinationPermitted with permitOnlyProjectScopedClusters", () => {
  const scoped = (c: Partial<ProjectCluster>): ProjectCluster => ({ server: "", name: "", project: "proj", ...c });
  it.each([
    // dests: the project's destinations
    // clusters: the known clusters
    // server/cluster: the destination's cluster
    // permitted: expected
    {
      name: "a matching destination without a scoped cluster is refused",
      dests: [{ server: "https://team1-*", namespace: "default" }],
      clusters: [],
      server: "https://team1-something.com",
      cluster: "",
      permitted: false,
    },
    {
      name: "a matching destination on a scoped cluster is permitted",
      dests: [{ server: "https://my-cluster.123.com", namespace: "default" }],
      clusters: [scoped({ server: "https://my-cluster.123.com" })],
      server: "https://my-cluster.123.com",
      cluster: "",
      permitted: true,
    },
    {
      name: "an unmatched destination stays refused with a scoped cluster",
      dests: [{ server: "https://my-cluster.123.com", namespace: "default" }],
      clusters: [scoped({ server: "https://my-cluster.123.com" })],
      server: "https://some-other-cluster.example.com",
      cluster: "",
      permitted: false,
    },
    {
      name: "a destination by name without a scoped cluster is refused",
      dests: [{ name: "some-server", namespace: "default" }],
      clusters: [],
      server: "",
      cluster: "some-server",
      permitted: false,
    },
    {
      name: "a destination by name on a scoped cluster of that name is permitted",
      dests: [{ name: "some-other-server", namespace: "default" }],
      clusters: [scoped({ name: "some-other-server" })],
      server: "",
      cluster: "some-other-server",
      permitted: true,
    },
    {
      name: "a cluster scoped to another project does not count",
      dests: [{ server: "https://my-cluster.123.com", namespace: "default" }],
      clusters: [scoped({ server: "https://my-cluster.123.com", project: "other" })],
      server: "https://my-cluster.123.com",
      cluster: "",
      permitted: false,
    },
  ])("$name", ({ dests, clusters, server, cluster, permitted }) => {
    const resolved = { cluster: { server, name: cluster }, namespace: "default" };
    expect(isDestinationPermitted(project(dests, true), resolved, clusters)).toBe(permitted);
  });
});

describe("isDestinationPermitted with clusters scoped to the project", () => {
  const prod = { server: "https://prod.example.com", name: "prod" };
  it.each([
    // clusterProject: the project the prod cluster is scoped to
    // namespaces: the namespaces the prod cluster is limited to
    // namespace: the target namespace
    // permitted: expected
    {
      name: "a cluster scoped to the project is permitted without an entry",
      clusterProject: "proj",
      namespaces: [],
      namespace: "web",
      permitted: true,
    },
    { name: "a cluster scoped to another project is not", clusterProject: "other", namespaces: [], namespace: "web", permitted: false },
    {
      name: "a scoped cluster limited to namespaces permits those",
      clusterProject: "proj",
      namespaces: ["web"],
      namespace: "web",
      permitted: true,
    },
    {
      name: "a scoped cluster limited to namespaces refuses the others",
      clusterProject: "proj",
      namespaces: ["web"],
      namespace: "db",
      permitted: false,
    },
  ])("$name", ({ clusterProject, namespaces, namespace, permitted }) => {
    const clusters: ProjectCluster[] = [{ ...prod, project: clusterProject, namespaces }];
    expect(isDestinationPermitted(project([{ server: IN, namespace: "*" }]), { cluster: prod, namespace }, clusters)).toBe(permitted);
  });
});
