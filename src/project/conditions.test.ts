import { describe, expect, it } from "vitest";
import type { Application, ApplicationSpec } from "../api/application.js";
import type { AppProject, AppProjectSpec } from "../api/appproject.js";
import type { ProjectCluster } from "./clusters.js";
import { projectConditions, type ProjectCondition } from "./conditions.js";

const IN = "https://kubernetes.default.svc";
const REPO = "https://github.com/argoproj/argo-cd";
const prod: ProjectCluster = { server: "https://prod.example.com", name: "prod" };
const known: ProjectCluster[] = [{ server: IN, name: "in-cluster" }, prod];

/** A project "proj" allowing REPO and every namespace of the in-cluster server, with `spec` merged in. */
function project(spec: AppProjectSpec = {}): AppProject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "AppProject",
    metadata: { name: "proj", namespace: "argocd" },
    spec: { sourceRepos: [REPO], destinations: [{ server: IN, namespace: "*" }], ...spec },
  };
}

/** An Application "app" in argocd of project "proj", with `spec` merged in. */
function app(spec: Partial<ApplicationSpec> = {}, namespace = "argocd"): Pick<Application, "metadata" | "spec"> {
  return {
    metadata: { name: "app", namespace },
    spec: { project: "proj", source: { repoURL: REPO, path: "." }, destination: { server: IN, namespace: "default" }, ...spec },
  };
}

const invalid = (message: string): ProjectCondition => ({ type: "InvalidSpecError", message });

interface Row {
  name: string;
  app: Pick<Application, "metadata" | "spec">;
  project: AppProject | undefined;
  clusters?: ProjectCluster[];
  inCluster?: boolean;
  repositories?: string[];
  expected: ProjectCondition[];
}

const projectRows: Row[] = [
  // app: the Application refreshed
  // project: its AppProject, undefined when not found
  // clusters: the known clusters (default: in-cluster and prod)
  // inCluster: whether the in-cluster destination is enabled (default: yes)
  // repositories: the repositories scoped to the project
  // expected: the conditions, in order
  { name: "an allowed Application has no conditions", app: app(), project: project(), expected: [] },
  {
    name: "a missing project is an invalid spec naming spec.project as written",
    app: app({ project: "" }),
    project: undefined,
    expected: [invalid("Application referencing project  which does not exist")],
  },
  {
    name: "a namespace the project does not take Applications from is an unknown error",
    app: app({}, "team-a"),
    project: project(),
    expected: [{ type: "UnknownError", message: "application 'app' in namespace 'team-a' is not permitted to use project 'proj'" }],
  },
  {
    name: "a namespace listed in sourceNamespaces is taken",
    app: app({}, "team-a"),
    project: project({ sourceNamespaces: ["team-*"] }),
    expected: [],
  },
];

const sourceRows: Row[] = [
  {
    name: "a source repository the project does not allow is an invalid spec",
    app: app({ source: { repoURL: "http://some/where", path: "." } }),
    project: project(),
    expected: [invalid("application repo http://some/where is not permitted in project 'proj'")],
  },
  {
    name: "a repository scoped to the project is allowed",
    app: app({ source: { repoURL: "http://some/where", path: "." } }),
    project: project(),
    repositories: ["http://some/where"],
    expected: [],
  },
  {
    name: "a source without a path or a chart ends the check before the destination",
    app: app({ source: { repoURL: REPO }, destination: {} }),
    project: project(),
    expected: [invalid("spec.source.repoURL and either spec.source.path or spec.source.chart are required")],
  },
  {
    name: "each refused repository of several sources is reported, then the destination",
    app: app({
      source: undefined,
      sources: [
        { repoURL: "http://a", path: "." },
        { repoURL: REPO, path: "." },
        { repoURL: "http://b", ref: "values" },
      ],
      destination: { server: IN, namespace: "default" },
    }),
    project: project({ destinations: [] }),
    expected: [
      invalid("application repo http://a is not permitted in project 'proj'"),
      invalid("application repo http://b is not permitted in project 'proj'"),
      invalid(
        `application destination server '${IN}' and namespace 'default' do not match any of the allowed destinations in project 'proj'`,
      ),
    ],
  },
  {
    name: "a malformed one of several sources keeps the conditions before it and ends the check",
    app: app({ source: undefined, sources: [{ repoURL: "http://a", path: "." }, { repoURL: REPO }] }),
    project: project(),
    expected: [
      invalid("application repo http://a is not permitted in project 'proj'"),
      invalid(
        `spec.source.repoURL and either source.path, source.chart, or source.ref are required for source {${REPO}   nil nil nil nil    }`,
      ),
    ],
  },
  {
    name: "a hydrator's sync repository the project does not allow is reported as such",
    app: app({
      source: undefined,
      sourceHydrator: {
        drySource: { repoURL: REPO, targetRevision: "HEAD", path: "." },
        syncSource: { repoURL: "https://example.com/sync-repo", targetBranch: "env", path: "." },
      },
    }),
    project: project(),
    expected: [invalid("sync source repo https://example.com/sync-repo is not permitted in project 'proj'")],
  },
];

const destinationRows: Row[] = [
  {
    name: "a destination the project does not allow names the server",
    app: app({ destination: { server: "https://prod.example.com", namespace: "web" } }),
    project: project(),
    expected: [
      invalid(
        "application destination server 'https://prod.example.com' and namespace 'web' do not match any of the allowed destinations in project 'proj'",
      ),
    ],
  },
  {
    name: "a destination by name the project does not allow names the cluster by its name",
    app: app({ destination: { name: "prod", namespace: "web" } }),
    project: project(),
    expected: [
      invalid("application destination server 'prod' and namespace 'web' do not match any of the allowed destinations in project 'proj'"),
    ],
  },
  {
    name: "a cluster scoped to the project is allowed without a destination entry",
    app: app({ destination: { name: "prod", namespace: "web" } }),
    project: project(),
    clusters: [
      { server: IN, name: "in-cluster" },
      { ...prod, project: "proj" },
    ],
    expected: [],
  },
  {
    name: "an unknown cluster name is an invalid spec",
    app: app({ destination: { name: "does-not-exist", namespace: "web" } }),
    project: project(),
    expected: [invalid("there are no clusters with this name: does-not-exist")],
  },
  {
    name: "an empty destination is an invalid spec",
    app: app({ destination: {} }),
    project: project(),
    expected: [invalid("Destination server missing from app spec")],
  },
  {
    name: "the in-cluster destination while disabled is an invalid spec",
    app: app(),
    project: project(),
    inCluster: false,
    expected: [invalid(`error getting cluster by server "${IN}": rpc error: code = NotFound desc = cluster "${IN}" is disabled`)],
  },
  {
    name: "source and destination conditions come in that order",
    app: app({ source: { repoURL: "http://some/where", path: "." }, destination: { server: "https://nowhere", namespace: "x" } }),
    project: project(),
    expected: [
      invalid("application repo http://some/where is not permitted in project 'proj'"),
      invalid('error getting cluster by server "https://nowhere": rpc error: code = NotFound desc = cluster "https://nowhere" not found'),
    ],
  },
];

describe("projectConditions (the conditions a refresh sets from the project)", () => {
  it.each([...projectRows, ...sourceRows, ...destinationRows])("$name", (row) => {
    const out = projectConditions({
      app: row.app,
      project: row.project,
      controllerNamespace: "argocd",
      clusters: row.clusters ?? known,
      inClusterEnabled: row.inCluster ?? true,
      projectRepositories: row.repositories ?? [],
    });
    expect(out).toEqual(row.expected);
  });
});
