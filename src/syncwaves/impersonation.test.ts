import { describe, expect, it } from "vitest";
import type { AppProject, Application } from "../api/index.js";
import type { KubeObject } from "../kube/index.js";
import { silentLogger } from "../log/logger.js";
import { appProject } from "../../test/unit/syncwaves/builders.js";
import type { ClusterAccess, DestinationResolver } from "./destinations.js";
import { appImpersonation, deletionIdentity, Impersonator, syncIdentity, type AppImpersonation } from "./impersonation.js";
import { judgeProject, type ProjectSettings } from "./project-gate.js";
import { impersonationEnabled, impersonationEnforced } from "./project-settings.js";

const IN_CLUSTER = "https://kubernetes.default.svc";
const REMOTE = "https://10.0.0.1:6443";

const app = (destination: Application["spec"]["destination"] = { server: IN_CLUSTER, namespace: "team-ns" }): Application => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "Application",
  metadata: { name: "guestbook", namespace: "argocd" },
  spec: { project: "team", source: { repoURL: "https://git.example.com/team/apps.git", path: "." }, destination },
});

const project = (accounts: NonNullable<AppProject["spec"]["destinationServiceAccounts"]>): AppProject =>
  appProject({ destinationServiceAccounts: accounts });

const DEPLOYER = [{ server: IN_CLUSTER, namespace: "team-ns", defaultServiceAccount: "deployer" }];

describe("the impersonation settings of argocd-cm", () => {
  const cm = (data: Record<string, string> | undefined): KubeObject | undefined =>
    data === undefined ? undefined : { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "argocd-cm" }, data };
  const rows: Array<{ name: string; data: Record<string, string> | undefined; enabled: boolean; enforced: boolean }> = [
    { name: "no argocd-cm leaves impersonation off and enforced", data: undefined, enabled: false, enforced: true },
    { name: "an empty argocd-cm leaves impersonation off and enforced", data: {}, enabled: false, enforced: true },
    { name: '"true" turns impersonation on', data: { "application.sync.impersonation.enabled": "true" }, enabled: true, enforced: true },
    {
      name: 'any other value than "true" leaves it off',
      data: { "application.sync.impersonation.enabled": "True" },
      enabled: false,
      enforced: true,
    },
    {
      name: '"false" turns enforcement off',
      data: { "application.sync.impersonation.enforced": "false" },
      enabled: false,
      enforced: false,
    },
    {
      name: 'any other value than "false" keeps enforcement on',
      data: { "application.sync.impersonation.enforced": "no" },
      enabled: false,
      enforced: true,
    },
  ];
  it.each(rows)("$name", ({ data, enabled, enforced }) => {
    expect(impersonationEnabled(cm(data))).toBe(enabled);
    expect(impersonationEnforced(cm(data))).toBe(enforced);
  });
});

describe("who writes a sync and a deletion", () => {
  const imp = (accounts: typeof DEPLOYER, enforced = true, destination?: Application["spec"]["destination"]): AppImpersonation =>
    appImpersonation({ project: project(accounts), app: app(destination), cluster: { server: IN_CLUSTER, name: "in-cluster" }, enforced });
  const fallback =
    `no matching service account found for impersonation (project: team, server: ${IN_CLUSTER}, namespace: other), ` +
    "falling back to controller service account";
  it.each([
    {
      name: "impersonation off: the engine writes both",
      imp: undefined,
      sync: { kind: "engine" },
      deletion: { kind: "engine" },
    },
    {
      name: "a matching entry: its account writes both",
      imp: imp(DEPLOYER),
      sync: { kind: "account", user: "system:serviceaccount:team-ns:deployer" },
      deletion: { kind: "account", user: "system:serviceaccount:team-ns:deployer" },
    },
    {
      name: "no matching entry with enforcement: the sync ends in Error, the deletion runs as the engine",
      imp: imp(DEPLOYER, true, { server: IN_CLUSTER, namespace: "other" }),
      sync: { kind: "error", message: `no matching service account found for destination server ${IN_CLUSTER} and namespace other` },
      deletion: { kind: "engine" },
    },
    {
      name: "no matching entry without enforcement: the engine writes both, and the sync logs why",
      imp: imp(DEPLOYER, false, { server: IN_CLUSTER, namespace: "other" }),
      sync: { kind: "engine", fallback },
      deletion: { kind: "engine" },
    },
    {
      name: "an account that cannot be derived stops both with Argo CD's messages",
      imp: imp([{ server: IN_CLUSTER, namespace: "team-ns", defaultServiceAccount: "bad*name" }]),
      sync: {
        kind: "error",
        message: "failed to derive service account to impersonate: default service account contains invalid chars 'bad*name'",
      },
      deletion: {
        kind: "error",
        message:
          "cannot apply impersonation: error deriving service account to impersonate: default service account contains invalid chars 'bad*name'",
      },
    },
  ])("$name", ({ imp: i, sync, deletion }) => {
    expect(syncIdentity(i)).toEqual(sync);
    expect(deletionIdentity(i)).toEqual(deletion);
  });
});

