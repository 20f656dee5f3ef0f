import { describe, expect, it } from "vitest";
import type { AppProject, Application, Cluster } from "../api/index.js";
import type { KubeObject } from "../kube/index.js";
import { judgeProject, projectErrorStatus, projectOperationMessage, type ProjectSettings } from "./project-gate.js";
import { inClusterEnabled } from "./project-settings.js";
import { signatureNotSupportedMessage } from "./source-integrity.js";

const NOW = Date.UTC(2030, 0, 1);
const IN_CLUSTER = "https://kubernetes.default.svc";

const app = (over: Partial<Application["spec"]> = {}, namespace = "argocd"): Application => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "Application",
  metadata: { name: "guestbook", namespace },
  spec: {
    project: "team",
    source: { repoURL: "https://git.example.com/team/apps.git", path: "guestbook", targetRevision: "main" },
    destination: { server: IN_CLUSTER, namespace: "team-ns" },
    ...over,
  },
});

const project = (spec: AppProject["spec"], name = "team"): AppProject => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "AppProject",
  metadata: { name, namespace: "argocd" },
  spec,
});

/** The team's project: its repository, its namespace on the local cluster, ConfigMaps only. */
const TEAM = project({
  sourceRepos: ["https://git.example.com/team/*"],
  destinations: [{ server: IN_CLUSTER, namespace: "team-ns" }],
  namespaceResourceWhitelist: [{ group: "", kind: "ConfigMap" }],
});

const settings = (
  over: { projects?: AppProject[]; clusters?: Cluster[]; inCluster?: boolean; repos?: string[] } = {},
): ProjectSettings => ({
  namespace: "argocd",
  project: (name) => (over.projects ?? [TEAM]).find((p) => p.metadata.name === name),
  clusters: () => over.clusters ?? [],
  inClusterEnabled: () => over.inCluster ?? true,
  impersonationEnabled: () => false,
  impersonationEnforced: () => true,
  projectRepositories: () => over.repos ?? [],
});

const obj = (kind: string, namespace: string | undefined, apiVersion = "v1", name = "x"): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
});

describe("the project gate before a comparison", () => {
  it.each([
    {
      name: "lets a permitted Application through",
      app: app(),
      settings: settings(),
      conditions: [],
      loadError: undefined,
    },
    {
      name: "refuses a missing project with Argo CD's condition and load error",
      app: app({ project: "nope" }),
      settings: settings(),
      conditions: ["InvalidSpecError: Application referencing project nope which does not exist"],
      loadError: 'error getting app project "nope": appproject.argoproj.io "nope" not found',
    },
    {
      name: "refuses a namespace the project's sourceNamespaces do not list",
      app: app({}, "team-a"),
      settings: settings(),
      conditions: ["UnknownError: application 'guestbook' in namespace 'team-a' is not permitted to use project 'team'"],
      loadError: "application 'guestbook' in namespace 'team-a' is not permitted to use project 'team'",
    },
    {
      name: "refuses a repository outside sourceRepos",
      app: app({ source: { repoURL: "https://git.example.com/other/apps.git", path: "x" } }),
      settings: settings(),
      conditions: ["InvalidSpecError: application repo https://git.example.com/other/apps.git is not permitted in project 'team'"],
      loadError: undefined,
    },
    {
      name: "takes a repository scoped to the project as permitted",
      app: app({ source: { repoURL: "https://git.example.com/other/apps.git", path: "x" } }),
      settings: settings({ repos: ["https://git.example.com/other/apps.git"] }),
      conditions: [],
      loadError: undefined,
    },
    {
      name: "refuses a destination namespace outside the destinations",
      app: app({ destination: { server: IN_CLUSTER, namespace: "kube-system" } }),
      settings: settings(),
      conditions: [
        `InvalidSpecError: application destination server '${IN_CLUSTER}' and namespace 'kube-system' do not match any of the allowed destinations in project 'team'`,
      ],
      loadError: undefined,
    },
    {
      name: "refuses the in-cluster destination when argocd-cm turns it off",
      app: app(),
      settings: settings({ inCluster: false }),
      conditions: [
        `InvalidSpecError: error getting cluster by server "${IN_CLUSTER}": rpc error: code = NotFound desc = cluster "${IN_CLUSTER}" is disabled`,
      ],
      loadError: undefined,
    },
  ])("$name", ({ app: a, settings: s, conditions, loadError }) => {
    const verdict = judgeProject(a, s);
    expect(verdict.conditions.map((c) => `${c.type}: ${c.message}`)).toEqual(conditions);
    expect(verdict.loadError).toBe(loadError);
  });
});

