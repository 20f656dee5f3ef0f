/**
 * Runs one case on both sides in lockstep: fresh namespaces (the `default` AppProject and Argo CD's
 * settings objects in each), the case's Git repositories (shared), its setup objects, then each
 * step applied to both sides, both waited on until they settle, and both observed. The shell of the
 * harness: observe.ts shapes what is read, compare.ts judges it.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { resources, type KubeApiClient, type KubeClient, type KubeObject, type ResourceDescriptor } from "../../../src/kube/index.js";
import { createDefaultProject, createSettings } from "../../argocd/support/argocd.js";
import { commit, makeRepo, type TempDirs } from "../../integration/support/git-repos.js";
import { startOciRegistry, type OciRegistry } from "../../integration/support/oci-registry.js";
import { makeTestCa } from "../../integration/support/test-ca.js";
import { substitute, type Case, type Placeholders, type Step } from "./case.js";
import { observe, text, timelineEntry, type Json, type Observation } from "./observe.js";
import { SIDES, startController, type Controller, type SideEnv, type SideName } from "./sides.js";

/** What one side gave: an observation per step, and the write timeline when the case asks for it. */
export interface SideResult {
  readonly observations: Observation[];
  readonly timeline: string[];
  /** Steps after which the side did not settle in time (a finding). */
  readonly unsettled: number[];
  readonly crashed: boolean;
}

/** Both sides of a case, and the namespace each ran in. */
export type CaseResult = Record<SideName, SideResult> & { readonly namespaces: Record<SideName, string> };

const CRDS: ResourceDescriptor = {
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
};
const KINDS: Record<string, ResourceDescriptor> = {
  Application: resources.Applications,
  ApplicationSet: resources.ApplicationSets,
  AppProject: resources.AppProjects,
  Secret: resources.Secrets,
  ConfigMap: resources.ConfigMaps,
  CustomResourceDefinition: CRDS,
};

/** The resource of an object in a case: a known kind, else `<kind>s` of its apiVersion (a case's own CRD). */
export function descriptorOf(o: { apiVersion?: unknown; kind?: unknown }): ResourceDescriptor {
  const kind = String(o.kind);
  const known = KINDS[kind];
  if (known !== undefined) return known;
  const [group, version] = String(o.apiVersion).includes("/") ? String(o.apiVersion).split("/") : ["", String(o.apiVersion)];
  return { group: group ?? "", version: version ?? "v1", plural: `${kind.toLowerCase()}s`, kind, namespaced: true };
}

/** How long a side may take to settle after a step, and how long it must stay unchanged to count as settled. */
const SETTLE_TIMEOUT_MS = 60_000;
const QUIET_MS = 2_500;
/**
 * How long a side must stay unchanged to count as settled while an ApplicationSet has no status yet
 * (Argo CD writes none after a panic) or is being deleted (Argo CD's Reverse deletion goes on after a
 * 10 s requeue).
 */
const QUIET_LONG_MS = 12_000;
const POLL_MS = 250;

/** Creates `o` in `ns`, or replaces it when it exists (cluster-scoped objects once for both sides). */
async function applyObject(client: KubeClient, ns: string, o: KubeObject): Promise<void> {
  const r = descriptorOf(o);
  const obj = r.namespaced ? { ...o, metadata: { ...o.metadata, namespace: ns } } : o;
  try {
    await client.create(r, obj);
  } catch (err) {
    if ((err as { reason?: string }).reason !== "AlreadyExists") throw err;
    if (!r.namespaced) return;
    const live = await client.get(r, { namespace: ns, name: o.metadata?.name ?? "" });
    await client.update(r, { ...obj, metadata: { ...obj.metadata, resourceVersion: live.metadata?.resourceVersion } });
  }
  if (r === CRDS) await waitEstablished(client, o.metadata?.name ?? "");
}

async function waitEstablished(client: KubeClient, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const crd = await client.get<KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }>(CRDS, { name });
    if (crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) return;
    await sleep(100);
  }
  throw new Error(`CRD ${name} not established`);
}

type Obj = Record<string, Json>;

/** Reads and observes one side. */
async function read(client: KubeClient, ns: string): Promise<{ o: Observation; settledShape: boolean }> {
  const [apps, sets, events] = await Promise.all([
    client.list(resources.Applications, { namespace: ns }),
    client.list(resources.ApplicationSets, { namespace: ns }),
    client.list(resources.Events, { namespace: ns }),
  ]);
  const setItems = sets.items as unknown as Obj[];
  // Settled quickly once every ApplicationSet has a status and no refresh is pending; one being
  // deleted, or without a status, must stay unchanged for the long window.
  const settledShape = setItems.every((s) => {
    const m = s["metadata"] as Record<string, unknown>;
    const ann = (m["annotations"] ?? {}) as Record<string, string>;
    const st = (s["status"] ?? {}) as { conditions?: unknown[] };
    return (
      m["deletionTimestamp"] === undefined &&
      (st.conditions?.length ?? 0) > 0 &&
      ann["argocd.argoproj.io/application-set-refresh"] === undefined
    );
  });
  return { o: observe(ns, apps.items as unknown as Obj[], setItems, events.items as unknown as Obj[]), settledShape };
}