describe("the project gate's verdict on impersonation", () => {
  const settings = (enabled: boolean, accounts = DEPLOYER): ProjectSettings => ({
    namespace: "argocd",
    project: (name) => (name === "team" ? project(accounts) : undefined),
    clusters: () => [],
    inClusterEnabled: () => true,
    impersonationEnabled: () => enabled,
    impersonationEnforced: () => true,
    projectRepositories: () => [],
  });

  it("carries no impersonation while argocd-cm leaves it off", () => {
    expect(judgeProject(app(), settings(false)).impersonation).toBeUndefined();
  });

  it("carries the account of the destination's cluster server while it is on", () => {
    expect(judgeProject(app(), settings(true)).impersonation).toMatchObject({
      project: "team",
      server: IN_CLUSTER,
      namespace: "team-ns",
      sync: { user: "system:serviceaccount:team-ns:deployer" },
    });
  });

  it("carries it for an Application the project refuses, so its deletion still writes as the account", () => {
    const refused = judgeProject(app({ server: IN_CLUSTER, namespace: "team-ns" }), {
      ...settings(true),
      project: (name) => (name === "team" ? { ...project(DEPLOYER), spec: { ...project(DEPLOYER).spec, sourceRepos: [] } } : undefined),
    });
    expect(refused.conditions).not.toEqual([]);
    expect(refused.impersonation?.deletion).toEqual({ account: "system:serviceaccount:team-ns:deployer" });
  });

  it("carries none when the destination's cluster is unknown", () => {
    expect(judgeProject(app({ server: REMOTE, namespace: "team-ns" }), settings(true)).impersonation).toBeUndefined();
  });
});

describe("the access a write goes through", () => {
  const engine = { id: "local", client: {} as ClusterAccess["client"], resolve: () => Promise.reject(new Error("unused")) };
  const asked: Array<string | undefined> = [];
  const destinations: DestinationResolver = {
    access: (_app, options) => {
      asked.push(options?.impersonate);
      if (options?.impersonate === "system:serviceaccount:x:broken")
        return Promise.reject(new Error("cluster local: impersonation is not available"));
      return Promise.resolve({ ...engine, id: `as ${options?.impersonate ?? "engine"}` });
    },
  };
  const impersonator = new Impersonator({ destinations, log: silentLogger() });

  it.each([
    { name: "the engine's identity keeps the engine's access", identity: { kind: "engine" as const }, want: { access: engine }, asked: [] },
    {
      name: "an account reaches the destination as that account",
      identity: { kind: "account" as const, user: "system:serviceaccount:team-ns:deployer" },
      want: { access: { id: "as system:serviceaccount:team-ns:deployer" } },
      asked: ["system:serviceaccount:team-ns:deployer"],
    },
    {
      name: "an error is handed back as the operation's message",
      identity: { kind: "error" as const, message: "no matching service account" },
      want: { error: "no matching service account" },
      asked: [],
    },
    {
      name: "a destination that cannot impersonate is an error too",
      identity: { kind: "account" as const, user: "system:serviceaccount:x:broken" },
      want: { error: "cluster local: impersonation is not available" },
      asked: ["system:serviceaccount:x:broken"],
    },
  ])("$name", async ({ identity, want, asked: wantAsked }) => {
    asked.length = 0;
    expect(await impersonator.writer(app(), engine, identity)).toMatchObject(want);
    expect(asked).toEqual(wantAsked);
  });
});
