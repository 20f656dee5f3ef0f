/**
 * The RBAC of deploy/ on a real apiserver, acting with the controller's ServiceAccount token
 * (TokenRequest API): every call the controller makes succeeds, issued through the project's own
 * client, event sink and leader elector, and what it must not do (write Secrets or ConfigMaps,
 * create or delete ApplicationSets, touch another Lease, reach other namespaces in the namespaced
 * install) is refused with 403. The apiserver's SelfSubjectAccessReview and SubjectAccessReview
 * agree with each outcome. First the namespaced install, then the same ServiceAccount with the
 * cluster-wide ClusterRole added.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ApplicationSet } from "../../src/api/index.js";
import { SystemClock } from "../../src/clock/index.js";
import { KubeEventSink } from "../../src/controller/events.js";
import { KubeApiClient, isForbidden, isTransient, resources, type KubeObject, type ResourceDescriptor } from "../../src/kube/index.js";
import { LEASE_NAME, LeaderElector, Leases, type Lease } from "../../src/leader/index.js";
import { silentLogger } from "../../src/log/logger.js";
import { attempt, selfReview, serviceAccountClient, subjectReview, type Access } from "./support/access.js";
import { Applier, placement } from "./support/kubectl.js";
import { renderKustomization } from "../unit/deploy/kustomize.js";

const { Applications, ApplicationSets, AppProjects, ConfigMaps, Events, Namespaces, Secrets } = resources;
const SA = "argocd-applicationset-controller";
const run = randomBytes(3).toString("hex");
const own = `rbac-${run}`;
const other = `rbac-other-${run}`;
const place = placement(own, run);
// The ClusterRole and its binding as the cluster-wide install renders them (the subject takes the install's namespace there).
const clusterRbac = renderKustomization("deploy/install-cluster-wide")
  .filter((o) => o.kind === "ClusterRole" || o.kind === "ClusterRoleBinding")
  .map(place.object);

let admin: KubeApiClient;
let sa: KubeApiClient;
let applier: Applier;

type Where = "own" | "other" | "all";
type Row = Omit<Access, "namespace"> & { where: Where };
const nsOf = (w: Where): string | undefined => (w === "own" ? own : w === "other" ? other : undefined);
const access = (r: Row): Access => ({ ...r, namespace: nsOf(r.where) });
const rowName = (r: Row): string =>
  `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ""}${r.name ? ` ${r.name}` : ""} in ${r.where === "all" ? "every" : `the ${r.where}`} namespace`;

const appSet = (namespace: string): KubeObject => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "ApplicationSet",
  metadata: { name: "guestbook", namespace },
  spec: {
    generators: [],
    template: {
      metadata: { name: "x" },
      spec: { project: "default", destination: { server: "https://kubernetes.default.svc", namespace: "x" } },
    },
  },
});

beforeAll(async () => {
  const kubeconfig = inject("kubeconfigPath");
  admin = KubeApiClient.fromConfig({ kind: "file", path: kubeconfig });
  applier = new Applier(admin);
  const install = renderKustomization("deploy/install").filter(
    (o) => !["CustomResourceDefinition", "Deployment", "Service", "AppProject"].includes(o.kind),
  );
  await applier.apply(install.map(place.object));
  await admin.create(Namespaces, { metadata: { name: other } });
  for (const namespace of [own, other]) {
    await admin.create(ApplicationSets, appSet(namespace));
    await admin.create(Secrets, { metadata: { name: "scm-token", namespace }, stringData: { token: "t" } });
    await admin.create(ConfigMaps, { metadata: { name: "scm-ca", namespace }, data: { "ca.crt": "x" } });
  }
  await admin.create(AppProjects, { metadata: { name: "default", namespace: own }, spec: {} });
  sa = await serviceAccountClient(admin, kubeconfig, own, SA);
  for (const r of [ApplicationSets, Applications, AppProjects]) await untilListable(r);
  await untilAllowed({ verb: "list", group: "argoproj.io", resource: "applicationsets", namespace: own });
});

afterAll(async () => {
  for (const obj of clusterRbac) await admin.delete(await applier.resourceOf(obj), { name: obj.metadata.name }).catch(() => undefined);
  for (const name of [own, other]) await admin.delete(Namespaces, { name }).catch(() => undefined);
  await sa.transport.close();
  await admin.transport.close();
});

/** A fresh apiserver answers 429 "storage is (re)initializing" until a resource's cache is ready. */
async function untilListable(r: ResourceDescriptor): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await admin.list(r, { namespace: own });
      return;
    } catch (err) {
      if (!isTransient(err) || i >= 100) throw err;
      await sleep(100);
    }
  }
}