/** Waits until a side's observation stays unchanged for QUIET_MS; resolves with it (and whether it settled). */
async function settle(client: KubeClient, ns: string): Promise<{ o: Observation; settled: boolean }> {
  const deadline = performance.now() + SETTLE_TIMEOUT_MS;
  let last = "";
  let since = performance.now();
  let cur: Observation | undefined;
  for (;;) {
    const r = await read(client, ns);
    cur = r.o;
    const text = JSON.stringify(cur) + String(r.settledShape);
    if (text !== last) {
      last = text;
      since = performance.now();
    } else if (performance.now() - since >= (r.settledShape ? QUIET_MS : QUIET_LONG_MS)) {
      return { o: cur, settled: true };
    }
    if (performance.now() > deadline) return { o: cur, settled: false };
    await sleep(POLL_MS);
  }
}

/** Asks every ApplicationSet of `ns` for a refresh (the annotation the Git webhook sets). */
async function refreshAll(client: KubeClient, ns: string): Promise<void> {
  const sets = await client.list(resources.ApplicationSets, { namespace: ns });
  for (const s of sets.items) {
    await client.patch(
      resources.ApplicationSets,
      { namespace: ns, name: s.metadata?.name ?? "" },
      { type: "merge", body: { metadata: { annotations: { "argocd.argoproj.io/application-set-refresh": "true" } } } },
    );
  }
}

/** Now as the application controller writes its times (RFC 3339, whole seconds). */
const nowSeconds = (): string => new Date().toISOString().replace(/\.\d+Z$/, "Z");

/** The application controller's part: completes operations, records the refresh, reports sync and health. */
async function actAsAppController(
  client: KubeClient,
  ns: string,
  s: Extract<Step, { appController: unknown }>["appController"],
): Promise<void> {
  const list = await client.list(resources.Applications, { namespace: ns });
  for (const item of list.items) {
    const name = item.metadata?.name ?? "";
    if (s.apps !== "*" && !s.apps.includes(name)) continue;
    // The ApplicationSet controller may write the Application meanwhile: read again and retry.
    for (let attempt = 0; ; attempt++) {
      try {
        await actOnApplication(client, ns, name, s);
        break;
      } catch (err) {
        if ((err as { reason?: string }).reason !== "Conflict" || attempt >= 10) throw err;
      }
    }
  }
}

async function actOnApplication(
  client: KubeClient,
  ns: string,
  name: string,
  s: Extract<Step, { appController: unknown }>["appController"],
): Promise<void> {
  const now = nowSeconds();
  const app = await client.get<KubeObject & { operation?: Record<string, unknown>; status?: Record<string, unknown> }>(
    resources.Applications,
    { namespace: ns, name },
  );
  if (s.finalize && app.metadata?.deletionTimestamp != null) {
    await client.patch(
      resources.Applications,
      { namespace: ns, name },
      {
        type: "json",
        ops: [
          { op: "test", path: "/metadata/resourceVersion", value: app.metadata.resourceVersion },
          { op: "remove", path: "/metadata/finalizers" },
        ],
      },
    );
    return;
  }
  const status: Record<string, unknown> = { ...app.status, reconciledAt: now };
  if (app.operation !== undefined) {
    status["operationState"] = {
      operation: app.operation,
      phase: "Succeeded",
      message: "successfully synced (all tasks run)",
      startedAt: now,
      finishedAt: now,
    };
  }
  if (s.sync !== undefined) status["sync"] = { ...(status["sync"] as object | undefined), status: s.sync };
  if (s.health !== undefined) status["health"] = { status: s.health };
  const annotations = { ...app.metadata?.annotations };
  delete annotations["argocd.argoproj.io/refresh"];
  const { operation: _op, ...rest } = app;
  await client.update(resources.Applications, { ...rest, metadata: { ...app.metadata, annotations }, status });
}

/** What the application controller records as compared: the Application's source(s) and destination. */
function comparedTo(spec: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { destination: spec?.["destination"] ?? {} };
  if (spec?.["source"] !== undefined) out["source"] = spec["source"];
  if (spec?.["sources"] !== undefined) out["sources"] = spec["sources"];
  return out;
}