describe("the project gate on signed sources, which this engine cannot verify", () => {
  const signed = (over: Partial<AppProject["spec"]>): ProjectSettings => settings({ projects: [project({ ...TEAM.spec, ...over })] });
  const policy = (mode: string) => ({ git: { policies: [{ repos: [{ url: "*" }], gpg: { mode, keys: ["4AEE18F83AFDEB23"] } }] } });
  const chart = { repoURL: "https://charts.example.com", chart: "web", targetRevision: "1.0.0" };
  it.each<{ name: string; over: Partial<AppProject["spec"]>; a: Application; refused: "signatureKeys" | "sourceIntegrity" | undefined }>([
    // over: the project's signature fields; a: the Application; refused: the field the ComparisonError names, if any
    {
      name: "refuses a Git source when signatureKeys are set",
      over: { signatureKeys: [{ keyID: "4AEE18F83AFDEB23" }] },
      a: app(),
      refused: "signatureKeys",
    },
    {
      name: "refuses a Git source when a sourceIntegrity policy checks heads",
      over: { sourceIntegrity: policy("head") },
      a: app(),
      refused: "sourceIntegrity",
    },
    {
      name: "refuses when one of several sources is from Git",
      over: { sourceIntegrity: policy("strict") },
      a: app({ source: undefined, sources: [chart, { repoURL: "https://git.example.com/team/apps.git", path: "x" }] }),
      refused: "sourceIntegrity",
    },
    { name: "lets a project without signature requirements through", over: { signatureKeys: [] }, a: app(), refused: undefined },
    {
      name: "lets a policy whose GnuPG mode is none through, as Argo CD checks nothing then",
      over: { sourceIntegrity: policy("none") },
      a: app(),
      refused: undefined,
    },
    {
      name: "lets a Helm repository chart through, as Argo CD checks only Git sources",
      over: { signatureKeys: [{ keyID: "4AEE18F83AFDEB23" }] },
      a: app({ source: chart, project: "team" }),
      refused: undefined,
    },
  ])("$name", ({ over, a, refused }) => {
    const s = signed({ ...over, sourceRepos: ["*"] });
    const verdict = judgeProject(a, s);
    const want = refused === undefined ? [] : [`ComparisonError: ${signatureNotSupportedMessage("team", refused)}`];
    expect(verdict.conditions.map((c) => `${c.type}: ${c.message}`)).toEqual(want);
    if (refused !== undefined) {
      expect({ live: verdict.livePermitted(obj("ConfigMap", "team-ns")), operation: projectOperationMessage(verdict) }).toEqual({
        live: false,
        operation: want[0],
      });
    }
  });

  it("says so in plain words, replaces an older comparison error, and is reported after a permission refusal", () => {
    expect(signatureNotSupportedMessage("team", "signatureKeys")).toContain(
      "GPG signature verification is not supported by this sync engine",
    );
    const s = signed({ signatureKeys: [{ keyID: "4AEE18F83AFDEB23" }] });
    const a: Application = {
      ...app(),
      status: { conditions: [{ type: "ComparisonError", message: "an old one", lastTransitionTime: "2029-01-01T00:00:00Z" }] },
    };
    expect(projectErrorStatus(a, judgeProject(a, s), NOW).conditions?.map((c) => c.type + ": " + c.message)).toEqual([
      `ComparisonError: ${signatureNotSupportedMessage("team", "signatureKeys")}`,
    ]);
    const outside = judgeProject(app({ destination: { server: IN_CLUSTER, namespace: "kube-system" } }), s);
    expect(outside.conditions.map((c) => c.type)).toEqual(["InvalidSpecError"]);
  });
});

