import { describe, expect, it } from "vitest";
import type { AppProject } from "../api/appproject.js";
import { projectWithScopedResources, resolveDestinationCluster, type ProjectCluster } from "./clusters.js";

const IN = "https://kubernetes.default.svc";
const prod: ProjectCluster = { server: "https://prod.example.com/", name: "prod", project: "team" };
const twinA: ProjectCluster = { server: "https://a.example.com", name: "twin" };
const twinB: ProjectCluster = { server: "https://b.example.com", name: "twin" };

describe("resolveDestinationCluster (Argo CD's GetDestinationCluster)", () => {
  it.each([
    // destination: the Application's spec.destination
    // clusters: the known clusters
    // inCluster: whether the in-cluster destination is enabled
    // expected: the resolved cluster or the error text
    {
      name: "a destination by server resolves to the cluster with that server, trailing slashes ignored",
      destination: { server: "https://prod.example.com" },
      clusters: [prod],
      inCluster: true,
      expected: { ok: true, cluster: { server: "https://prod.example.com", name: "prod", project: "team" } },
    },
    {
      name: "a destination by name resolves to the cluster with that name",
      destination: { name: "prod" },
      clusters: [prod],
      inCluster: true,
      expected: { ok: true, cluster: { server: "https://prod.example.com", name: "prod", project: "team" } },
    },
    {
      name: "both name and server are refused",
      destination: { name: "prod", server: "https://prod.example.com" },
      clusters: [prod],
      inCluster: true,
      expected: { ok: false, error: "application destination can't have both name and server defined: prod https://prod.example.com" },
    },
    {
      name: "neither name nor server is refused",
      destination: { namespace: "default" },
      clusters: [prod],
      inCluster: true,
      expected: { ok: false, error: "Destination server missing from app spec" },
    },
    {
      name: "an unknown name is refused",
      destination: { name: "staging" },
      clusters: [prod],
      inCluster: true,
      expected: { ok: false, error: "there are no clusters with this name: staging" },
    },
    {
      name: "an unknown server is refused with the database's NotFound status",
      destination: { server: "https://staging.example.com/" },
      clusters: [prod],
      inCluster: true,
      expected: {
        ok: false,
        error:
          'error getting cluster by server "https://staging.example.com/": rpc error: code = NotFound desc = cluster "https://staging.example.com" not found',
      },
    },
    {
      name: "a name shared by several clusters is refused with their servers",
      destination: { name: "twin" },
      clusters: [twinA, twinB],
      inCluster: true,
      expected: { ok: false, error: "there are 2 clusters with the same name: [https://a.example.com https://b.example.com]" },
    },
    {
      name: "the in-cluster server resolves without a cluster Secret",
      destination: { server: IN },
      clusters: [],
      inCluster: true,
      expected: { ok: true, cluster: { server: IN, name: "in-cluster" } },
    },
    {
      name: "the in-cluster name resolves without a cluster Secret",
      destination: { name: "in-cluster" },
      clusters: [],
      inCluster: true,
      expected: { ok: true, cluster: { server: IN, name: "in-cluster" } },
    },
    {
      name: "a Secret for the in-cluster server gives its own name",
      destination: { server: IN },
      clusters: [{ server: IN, name: "local" }],
      inCluster: true,
      expected: { ok: true, cluster: { server: IN, name: "local" } },
    },
    {
      name: "the in-cluster server is refused while disabled",
      destination: { server: IN },
      clusters: [{ server: IN, name: "in-cluster" }],
      inCluster: false,
      expected: {
        ok: false,
        error: `error getting cluster by server "${IN}": rpc error: code = NotFound desc = cluster "${IN}" is disabled`,
      },
    },
    {
      name: "the in-cluster name is unknown while disabled",
      destination: { name: "in-cluster" },
      clusters: [{ server: IN, name: "in-cluster" }],
      inCluster: false,
      expected: { ok: false, error: "there are no clusters with this name: in-cluster" },
    },
    {
      name: "a name whose Secret points at the disabled in-cluster server is unknown",
      destination: { name: "local" },
      clusters: [{ server: IN, name: "local" }],
      inCluster: false,
      expected: { ok: false, error: "there are no clusters with this name: local" },
    },
  ])("$name", ({ destination, clusters, inCluster, expected }) => {
    expect(resolveDestinationCluster(destination, { clusters, inClusterEnabled: inCluster })).toEqual(expected);
  });
});

describe("projectWithScopedResources (what a project's clusters and repositories add)", () => {
  const base: AppProject = {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "AppProject",
    metadata: { name: "team" },
    spec: { sourceRepos: ["https://git.example.com/a"], destinations: [{ server: IN, namespace: "team" }] },
  };

  it("adds a destination of every namespace for a scoped cluster without namespaces", () => {
    const out = projectWithScopedResources(base, { clusters: [prod, twinA] });
    expect(out.spec.destinations).toEqual([
      { server: IN, namespace: "team" },
      { server: "https://prod.example.com", namespace: "*" },
    ]);
  });

  it("adds a destination per namespace of a scoped cluster limited to namespaces", () => {
    const limited: ProjectCluster = { ...prod, namespaces: ["a", "b"] };
    const out = projectWithScopedResources(base, { clusters: [limited] });
    expect(out.spec.destinations?.slice(1)).toEqual([
      { server: "https://prod.example.com", namespace: "a" },
      { server: "https://prod.example.com", namespace: "b" },
    ]);
  });

  it("appends the scoped repositories to the source repositories and leaves the input alone", () => {
    const out = projectWithScopedResources(base, { clusters: [], repositories: ["https://git.example.com/b"] });
    expect(out.spec.sourceRepos).toEqual(["https://git.example.com/a", "https://git.example.com/b"]);
    expect(base.spec.sourceRepos).toEqual(["https://git.example.com/a"]);
  });

  it("returns the project itself when nothing is scoped to it", () => {
    expect(projectWithScopedResources(base, { clusters: [twinA] })).toBe(base);
  });
});
