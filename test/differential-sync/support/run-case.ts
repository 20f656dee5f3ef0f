/**
 * Runs one sync case on both sides in lockstep: a fresh namespace per side (the `default`
 * AppProject and Argo CD's settings objects in it), the side's own Git repository with the case's
 * files, its setup objects, watches on the destination, the engine, then the Application; after it
 * each step is applied to both sides, both are waited on until they settle, and both are observed.
 * The shell of the harness: observe.ts shapes what is read, the ApplicationSet suite's compare.ts
 * judges it.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseAllDocuments } from "yaml";
import { resources, type KubeApiClient, type KubeClient, type KubeObject, type ResourceDescriptor } from "../../../src/kube/index.js";
import { createDefaultProject, createSettings } from "../../argocd/support/argocd.js";
import { text, type Json } from "../../differential/support/observe.js";
import { commit, git, makeRepo, type TempDirs } from "../../integration/support/git-repos.js";
import { caseFiles, isChartTemplate, substitute, type Case, type Step } from "./case.js";
import { appObservation, refreshed, slotOfObject, timeline, writesOf, type Context, type Observation, type Write } from "./observe.js";
import { SIDES, startEngine, type Engine, type SideEnv, type SideName } from "./sides.js";

/** What one side gave: an observation per step (the first after the Application was created). */
export interface SideResult {
  readonly observations: Observation[];
  /** Steps after which the side did not settle in time (a finding); -1 is the Application's creation. */
  readonly unsettled: number[];
  readonly crashed: boolean;
}

/** Both sides of a case, and the namespace each ran in. */
export type CaseResult = Record<SideName, SideResult> & { readonly namespaces: Record<SideName, string> };

type Obj = Record<string, Json>;

const batch = (kind: string, plural: string): ResourceDescriptor => ({ group: "batch", version: "v1", plural, kind, namespaced: true });
const apps = (kind: string, plural: string): ResourceDescriptor => ({ group: "apps", version: "v1", plural, kind, namespaced: true });
const core = (kind: string, plural: string, namespaced = true): ResourceDescriptor => ({
  group: "",
  version: "v1",
  plural,
  kind,
  namespaced,
});
/** The kinds a case may watch and write by hand. */
const KINDS: Record<string, ResourceDescriptor> = {
  ConfigMap: resources.ConfigMaps,
  Secret: resources.Secrets,
  Service: core("Service", "services"),
  ServiceAccount: core("ServiceAccount", "serviceaccounts"),
  Pod: core("Pod", "pods"),
  Namespace: resources.Namespaces,
  AppProject: resources.AppProjects,
  ClusterRole: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "clusterroles",
    kind: "ClusterRole",
    namespaced: false,
  },
  Job: batch("Job", "jobs"),
  Deployment: apps("Deployment", "deployments"),
  StatefulSet: apps("StatefulSet", "statefulsets"),
  ReplicaSet: apps("ReplicaSet", "replicasets"),
  CustomResourceDefinition: {
    group: "apiextensions.k8s.io",
    version: "v1",
    plural: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
  },
};

function descriptor(kind: string): ResourceDescriptor {
  const d = KINDS[kind];
  if (d === undefined) throw new Error(`kind ${kind} is not one the harness knows (${Object.keys(KINDS).join(", ")})`);
  return d;
}

/** How long the cleanup waits for a side's CRDs to be gone. */
const CRD_GONE_MS = 30_000;

/** How long a side may take to settle after a step. */
const SETTLE_TIMEOUT_MS = 150_000;
const POLL_MS = 250;
const TERMINAL = new Set(["Succeeded", "Failed", "Error"]);

/** A deep merge of plain objects (arrays and scalars of `b` win). */
function merge(a: unknown, b: unknown): unknown {
  if (a === null || typeof a !== "object" || Array.isArray(a) || b === null || typeof b !== "object" || Array.isArray(b)) return b;
  const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
  for (const [k, v] of Object.entries(b as Record<string, unknown>)) out[k] = k in out ? merge(out[k], v) : v;
  return out;
}

