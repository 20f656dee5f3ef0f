/**
 * Builders for the controller's tests: ApplicationSets, rendered and live Applications, cluster
 * lists and snapshots with sensible defaults and overrides. Used by tests only.
 */
import { GROUP_VERSION, Kind, type Application, type ApplicationSet, type Cluster } from "../../src/api/index.js";
import type { RenderedApplication } from "../../src/generators/applications.js";
import { ownerReferenceOf } from "../../src/controller/desired.js";
import { DEFAULT_PLAN_SETTINGS, type AppSetSnapshot, type Generation, type PlanSettings } from "../../src/controller/snapshot.js";

/** The namespace test objects live in. */
export const NS = "argocd";
/** The in-cluster server. */
export const LOCAL = "https://kubernetes.default.svc";

/** An ApplicationSet named `name` with a List generator; `spec` fields override. */
export function appSet(
  name = "guestbook",
  over: { spec?: Partial<ApplicationSet["spec"]>; metadata?: Partial<ApplicationSet["metadata"]>; status?: ApplicationSet["status"] } = {},
): ApplicationSet {
  return {
    apiVersion: GROUP_VERSION,
    kind: Kind.ApplicationSet,
    metadata: { name, namespace: NS, uid: `uid-${name}`, resourceVersion: "10", ...over.metadata },
    spec: {
      generators: [{ list: { elements: [] } }],
      template: { metadata: { name: "{{name}}" }, spec: { project: "default", destination: { server: LOCAL } } },
      ...over.spec,
    },
    ...(over.status ? { status: over.status } : {}),
  };
}

/** The spec the builders give Applications unless told otherwise. */
export function appSpec(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    project: "default",
    source: { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook", targetRevision: "HEAD" },
    destination: { server: LOCAL, namespace: "guestbook" },
    ...over,
  };
}

/** A rendered Application (what the generators produce). */
export function rendered(
  name: string,
  over: { spec?: Record<string, unknown>; metadata?: Record<string, unknown> } = {},
): RenderedApplication {
  return {
    apiVersion: GROUP_VERSION,
    kind: Kind.Application,
    metadata: { name, namespace: NS, finalizers: ["resources-finalizer.argocd.argoproj.io"], ...over.metadata },
    spec: appSpec(over.spec) as RenderedApplication["spec"],
  };
}

/** A live Application owned by `owner` (or by nothing when owner is null). */
export function live(
  name: string,
  owner: ApplicationSet | null,
  over: { spec?: Record<string, unknown>; metadata?: Partial<Application["metadata"]>; status?: Application["status"] } = {},
): Application {
  return {
    apiVersion: GROUP_VERSION,
    kind: Kind.Application,
    metadata: {
      name,
      namespace: NS,
      uid: `uid-app-${name}`,
      resourceVersion: "5",
      finalizers: ["resources-finalizer.argocd.argoproj.io"],
      ...(owner ? { ownerReferences: [ownerReferenceOf(owner)] } : {}),
      ...over.metadata,
    },
    spec: appSpec(over.spec) as Application["spec"],
    ...(over.status ? { status: over.status } : {}),
  };
}

/** A cluster decoded from a Secret. */
export function cluster(name: string, server: string): Cluster {
  return {
    name,
    server,
    project: "",
    namespaces: [],
    clusterResources: false,
    config: {},
    labels: {},
    annotations: {},
    secretName: `cluster-${name}`,
  };
}

/** A successful generation of `apps`. */
export function generated(apps: RenderedApplication[], requeueAfterMs = 0): Generation {
  return { ok: true, apps, requeueAfterMs };
}

/** A snapshot; `live` defaults to the owned Applications. */
export function snapshot(over: Partial<AppSetSnapshot> & { appSet: ApplicationSet }): AppSetSnapshot {
  const owned = over.owned ?? [];
  return {
    generation: generated([]),
    owned,
    live: new Map(owned.map((a) => [a.metadata.name ?? "", a])),
    projects: new Set(["default"]),
    clusters: [],
    ...over,
  };
}

/** Plan settings with overrides. */
export function settings(over: Partial<PlanSettings> = {}): PlanSettings {
  return { ...DEFAULT_PLAN_SETTINGS, ...over };
}
