/**
 * Which Applications a stand-alone `appset sync-engine` process syncs, on the real control plane
 * with the real CLI processes:
 * - With `--enable-leader-election`, two replicas on one namespace elect a leader on the Lease
 *   `appset-sync-engine.argoproj.io`; only the leader reconciles (the follower's
 *   `controller_runtime_reconcile_total` stays 0 while its cache is warm and it is ready). When the
 *   leader is killed with SIGKILL (no release), the follower takes over once the lease has expired,
 *   reconciles, and syncs an Application created after the kill.
 * - The engine syncs the Applications of its namespace and of the namespaces
 *   `--application-namespaces` matches (globs and /regex/); an Application of any other namespace
 *   is never written (same resourceVersion, no status, its operation left pending, nothing deployed,
 *   no Event), even when it carries a sync operation and is changed later. `--applicationset-namespaces`
 *   is the ApplicationSet controller's setting and does not widen the engine's scope.
 *
 * - Two replicas on one Lease, each behind a proxy that counts its requests: only the leader starts
 *   its loops and writes (the follower's only writes are its Lease attempts, its reconcile counter
 *   stays 0); when the leader stops cleanly (SIGTERM: exit 0, the Lease released), the follower
 *   takes over, starts its loops and syncs, an Application created after the stop included.
 *
 * The lease timings are the defaults (15 s lease, 2 s retry): the CLI has no flags for them.
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { SYNC_ENGINE_LEASE_NAME } from "../../src/cli/sync-engine.js";
import { resources, type KubeObject } from "../../src/kube/index.js";
import { DEFAULT_TIMINGS, Leases, type Lease } from "../../src/leader/index.js";
import { makeRepo } from "../integration/support/git-repos.js";
import { eventually, spawnController, type ControllerProcess } from "./support/controller.js";
import { CountingProxy } from "./support/proxy-counting.js";
import { e2eSuite } from "./support/suite.js";
import { ALLOW_LOCAL_REPOSITORIES_ENV } from "../support/vitest-setup.js";

const suite = e2eSuite();
const run = randomBytes(3).toString("hex");

// Registered after e2eSuite's: runs first, so every process is gone before its namespaces are deleted.
afterAll(async () => {
  for (const p of suite.procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await Promise.all(suite.procs.map((p) => p.exited));
});

/**
 * The child processes' environment, without Argo CD settings of the test's own environment, but
 * reading the test's local repositories.
 */
const childEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ARGOCD_"))),
  [ALLOW_LOCAL_REPOSITORIES_ENV]: "true",
};

/** A started engine process and the endpoints it logged. */
interface Engine {
  readonly proc: ControllerProcess;
  readonly metrics: string;
  readonly probe: string;
}

/** Starts `appset sync-engine --namespace NS ARGS` on free loopback ports and waits until it serves. */
function startEngine(namespace: string, ...args: string[]): Promise<Engine> {
  return startEngineThrough(undefined, namespace, ...args);
}

/** {@link startEngine}, its apiserver requests going through `proxy` (counted there) when given. */
async function startEngineThrough(proxy: CountingProxy | undefined, namespace: string, ...args: string[]): Promise<Engine> {
  const flags = ["--namespace", namespace, "--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"];
  const cache = ["--git-cache-dir", suite.temp.make("engine-git-cache-")];
  const proc = spawnController([...flags, ...cache, ...args], "sync-engine", proxy?.kubeconfigPath, childEnv);
  suite.procs.push(proc);
  const start = await proc.waitForLog("sync engine starting", 90_000);
  return { proc, metrics: String(start["metrics"]), probe: String(start["probe"]) };
}

/** The sum of `controller_runtime_reconcile_total{controller="sync-engine",…}` over its results. */
async function reconciles(engine: Engine): Promise<number> {
  const text = await (await fetch(`${engine.metrics}/metrics`)).text();
  expect(text, "the reconcile counter is served").toContain("# TYPE controller_runtime_reconcile_total counter");
  let sum = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith('controller_runtime_reconcile_total{controller="sync-engine",'))
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

/** The identity this process logged on acquiring the lease, once it has. */
function acquired(engine: Engine): string | undefined {
  const line = engine.proc.logs.find((l) => l["msg"] === "successfully acquired lease");
  return line === undefined ? undefined : String(line["identity"]);
}

/** A plain namespace, deleted after the file's tests. */
async function plainNamespace(name: string): Promise<string> {
  await suite.client().create(resources.Namespaces, { metadata: { name } });
  suite.namespaces.push(name);
  return name;
}