describe("the project gate on each object of a sync", () => {
  const verdict = judgeProject(app(), settings());

  it.each([
    // object; whether its kind is namespaced; the refusal (undefined: permitted)
    { name: "a ConfigMap of the destination namespace", o: obj("ConfigMap", "team-ns"), namespaced: true, want: undefined },
    {
      name: "a ConfigMap of another namespace",
      o: obj("ConfigMap", "kube-system"),
      namespaced: true,
      want: "namespace kube-system is not permitted in project 'team'",
    },
    {
      name: "a kind the whitelist leaves out",
      o: obj("Secret", "team-ns"),
      namespaced: true,
      want: "resource :Secret is not permitted in project team",
    },
    {
      name: "a cluster-scoped kind with no clusterResourceWhitelist",
      o: obj("ClusterRoleBinding", undefined, "rbac.authorization.k8s.io/v1"),
      namespaced: false,
      want: "resource rbac.authorization.k8s.io:ClusterRoleBinding is not permitted in project team",
    },
    {
      name: "the namespace CreateNamespace=true would create",
      o: obj("Namespace", undefined),
      namespaced: false,
      want: "resource :Namespace is not permitted in project team",
    },
  ])("$name", ({ o, namespaced, want }) => {
    expect(verdict.objectError(o, namespaced)).toBe(want);
  });

  it("reports a compared resource of a kind the lists refuse as Unknown, whatever its namespace", () => {
    expect(verdict.kindPermitted({ group: "", kind: "Secret" }, "x", true)).toBe(false);
    expect(verdict.kindPermitted({ group: "", kind: "ConfigMap" }, "x", true)).toBe(true);
  });

  it("counts a live object as the Application's only where the project permits it", () => {
    expect(verdict.livePermitted(obj("ConfigMap", "team-ns"))).toBe(true);
    expect(verdict.livePermitted(obj("ConfigMap", "kube-system"))).toBe(false);
    expect(verdict.livePermitted(obj("ClusterRole", undefined, "rbac.authorization.k8s.io/v1"))).toBe(false);
  });

  it("refuses every object and every live object of an Application its project stops", () => {
    const stopped = judgeProject(app({ project: "nope" }), settings());
    expect(stopped.livePermitted(obj("ConfigMap", "team-ns"))).toBe(false);
    expect(stopped.syncWindows).toBeUndefined();
  });

  it("follows an edit of the project at the next judgement", () => {
    const widened = project({ ...TEAM.spec, namespaceResourceWhitelist: [{ group: "", kind: "*" }] });
    expect(judgeProject(app(), settings({ projects: [widened] })).objectError(obj("Secret", "team-ns"), true)).toBeUndefined();
  });
});

describe("what an Application its project stops records", () => {
  it("replaces the gate's conditions, keeps the others, and makes sync and health Unknown", () => {
    const a: Application = {
      ...app({ project: "nope" }),
      status: {
        conditions: [
          { type: "InvalidSpecError", message: "an old refusal", lastTransitionTime: "2029-01-01T00:00:00Z" },
          { type: "SyncError", message: "kept", lastTransitionTime: "2029-01-01T00:00:00Z" },
        ],
        sync: { status: "Synced" },
        health: { status: "Healthy" },
      },
    };
    const status = projectErrorStatus(a, judgeProject(a, settings()), NOW);
    expect(status.conditions?.map((c) => [c.type, c.message])).toEqual([
      ["SyncError", "kept"],
      ["InvalidSpecError", "Application referencing project nope which does not exist"],
    ]);
    expect(status.sync?.status).toBe("Unknown");
    expect(status.health?.status).toBe("Unknown");
  });

  it.each([
    {
      name: "a project that cannot be loaded",
      a: app({ project: "nope" }),
      want: 'Failed to load application project: error getting app project "nope": appproject.argoproj.io "nope" not found',
    },
    {
      name: "a spec the project refuses",
      a: app({ destination: { server: IN_CLUSTER, namespace: "kube-system" } }),
      want: `InvalidSpecError: application destination server '${IN_CLUSTER}' and namespace 'kube-system' do not match any of the allowed destinations in project 'team'`,
    },
    {
      name: "a destination that names no known cluster (the lookup's own words, as Argo CD's comparison fails)",
      a: app({ destination: { name: "nowhere", namespace: "team-ns" } }),
      want: "there are no clusters with this name: nowhere",
    },
  ])("ends a running operation with Argo CD's message for $name", ({ a, want }) => {
    expect(projectOperationMessage(judgeProject(a, settings()))).toBe(want);
  });
});

describe("cluster.inClusterEnabled of argocd-cm", () => {
  it.each([
    { name: "no argocd-cm", cm: undefined, want: true },
    { name: "no key", cm: { data: {} }, want: true },
    { name: '"false"', cm: { data: { "cluster.inClusterEnabled": "false" } }, want: false },
    { name: '"true"', cm: { data: { "cluster.inClusterEnabled": "true" } }, want: true },
  ])("is on with $name unless it says false", ({ cm, want }) => {
    expect(inClusterEnabled(cm as KubeObject | undefined)).toBe(want);
  });
});