/**
 * The application controller's own refreshes, for the progressive-sync cases: an Application whose
 * spec changed (a new generation) or that asks for a refresh gets `status.reconciledAt` and
 * `status.sync.comparedTo`; on its first reconcile OutOfSync and Missing, as an Application with
 * nothing deployed yet (later sync status and health are the script's to set).
 */
async function refreshLoop(client: KubeClient, ns: string, signal: AbortSignal): Promise<void> {
  // The generation each Application was last reconciled at: any spec change is refreshed.
  const seen = new Map<string, number>();
  while (!signal.aborted) {
    const list = await client.list(resources.Applications, { namespace: ns }).catch(() => ({ items: [] as KubeObject[] }));
    for (const item of list.items) {
      const app = item as KubeObject & {
        spec?: Record<string, unknown>;
        status?: { sync?: { comparedTo?: unknown } } & Record<string, unknown>;
      };
      const want = comparedTo(app.spec);
      const refresh = app.metadata?.annotations?.["argocd.argoproj.io/refresh"] !== undefined;
      const name = app.metadata?.name ?? "";
      const generation = app.metadata?.generation ?? 0;
      if (!refresh && seen.get(name) === generation && JSON.stringify(app.status?.sync?.comparedTo) === JSON.stringify(want)) continue;
      if (app.metadata?.deletionTimestamp != null) continue;
      const annotations = { ...app.metadata?.annotations };
      delete annotations["argocd.argoproj.io/refresh"];
      // A first reconcile reports what an undeployed Application shows: OutOfSync, Missing.
      const sync = { status: "OutOfSync", ...app.status?.sync, comparedTo: want };
      const health = (app.status?.["health"] as { status?: string } | undefined)?.status ? app.status?.["health"] : { status: "Missing" };
      const status = {
        ...app.status,
        reconciledAt: nowSeconds(),
        sync: sync.status === "" ? { ...sync, status: "OutOfSync" } : sync,
        health,
      };
      // A conflict is retried on the next round.
      // Without a status subresource a status write bumps the generation too: remember the written one.
      const written = await client
        .update(resources.Applications, { ...app, metadata: { ...app.metadata, annotations }, status })
        .catch(() => undefined);
      if (written !== undefined) seen.set(name, written.metadata?.generation ?? generation);
    }
    await sleep(200);
  }
}

/** Runs one step on one side. */
async function runStep(client: KubeClient, ns: string, step: Step, repos: Readonly<Record<string, string>>): Promise<void> {
  if ("apply" in step) {
    for (const o of step.apply) await applyObject(client, ns, o);
  } else if ("patch" in step) {
    await client.patch(descriptorOf(step.patch), { namespace: ns, name: step.patch.name }, { type: "merge", body: step.patch.merge });
  } else if ("delete" in step) {
    await client.delete(
      descriptorOf(step.delete),
      { namespace: ns, name: step.delete.name },
      step.delete.propagation ? { propagationPolicy: step.delete.propagation } : {},
    );
  } else if ("commit" in step) {
    void repos; // committed once for both sides by the caller
    await refreshAll(client, ns);
  } else if ("refresh" in step) {
    await refreshAll(client, ns);
  } else {
    await actAsAppController(client, ns, step.appController);
  }
}

/** A plugin server answering every call with the case's parameters. */
async function pluginServer(c: NonNullable<Case["plugin"]>): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const input = body === "" ? {} : (JSON.parse(body) as { input?: unknown }).input;
      const parameters = c.echoInput ? c.parameters.map((p) => ({ ...p, input })) : c.parameters;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ output: { parameters } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address() as { port: number };
  return { url: `http://127.0.0.1:${String(addr.port)}`, close: () => new Promise((r) => server.close(() => r())) };
}

/** The case's registry with its artifacts pushed (each `repository:tag` from a directory of its files). */
async function registryFor(c: Case, artifacts: NonNullable<Case["registry"]>, temp: TempDirs): Promise<OciRegistry> {
  const user = c.registryUser;
  const registry = await startOciRegistry(user === undefined ? {} : { user, tls: makeTestCa(temp.make("appset-registry-ca-")) });
  try {
    for (const [ref, files] of Object.entries(artifacts)) {
      const colon = ref.lastIndexOf(":");
      await registry.pushDirectory(ref.slice(0, colon), ref.slice(colon + 1), temp.writeTree(files));
    }
  } catch (err) {
    await registry.stop();
    throw err;
  }
  return registry;
}