/** RBAC reaches the authorizer through a cache: wait until a freshly bound rule takes effect. */
async function untilAllowed(a: Access): Promise<void> {
  for (let i = 0; i < 100 && !(await selfReview(sa, a)); i++) await sleep(100);
}

async function forbidden(request: Promise<unknown>): Promise<boolean> {
  try {
    await request;
    return false;
  } catch (err) {
    if (isForbidden(err)) return true;
    throw err;
  }
}

/** Every call the controller makes, in its namespace or another one. */
async function doesItsJob(ns: string): Promise<void> {
  const key = { namespace: ns, name: "guestbook" };
  // What it caches: in its own namespace also AppProjects, cluster Secrets and ConfigMaps.
  const cached = ns === own ? [ApplicationSets, Applications, AppProjects, Secrets, ConfigMaps] : [ApplicationSets, Applications];
  await Promise.all(cached.map((r) => sa.list(r, { namespace: ns })));
  await Promise.all(cached.map((r) => sa.watch(r, { namespace: ns, timeoutSeconds: 1 }, () => undefined)));
  await sa.get(Secrets, { namespace: ns, name: "scm-token" });
  await sa.get(ConfigMaps, { namespace: ns, name: "scm-ca" });
  // The ApplicationSet: finalizer and annotation by patch, a full update, status by patch and update.
  const set = await sa.patch<ApplicationSet & KubeObject>(ApplicationSets, key, {
    type: "merge",
    body: { metadata: { finalizers: ["resources-finalizer.argocd.argoproj.io"], annotations: { seen: "1" } } },
  });
  await sa.update(ApplicationSets, { ...set, metadata: { ...set.metadata, finalizers: [] } });
  await sa.patchStatus(ApplicationSets, key, { type: "merge", body: { status: { conditions: [] } } });
  const fresh = await sa.get<KubeObject>(ApplicationSets, key);
  await sa.updateStatus(ApplicationSets, { ...fresh, status: { resources: [] } });
  // An owned Application: create, patch, update, delete.
  const owner = {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    name: "guestbook",
    uid: fresh.metadata?.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  const app = await sa.create<KubeObject>(Applications, {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name: "guestbook-dev", namespace: ns, ownerReferences: [owner] },
    spec: {
      project: "default",
      destination: { server: "https://kubernetes.default.svc", namespace: "dev" },
      source: { repoURL: "https://example.com/r.git", path: "." },
    },
  });
  const patched = await sa.patch(
    Applications,
    { namespace: ns, name: "guestbook-dev" },
    { type: "merge", body: { metadata: { labels: { env: "dev" } } } },
  );
  await sa.update(Applications, { ...patched, metadata: { ...patched.metadata, annotations: { a: "b" } } });
  await sa.delete(Applications, { namespace: ns, name: "guestbook-dev" }, { preconditions: { uid: app.metadata?.uid } });
  // An Event through the controller's own sink (which only logs failures: read it back).
  const warnings: unknown[] = [];
  const logger = silentLogger();
  logger.warn = (...args: unknown[]) => warnings.push(args);
  await new KubeEventSink({ writer: sa, clock: new SystemClock(), logger }).record(fresh as ApplicationSet, {
    reason: "created",
    message: `created Application "guestbook-dev"`,
  });
  expect(warnings).toEqual([]);
  const events = await admin.list(Events, { namespace: ns, fieldSelector: "involvedObject.name=guestbook" });
  expect(events.items.map((e) => e["message"])).toContain(`created Application "guestbook-dev"`);
  const event = events.items[0]!;
  await sa.patch(Events, { namespace: ns, name: event.metadata!.name! }, { type: "merge", body: { count: 2 } });
}