/** The `generateName` prefixes the case's manifests use. */
function generatedPrefixes(c: Case): string[] {
  const texts = [...Object.values(c.files), ...c.steps.flatMap((s) => ("commit" in s ? Object.values(s.commit) : []))];
  return [...new Set(texts.flatMap((t) => [...(t ?? "").matchAll(/generateName:\s*["']?([a-z0-9.-]+)/g)].map((m) => m[1]!)))];
}

/** One side's running state. */
interface Side {
  readonly name: SideName;
  readonly ns: string;
  /** The Application's namespace (`ns` unless the case names another). */
  readonly appNs: string;
  readonly repo: string;
  readonly commits: string[];
  readonly writes: Write[];
  readonly seen: Map<string, Obj>;
  consumed: number;
}

/** `Kind/name` (or `Kind/prefix` of a generateName) → slot, from every manifest the case commits. */
function slotsOf(c: Case, ns: string): Map<string, string> {
  const slots = new Map<string, string>();
  const files = caseFiles(c);
  for (const [path, t] of files) {
    // A chart template with template actions is not YAML yet (its objects take the default slot).
    if (t === null || (isChartTemplate(files, path) && t.includes("{{"))) continue;
    for (const doc of parseAllDocuments(substitute(t, ns))) {
      const o = (doc.errors.length === 0 ? doc.toJSON() : undefined) as Obj | undefined;
      const m = o?.["metadata"] as Obj | undefined;
      if (o === undefined || o === null || m === undefined) continue;
      slots.set(`${text(o["kind"])}/${text(m["name"] ?? m["generateName"])}`, slotOfObject(o));
    }
  }
  return slots;
}

function context(s: Side, c: Case): Context {
  const slots = slotsOf(c, s.ns);
  const slot = (kindName: string): string =>
    slots.get(kindName) ?? [...slots].find(([k]) => k.endsWith("-") && kindName.startsWith(k))?.[1] ?? "sync@0";
  return { ns: s.ns, repo: s.repo, commits: s.commits, generated: generatedPrefixes(c), slot };
}

/** Objects of the namespace that neither engine writes: the apiserver's CA bundle, the harness's Argo CD settings. */
const harnessOwn = (name: string): boolean => name === "kube-root-ca.crt" || name.startsWith("argocd-");

/** Watches the destination's kinds of the case; writes go to `s.writes`. */
function watchDestination(client: KubeApiClient, s: Side, c: Case, signal: AbortSignal): void {
  for (const kind of c.watch) {
    const r = descriptor(kind);
    void client
      .watch(r, { ...(r.namespaced ? { namespace: s.ns } : {}), signal }, (e) => {
        if (e.type !== "ADDED" && e.type !== "MODIFIED" && e.type !== "DELETED") return;
        const cur = e.object as unknown as Obj;
        const name = text((cur["metadata"] as Obj)["name"]);
        if (!r.namespaced && !name.includes(s.ns)) return;
        if (harnessOwn(name)) return;
        const key = `${kind}/${name}`;
        s.writes.push(...writesOf(e.type, s.seen.get(key), cur, context(s, c)));
        if (e.type === "DELETED") s.seen.delete(key);
        else s.seen.set(key, cur);
      })
      .catch(() => undefined);
  }
}

/** The objects of the watched kinds that exist now. */
async function liveObjects(client: KubeClient, s: Side, c: Case): Promise<string[]> {
  const out: string[] = [];
  for (const kind of c.watch) {
    const r = descriptor(kind);
    const l = await client.list(r, r.namespaced ? { namespace: s.ns } : {});
    for (const o of l.items) {
      const name = o.metadata?.name ?? "";
      if (harnessOwn(name) || (!r.namespaced && !name.includes(s.ns))) continue;
      out.push(`${kind}/${name}`.split(s.ns).join("$NS"));
    }
  }
  return out.sort();
}

/**
 * Waits until the side's Application has no operation pending or running (unless `running`: the
 * operation is meant to go on), is not being deleted, and nothing changed for the case's quiet time.
 */
async function settle(client: KubeClient, s: Side, c: Case, running = false): Promise<{ o: Observation; settled: boolean }> {
  const deadline = performance.now() + SETTLE_TIMEOUT_MS;
  let last = "";
  let since = performance.now();
  for (;;) {
    const app = (await client.get(resources.Applications, { namespace: s.appNs, name: "app" }).catch(() => undefined)) as Obj | undefined;
    const state = ((app?.["status"] as Obj | undefined)?.["operationState"] as Obj | undefined)?.["phase"];
    const annotations = ((app?.["metadata"] as Obj | undefined)?.["annotations"] ?? {}) as Obj;
    // An Application being deleted has not settled until it is gone (or the time is up).
    const deleting = (app?.["metadata"] as Obj | undefined)?.["deletionTimestamp"] !== undefined;
    // An Application never compared yet (a Helm chart's first render takes seconds) has not settled.
    const compared = app === undefined || refreshed(app);
    const idle =
      compared &&
      !deleting &&
      (running || (app?.["operation"] === undefined && (state === undefined || TERMINAL.has(text(state))))) &&
      annotations["argocd.argoproj.io/refresh"] === undefined;
    const now = { app: appObservation(app, context(s, c)), live: await liveObjects(client, s, c), writes: s.writes.length };
    const snapshot = JSON.stringify(now) + String(idle);
    if (snapshot !== last) {
      last = snapshot;
      since = performance.now();
    } else if (idle && performance.now() - since >= c.quietMs) {
      const writes = timeline(s.writes.slice(s.consumed));
      s.consumed = s.writes.length;
      return { o: { app: now.app, live: now.live, writes }, settled: true };
    }
    if (performance.now() > deadline) {
      const writes = timeline(s.writes.slice(s.consumed));
      s.consumed = s.writes.length;
      return { o: { app: now.app, live: now.live, writes }, settled: false };
    }
    await sleep(POLL_MS);
  }
}

async function patchApp(client: KubeClient, s: Side, body: Record<string, unknown>): Promise<void> {
  await client.patch(resources.Applications, { namespace: s.appNs, name: "app" }, { type: "merge", body });
}

const refresh = { metadata: { annotations: { "argocd.argoproj.io/refresh": "normal" } } };

/** Runs one step on one side (the step's `${ns}` already substituted). */
async function runStep(client: KubeClient, s: Side, step: Step): Promise<void> {
  if ("sync" in step) {
    // As Argo CD's API server starts a sync: the app's sync options and retry policy unless the
    // request gives its own (the application controller reads only the operation's).
    const app = await client.get(resources.Applications, { namespace: s.appNs, name: "app" });
    const policy = (app.spec as { syncPolicy?: { syncOptions?: unknown; retry?: unknown } }).syncPolicy;
    const { retry = policy?.retry, ...given } = step.sync;
    const syncOptions = given.syncOptions ?? policy?.syncOptions;
    const sync = { ...given, ...(syncOptions !== undefined ? { syncOptions } : {}) };
    await patchApp(client, s, { operation: { sync, initiatedBy: { username: "admin" }, ...(retry !== undefined ? { retry } : {}) } });
  } else if ("commit" in step) {
    const files = Object.fromEntries(Object.entries(step.commit).filter((e): e is [string, string] => e[1] !== null));
    for (const [path, text] of Object.entries(step.commit)) if (text === null) rmSync(join(s.repo, path), { force: true });
    commit(s.repo, files, `step ${String(s.commits.length)}`);
    s.commits.push(git(s.repo, "rev-parse", "HEAD").trim());
    await patchApp(client, s, refresh);
  } else if ("patchApp" in step) {
    await patchApp(client, s, merge(step.patchApp, refresh) as Record<string, unknown>);
  } else if ("refresh" in step) {
    await patchApp(client, s, refresh);
  } else if ("terminate" in step) {
    await patchApp(client, s, { status: { operationState: { phase: "Terminating" } } });
  } else if ("apply" in step) {
    for (const o of step.apply) await applyObject(client, s.ns, o);
  } else if ("patch" in step) {
    const r = descriptor(step.patch.kind);
    await client.patch(
      r,
      { ...(r.namespaced ? { namespace: s.ns } : {}), name: step.patch.name },
      { type: "merge", body: step.patch.merge },
      step.patch.fieldManager !== undefined ? { fieldManager: step.patch.fieldManager } : {},
    );
  } else if ("delete" in step) {
    const r = descriptor(step.delete.kind);
    await client.delete(r, { ...(r.namespaced ? { namespace: s.ns } : {}), name: step.delete.name });
  } else if ("deleteApp" in step) {
    await client.delete(resources.Applications, { namespace: s.appNs, name: "app" });
  } else {
    await sleep(step.wait * 1000);
  }
}

/** Creates `o` (in `ns` when namespaced), or replaces it when it exists. */
async function applyObject(client: KubeClient, ns: string, o: KubeObject): Promise<void> {
  const r = descriptor(String(o.kind));
  const obj = r.namespaced ? { ...o, metadata: { ...o.metadata, namespace: ns } } : o;
  try {
    await client.create(r, obj);
  } catch (err) {
    if ((err as { reason?: string }).reason !== "AlreadyExists") throw err;
    const live = await client.get(r, { ...(r.namespaced ? { namespace: ns } : {}), name: o.metadata?.name ?? "" });
    await client.update(r, { ...obj, metadata: { ...obj.metadata, resourceVersion: live.metadata?.resourceVersion } });
  }
}

/** Removes what a side left: the Application (finalizers dropped), its cluster-scoped objects, the namespace. */
async function cleanup(client: KubeClient, s: Side): Promise<void> {
  await client
    .patch(resources.Applications, { namespace: s.appNs, name: "app" }, { type: "merge", body: { metadata: { finalizers: null } } })
    .catch(() => undefined);
  const mine = async (kind: string): Promise<string[]> => {
    const l = await client.list(descriptor(kind), {}).catch(() => ({ items: [] as KubeObject[] }));
    return l.items.map((o) => o.metadata?.name ?? "").filter((n) => n.includes(s.ns));
  };
  for (const kind of ["CustomResourceDefinition", "ClusterRole", "Namespace"]) {
    for (const name of await mine(kind)) await client.delete(descriptor(kind), { name }).catch(() => undefined);
  }
  // A CRD still being deleted is still discovered: the next case's Argo CD would fail to list it.
  const deadline = performance.now() + CRD_GONE_MS;
  while ((await mine("CustomResourceDefinition")).length > 0 && performance.now() < deadline) await sleep(POLL_MS);
  const jobs = await client.list(descriptor("Job"), { namespace: s.ns }).catch(() => ({ items: [] as KubeObject[] }));
  for (const j of jobs.items)
    await client
      .patch(
        descriptor("Job"),
        { namespace: s.ns, name: j.metadata?.name ?? "" },
        { type: "merge", body: { metadata: { finalizers: null } } },
      )
      .catch(() => undefined);
  await client.delete(resources.Namespaces, { name: s.ns }).catch(() => undefined);
}

/** `value` with `${repo}` as the side's repository URL in every string. */
const withRepo = <T>(value: T, repo: string): T => JSON.parse(JSON.stringify(value).split("${repo}").join(`file://${repo}`)) as T;

/** The Application of a side: a case that lists `sources` (`${repo}` is the side's repository) has no `source`. */
function application(c: Case, s: Side): KubeObject {
  const app = withRepo(substitute(c.app, s.ns), s.repo);
  const source = "sources" in app ? {} : { source: { repoURL: `file://${s.repo}`, path: "app", targetRevision: "HEAD" } };
  const spec = merge({ project: "default", ...source, destination: { server: "https://kubernetes.default.svc", namespace: s.ns } }, app);
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name: "app", namespace: s.appNs, ...(c.finalizers.length > 0 ? { finalizers: c.finalizers } : {}) },
    spec,
  };
}

/** Runs `c` under both engines; `env` gives the cluster, the shared repo-server and where to log. */
export async function runCase(c: Case, client: KubeApiClient, env: SideEnv, temp: TempDirs): Promise<CaseResult> {
  const id = randomBytes(3).toString("hex");
  const engines: Engine[] = [];
  const watches = new AbortController();
  const sides: Side[] = [];
  const result = {} as Record<SideName, { observations: Observation[]; unsettled: number[]; crashed: boolean }>;
  try {
    for (const name of SIDES) {
      const ns = `ds-${id}-${name}`;
      const repo = makeRepo(temp, substitute(c.files, ns));
      const appNs = c.appNamespace === undefined ? ns : substitute(c.appNamespace, ns);
      const commits = [git(repo, "rev-parse", "HEAD").trim()];
      const s: Side = { name, ns, appNs, repo, commits, writes: [], seen: new Map(), consumed: 0 };
      sides.push(s);
      result[name] = { observations: [], unsettled: [], crashed: false };
      await client.create(resources.Namespaces, { metadata: { name: ns } });
      if (appNs !== ns) await client.create(resources.Namespaces, { metadata: { name: appNs } });
      await createDefaultProject(client, ns);
      await createSettings(client, ns, substitute(c.argocdCm, ns));
      // In setup objects `${repo}` is the side's repository URL (a repository Secret names it).
      const setup = withRepo(substitute(c.setup, ns), repo);
      for (const o of setup) await applyObject(client, ns, o);
      watchDestination(client, s, c, watches.signal);
    }
    engines.push(...(await Promise.all(sides.map((s) => startEngine(s.name, s.ns, env, s.appNs === s.ns ? [] : [s.appNs])))));
    for (const s of sides) await client.create(resources.Applications, application(c, s));
    const observe = async (step: number): Promise<void> => {
      const settled = await Promise.all(sides.map((s) => settle(client, s, c, c.runningAfter.includes(step))));
      sides.forEach((s, k) => {
        result[s.name].observations.push(settled[k]!.o);
        if (!settled[k]!.settled) result[s.name].unsettled.push(step);
      });
    };
    await observe(-1);
    for (const [i, step] of c.steps.entries()) {
      await Promise.all(sides.map((s) => runStep(client, s, substitute(step, s.ns))));
      await observe(i);
    }
    for (const e of engines) result[e.side].crashed = e.exited();
    return { ...result, namespaces: { argo: sides[0]!.ns, ours: sides[1]!.ns } };
  } finally {
    watches.abort();
    await Promise.all(engines.map((e) => e.stop()));
    await Promise.all(sides.map((s) => cleanup(client, s)));
  }
}