const configMap = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  app: ${name}\n`;

/** A repository with one directory per name, each holding the ConfigMap `cm-<name>`. */
function repoOf(names: readonly string[]): string {
  return makeRepo(suite.temp, Object.fromEntries(names.map((n) => [`${n}/cm.yaml`, configMap(`cm-${n}`)])));
}

/** An Application of `namespace` deploying `<repo>/<name>` into its own namespace, with a sync operation. */
function application(namespace: string, name: string, repo: string): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace },
    spec: {
      project: "default",
      source: { repoURL: `file://${repo}`, targetRevision: "main", path: name },
      destination: { server: "https://kubernetes.default.svc", namespace },
    },
    operation: { sync: { prune: true }, initiatedBy: { username: "e2e" } },
  };
}

interface AppView extends KubeObject {
  operation?: unknown;
  status?: {
    reconciledAt?: string;
    sync?: { status?: string };
    operationState?: { phase?: string; operation?: { initiatedBy?: { username?: string } } };
  };
}

const readApp = (namespace: string, name: string): Promise<AppView> =>
  suite.client().get<AppView>(resources.Applications, { namespace, name });

/**
 * Waits until the sync operation of the Application has run and succeeded, the comparison after it
 * says Synced (it may lag the operation by a reconcile, as in Argo CD), and its ConfigMap is there.
 */
async function synced(namespace: string, name: string, timeoutMs = 90_000): Promise<AppView> {
  const app = await eventually(
    `${namespace}/${name} synced`,
    async () => {
      const a = await readApp(namespace, name);
      const done = a.operation == null && a.status?.operationState?.phase === "Succeeded";
      return done && a.status?.sync?.status === "Synced" ? a : undefined;
    },
    timeoutMs,
  );
  await suite.client().get(resources.ConfigMaps, { namespace, name: `cm-${name}` });
  return app;
}

let syncs = 0;

/** Asks for another sync of an Application that has synced, and waits until that one has run too. */
async function syncAgain(namespace: string, name: string): Promise<void> {
  // The operation state's copy of the operation tells this sync from the earlier ones (its
  // startedAt has only second precision).
  const username = `e2e-again-${++syncs}`;
  await suite
    .client()
    .patch(
      resources.Applications,
      { namespace, name },
      { type: "merge", body: { operation: { sync: { prune: true }, initiatedBy: { username } } } },
    );
  await eventually(`${namespace}/${name} synced again`, async () => {
    const a = await readApp(namespace, name);
    const state = a.status?.operationState;
    return a.operation == null && state?.phase === "Succeeded" && state.operation?.initiatedBy?.username === username ? true : undefined;
  });
}

/**
 * Asserts that the engine never wrote the Application `namespace/name`: its resourceVersion is
 * still `resourceVersion`, it has no status, its operation is still pending, its ConfigMap was not
 * deployed, and no Event names it.
 */
async function untouched(namespace: string, name: string, resourceVersion: string): Promise<void> {
  const app = await readApp(namespace, name);
  expect(app.metadata?.resourceVersion).toBe(resourceVersion);
  expect(app.status).toBeUndefined();
  expect(app.operation).toBeDefined();
  const deployed = await suite.client().list(resources.ConfigMaps, { namespace });
  expect(deployed.items.map((c) => c.metadata?.name)).not.toContain(`cm-${name}`);
  const events = await suite.client().list<KubeObject & { involvedObject?: { name?: string } }>(resources.Events, { namespace });
  expect(events.items.filter((e) => e.involvedObject?.name === name)).toEqual([]);
}

/**
 * Changes the Application `namespace/name` (a hard-refresh annotation: a change the engine reacts
 * to when it serves the namespace) and returns its new resourceVersion.
 */
async function nudge(namespace: string, name: string): Promise<string> {
  const patched = await suite
    .client()
    .patch<KubeObject>(
      resources.Applications,
      { namespace, name },
      { type: "merge", body: { metadata: { annotations: { "argocd.argoproj.io/refresh": "hard" } } } },
    );
  return patched.metadata?.resourceVersion ?? "";
}