/** Removes the finalizers a side left (so its namespace can go) and deletes the namespace. */
async function cleanup(client: KubeClient, ns: string): Promise<void> {
  for (const r of [resources.Applications, resources.ApplicationSets]) {
    const list = await client.list(r, { namespace: ns }).catch(() => ({ items: [] as KubeObject[] }));
    for (const o of list.items) {
      if ((o.metadata?.finalizers?.length ?? 0) > 0)
        await client
          .patch(r, { namespace: ns, name: o.metadata?.name ?? "" }, { type: "merge", body: { metadata: { finalizers: null } } })
          .catch(() => undefined);
    }
  }
  await client.delete(resources.Namespaces, { name: ns }).catch(() => undefined);
}

/** Runs `c` under both controllers; `env` gives the cluster, the shared repo-server and where to log. */
export async function runCase(c: Case, client: KubeApiClient, env: SideEnv, temp: TempDirs): Promise<CaseResult> {
  const id = randomBytes(3).toString("hex");
  const repoDirs: Record<string, string> = {};
  for (const [name, files] of Object.entries(c.repos)) repoDirs[name] = makeRepo(temp, files);
  const repoUrls = Object.fromEntries(Object.entries(repoDirs).map(([n, d]) => [n, `file://${d}`]));
  const plugin = c.plugin === undefined ? undefined : await pluginServer(c.plugin);
  const registry = c.registry === undefined ? undefined : await registryFor(c, c.registry, temp);
  const hosts = { ...(plugin ? { plugin: plugin.url } : {}), ...(registry ? { registry: registry.host } : {}) };
  const controllers: Controller[] = [];
  const watches: AbortController[] = [];
  const result = {} as Record<SideName, { observations: Observation[]; timeline: string[]; unsettled: number[]; crashed: boolean }>;
  const nss = {} as Record<SideName, string>;
  try {
    for (const side of SIDES) {
      const ns = `df-${id}-${side}`;
      nss[side] = ns;
      result[side] = { observations: [], timeline: [], unsettled: [], crashed: false };
      await client.create(resources.Namespaces, { metadata: { name: ns } });
      await createDefaultProject(client, ns);
      await createSettings(client, ns);
      const p: Placeholders = { ns, repos: repoUrls, ...hosts };
      for (const o of substitute(c.setup, p)) await applyObject(client, ns, o);
      if (c.compareOrder) {
        const ac = new AbortController();
        watches.push(ac);
        const seen = new Map<string, Obj>();
        void client
          .watch(resources.Applications, { namespace: ns, signal: ac.signal }, (e) => {
            if (e.type !== "ADDED" && e.type !== "MODIFIED" && e.type !== "DELETED") return;
            const cur = e.object as unknown as Obj;
            const name = text((cur["metadata"] as Obj)["name"]);
            const entry = timelineEntry(e.type, seen.get(name), cur);
            seen.set(name, cur);
            if (entry !== undefined) result[side].timeline.push(entry);
          })
          .catch(() => undefined);
      }
    }
    if (c.flags.includes("--enable-progressive-syncs")) {
      for (const side of SIDES) {
        const ac = new AbortController();
        watches.push(ac);
        void refreshLoop(client, nss[side], ac.signal);
      }
    }
    const started = await Promise.all(SIDES.map((side) => startController(side, nss[side], c.flags, env)));
    controllers.push(...started);
    for (const [i, step] of c.steps.entries()) {
      if ("commit" in step) {
        const dir = repoDirs[step.commit.repo];
        if (dir === undefined) throw new Error(`case ${c.name}: step ${String(i)} commits to unknown repository ${step.commit.repo}`);
        const files = Object.fromEntries(Object.entries(step.commit.files).filter((e): e is [string, string] => e[1] !== null));
        for (const [path, content] of Object.entries(step.commit.files)) if (content === null) rmSync(join(dir, path), { force: true });
        commit(dir, files, `step ${String(i)}`);
      }
      await Promise.all(
        SIDES.map((side) => runStep(client, nss[side], substitute(step, { ns: nss[side], repos: repoUrls, ...hosts }), repoUrls)),
      );
      const settled = await Promise.all(SIDES.map((side) => settle(client, nss[side])));
      SIDES.forEach((side, k) => {
        result[side].observations.push(settled[k]!.o);
        if (!settled[k]!.settled) result[side].unsettled.push(i);
      });
    }
    for (const ctl of controllers) result[ctl.side].crashed = ctl.exited();
    return { ...result, namespaces: { ...nss } };
  } finally {
    for (const w of watches) w.abort();
    await Promise.all(controllers.map((ctl) => ctl.stop()));
    await plugin?.close();
    await registry?.stop();
    await Promise.all(Object.values(nss).map((ns) => cleanup(client, ns)));
  }
}