const allowedInOwn: Row[] = [
  { verb: "list", group: "argoproj.io", resource: "applicationsets", where: "own" },
  { verb: "watch", group: "argoproj.io", resource: "applicationsets", where: "own" },
  { verb: "patch", group: "argoproj.io", resource: "applicationsets", where: "own" },
  { verb: "update", group: "argoproj.io", resource: "applicationsets", subresource: "status", where: "own" },
  { verb: "update", group: "argoproj.io", resource: "applicationsets", subresource: "finalizers", where: "own" },
  { verb: "delete", group: "argoproj.io", resource: "applications", where: "own" },
  { verb: "watch", group: "argoproj.io", resource: "appprojects", where: "own" },
  { verb: "watch", group: "", resource: "secrets", where: "own" },
  { verb: "list", group: "", resource: "configmaps", where: "own" },
  { verb: "create", group: "", resource: "events", where: "own" },
  { verb: "create", group: "coordination.k8s.io", resource: "leases", where: "own" },
  { verb: "update", group: "coordination.k8s.io", resource: "leases", name: LEASE_NAME, where: "own" },
  { verb: "watch", group: "progressivesync.appset.dev", resource: "rolloutpolicies", where: "own" },
  { verb: "create", group: "progressivesync.appset.dev", resource: "rolloutruns", where: "own" },
  { verb: "update", group: "progressivesync.appset.dev", resource: "rolloutruns", subresource: "status", where: "own" },
  { verb: "delete", group: "progressivesync.appset.dev", resource: "rolloutruns", where: "own" },
];

const deniedAlways: Row[] = [
  { verb: "create", group: "", resource: "secrets", where: "own" },
  { verb: "update", group: "", resource: "secrets", name: "scm-token", where: "own" },
  { verb: "patch", group: "", resource: "secrets", name: "scm-token", where: "own" },
  { verb: "delete", group: "", resource: "secrets", name: "scm-token", where: "own" },
  { verb: "create", group: "", resource: "configmaps", where: "own" },
  { verb: "patch", group: "", resource: "configmaps", name: "scm-ca", where: "own" },
  { verb: "create", group: "argoproj.io", resource: "applicationsets", where: "own" },
  { verb: "delete", group: "argoproj.io", resource: "applicationsets", name: "guestbook", where: "own" },
  { verb: "create", group: "argoproj.io", resource: "appprojects", where: "own" },
  { verb: "patch", group: "argoproj.io", resource: "appprojects", name: "default", where: "own" },
  { verb: "get", group: "coordination.k8s.io", resource: "leases", name: "someone-elses-lease", where: "own" },
  { verb: "update", group: "coordination.k8s.io", resource: "leases", name: "someone-elses-lease", where: "own" },
  { verb: "delete", group: "coordination.k8s.io", resource: "leases", name: LEASE_NAME, where: "own" },
  { verb: "delete", group: "", resource: "events", name: "x", where: "own" },
  { verb: "list", group: "", resource: "namespaces", where: "all" },
  { verb: "list", group: "", resource: "secrets", where: "other" },
  { verb: "create", group: "", resource: "secrets", where: "other" },
  { verb: "update", group: "", resource: "configmaps", name: "scm-ca", where: "other" },
  { verb: "create", group: "coordination.k8s.io", resource: "leases", where: "other" },
  { verb: "list", group: "argoproj.io", resource: "appprojects", where: "other" },
  { verb: "delete", group: "argoproj.io", resource: "applicationsets", name: "guestbook", where: "other" },
  { verb: "create", group: "progressivesync.appset.dev", resource: "rolloutpolicies", where: "own" },
  { verb: "patch", group: "progressivesync.appset.dev", resource: "rolloutpolicies", name: "careful", where: "own" },
];