describe("appset sync-engine with --enable-leader-election", () => {
  it("syncs only in the leader, named by the Lease; the follower takes over when the leader is killed", async () => {
    const ns = await suite.namespace("engine-leader");
    const repo = repoOf(["one", "two", "late"]);
    const engines = [await startEngine(ns, "--enable-leader-election"), await startEngine(ns, "--enable-leader-election")];
    // Both replicas serve their probes and get ready (the cache is warm) whether they lead or not.
    for (const e of engines) {
      await eventually(`${e.probe} ready`, async () => ((await fetch(`${e.probe}/readyz`)).status === 200 ? true : undefined));
    }
    const leaderId = await eventually("a leader", () => Promise.resolve(engines.map(acquired).find((id) => id !== undefined)), 60_000);
    const leader = engines.find((e) => acquired(e) === leaderId)!;
    const follower = engines.find((e) => e !== leader)!;

    for (const name of ["one", "two"]) await suite.client().create(resources.Applications, application(ns, name, repo));
    for (const name of ["one", "two"]) await synced(ns, name);
    expect(await reconciles(leader)).toBeGreaterThan(0);
    expect(await reconciles(follower)).toBe(0);
    expect(acquired(follower)).toBeUndefined();
    const lease = await suite.client().get<Lease>(Leases, { namespace: ns, name: SYNC_ENGINE_LEASE_NAME });
    expect(lease.spec?.holderIdentity).toBe(leaderId);
    // The leader keeps working alone: another sync runs in it, the follower still has reconciled nothing.
    const leaderBefore = await reconciles(leader);
    await syncAgain(ns, "one");
    expect(await reconciles(leader)).toBeGreaterThan(leaderBefore);
    expect(await reconciles(follower)).toBe(0);

    // SIGKILL: no release of the lease; the follower waits for it to expire, then leads.
    const killedAt = performance.now();
    leader.proc.child.kill("SIGKILL");
    await leader.proc.exited;
    const followerId = await eventually("the follower leads", () => Promise.resolve(acquired(follower)), 60_000);
    // The killed leader renewed at most a retry period (plus its read and write, allowed 1 s) before
    // the kill, and the follower counts the lease from when it saw that renewal: no takeover before
    // the lease allows it.
    const earliestMs = DEFAULT_TIMINGS.leaseDurationMs - DEFAULT_TIMINGS.retryPeriodMs - 1_000;
    expect(performance.now() - killedAt).toBeGreaterThanOrEqual(earliestMs);
    expect(followerId).not.toBe(leaderId);
    const taken = await suite.client().get<Lease>(Leases, { namespace: ns, name: SYNC_ENGINE_LEASE_NAME });
    expect(taken.spec?.holderIdentity).toBe(followerId);
    expect(taken.spec?.leaseTransitions).toBe((lease.spec?.leaseTransitions ?? 0) + 1);
    await eventually("the new leader reconciles", async () => ((await reconciles(follower)) > 0 ? true : undefined));

    await suite.client().create(resources.Applications, application(ns, "late", repo));
    await synced(ns, "late");
  });
});

/** The writes a process made other than its Lease attempts. */
const nonLeaseWrites = (proxy: CountingProxy): string[] => proxy.writes().filter((w) => !/^(PUT|POST) leases\b/.test(w));

/** True once the process's manager has started its loops (it leads, or elects no leader). */
const loopsStarted = (engine: Engine): boolean => engine.proc.logs.some((l) => l["msg"] === "caches synced, loops started");