const deniedOnlyNamespaced: Row[] = [
  { verb: "list", group: "argoproj.io", resource: "applicationsets", where: "all" },
  { verb: "list", group: "argoproj.io", resource: "applications", where: "other" },
  { verb: "list", group: "progressivesync.appset.dev", resource: "rolloutruns", where: "other" },
  { verb: "create", group: "argoproj.io", resource: "applications", where: "other" },
  { verb: "patch", group: "argoproj.io", resource: "applicationsets", subresource: "status", name: "guestbook", where: "other" },
  { verb: "get", group: "", resource: "secrets", name: "scm-token", where: "other" },
  { verb: "get", group: "", resource: "configmaps", name: "scm-ca", where: "other" },
  { verb: "create", group: "", resource: "events", where: "other" },
];

/** The same question, asked three ways, gets the expected answer every time. */
async function expectDecision(r: Row, allowed: boolean): Promise<void> {
  const a = access(r);
  expect(await selfReview(sa, a), "SelfSubjectAccessReview").toBe(allowed);
  expect(await subjectReview(admin, own, SA, a), "SubjectAccessReview").toBe(allowed);
  if (!allowed) expect(await forbidden(attempt(sa, a)), "the request itself").toBe(true);
}

describe("the namespaced install", () => {
  it("lets the controller do its whole job in its own namespace with its ServiceAccount token", async () => {
    await doesItsJob(own);
  });

  it("lets the controller's own leader elector acquire, renew and release the Lease", async () => {
    const renewed: string[] = [];
    const stop = new AbortController();
    const elector = new LeaderElector({
      client: sa,
      namespace: own,
      identity: `rbac-test-${run}`,
      clock: new SystemClock(),
      logger: silentLogger(),
      timings: { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 300 },
      onStartedLeading: () => undefined,
    });
    const ended = elector.run(stop.signal);
    for (let i = 0; i < 100 && renewed.length < 2; i++) {
      await sleep(200);
      const lease = await admin.get<Lease>(Leases, { namespace: own, name: LEASE_NAME }).catch(() => undefined);
      const t = lease?.spec?.renewTime;
      if (t !== undefined && t !== null && !renewed.includes(String(t))) renewed.push(String(t));
    }
    expect(elector.isLeader()).toBe(true);
    stop.abort();
    expect(await ended).toBe("stopped");
    expect(renewed.length).toBeGreaterThanOrEqual(2);
    expect((await admin.get<Lease>(Leases, { namespace: own, name: LEASE_NAME })).spec?.holderIdentity ?? "").toBe("");
  });

  it.each(allowedInOwn.map((r) => ({ name: rowName(r), r })))("allows: $name", async ({ r }) => {
    await expectDecision(r, true);
  });

  it.each([...deniedAlways, ...deniedOnlyNamespaced].map((r) => ({ name: rowName(r), r })))("refuses with 403: $name", async ({ r }) => {
    await expectDecision(r, false);
  });
});

describe("the cluster-wide install", () => {
  beforeAll(async () => {
    await applier.apply(clusterRbac);
    await untilAllowed({ verb: "list", group: "argoproj.io", resource: "applicationsets" });
  });

  it("lets the controller do its whole job for an ApplicationSet in another namespace", async () => {
    await sa.list(ApplicationSets, {});
    await sa.watch(Applications, { timeoutSeconds: 1 }, () => undefined);
    await doesItsJob(other);
  });

  it.each(deniedOnlyNamespaced.map((r) => ({ name: rowName(r), r })))("now allows: $name", async ({ r }) => {
    await expectDecision(r, true);
  });

  it.each(deniedAlways.map((r) => ({ name: rowName(r), r })))("still refuses with 403: $name", async ({ r }) => {
    await expectDecision(r, false);
  });
});