describe("appset sync-engine replicas on one Lease, their requests counted per process", () => {
  it("write only from the leader, and after the leader stops cleanly the other takes over and syncs", async () => {
    const ns = await suite.namespace("engine-handover");
    const repo = repoOf(["one", "two", "late"]);
    const proxies = await Promise.all([CountingProxy.start(inject("kubeconfigPath")), CountingProxy.start(inject("kubeconfigPath"))]);
    const engines: Engine[] = [];
    try {
      for (const proxy of proxies) engines.push(await startEngineThrough(proxy, ns, "--enable-leader-election"));
      const leaderId = await eventually("a leader", () => Promise.resolve(engines.map(acquired).find((id) => id !== undefined)), 60_000);
      const li = engines.findIndex((e) => acquired(e) === leaderId);
      const [leader, follower] = [engines[li]!, engines[1 - li]!];
      const [leaderProxy, followerProxy] = [proxies[li]!, proxies[1 - li]!];
      for (const e of engines) {
        await eventually(`${e.probe} ready`, async () => ((await fetch(`${e.probe}/readyz`)).status === 200 ? true : undefined));
      }

      for (const name of ["one", "two"]) await suite.client().create(resources.Applications, application(ns, name, repo));
      for (const name of ["one", "two"]) await synced(ns, name);
      // Every write seen so far is the leader's: the Applications' status and operation, the ConfigMaps.
      expect(leaderProxy.writes("applications").length).toBeGreaterThan(0);
      expect(leaderProxy.writes("configmaps").length).toBeGreaterThan(0);
      expect(nonLeaseWrites(followerProxy)).toEqual([]);
      expect(await reconciles(leader)).toBeGreaterThan(0);
      expect(await reconciles(follower)).toBe(0);
      expect([loopsStarted(leader), loopsStarted(follower)]).toEqual([true, false]);
      expect(acquired(follower)).toBeUndefined();

      // SIGTERM: the leader stops its loops, releases the Lease and exits 0; the follower takes over.
      leader.proc.child.kill("SIGTERM");
      expect(await leader.proc.exited).toBe(0);
      expect(leader.proc.logs.map((l) => l["msg"])).toContain("released leader lease");
      const followerId = await eventually("the follower leads", () => Promise.resolve(acquired(follower)), 60_000);
      expect(followerId).not.toBe(leaderId);
      const lease = await suite.client().get<Lease>(Leases, { namespace: ns, name: SYNC_ENGINE_LEASE_NAME });
      expect(lease.spec?.holderIdentity).toBe(followerId);
      await eventually("the new leader's loops", () => Promise.resolve(loopsStarted(follower) ? true : undefined));

      await suite.client().create(resources.Applications, application(ns, "late", repo));
      await synced(ns, "late");
      await syncAgain(ns, "one");
      expect(await reconciles(follower)).toBeGreaterThan(0);
      expect(followerProxy.writes("applications").length).toBeGreaterThan(0);
      follower.proc.child.kill("SIGTERM");
      expect(await follower.proc.exited).toBe(0);
    } finally {
      for (const { proc } of engines) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill("SIGKILL");
      await Promise.all(engines.map(({ proc }) => proc.exited));
      await Promise.all(proxies.map((p) => p.close()));
    }
  });
});

describe("the namespaces appset sync-engine serves", () => {
  it("syncs its namespace's Applications and those of --application-namespaces, and never writes another's", async () => {
    const home = await suite.namespace("engine-home");
    const team = await plainNamespace(`team-${run}-x`);
    const rx = await plainNamespace(`rx-${run}-y`);
    const other = await plainNamespace(`other-${run}-y`);
    const repo = repoOf(["in-home", "in-team", "in-rx", "in-other"]);
    // The project takes Applications from the team namespaces (and, to show the namespace rule is
    // the engine's own, from the other one too), as Argo CD's sourceNamespaces rule asks.
    await suite
      .client()
      .patch(
        resources.AppProjects,
        { namespace: home, name: "default" },
        { type: "merge", body: { spec: { sourceNamespaces: [team, rx, other] } } },
      );
    // Created before the engine starts, and first: the engine lists it with the others.
    const otherVersion = (await suite.client().create<KubeObject>(resources.Applications, application(other, "in-other", repo))).metadata
      ?.resourceVersion;
    await startEngine(home, "--application-namespaces", `team-${run}-*,/^rx-${run}-[a-z]+$/`);
    await suite.client().create(resources.Applications, application(home, "in-home", repo));
    await suite.client().create(resources.Applications, application(team, "in-team", repo));
    await suite.client().create(resources.Applications, application(rx, "in-rx", repo));

    for (const [ns, name] of [
      [home, "in-home"],
      [team, "in-team"],
      [rx, "in-rx"],
    ] as const) {
      const app = await synced(ns, name);
      expect(app.status?.reconciledAt).toBeDefined();
    }
    await untouched(other, "in-other", otherVersion ?? "");

    // A change to it later does not bring it in either: changed first, then an Application the
    // engine serves is synced again (one cluster-wide watch, in order), and it is still untouched.
    const nudged = await nudge(other, "in-other");
    await syncAgain(team, "in-team");
    await untouched(other, "in-other", nudged);
  });

  it("is not widened by --applicationset-namespaces", async () => {
    const home = await suite.namespace("engine-appsets");
    const elsewhere = await plainNamespace(`elsewhere-${run}`);
    const repo = repoOf(["mine", "theirs"]);
    const theirsVersion = (await suite.client().create<KubeObject>(resources.Applications, application(elsewhere, "theirs", repo))).metadata
      ?.resourceVersion;
    await startEngine(home, "--applicationset-namespaces", "*", "--enable-scm-providers=false");
    await suite.client().create(resources.Applications, application(home, "mine", repo));

    await synced(home, "mine");
    await untouched(elsewhere, "theirs", theirsVersion ?? "");
    const nudged = await nudge(elsewhere, "theirs");
    await syncAgain(home, "mine");
    await untouched(elsewhere, "theirs", nudged);
  });
});
