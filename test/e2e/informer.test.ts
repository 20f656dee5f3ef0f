/**
 * The informer against real apiservers: it delivers add/update/delete; it keeps delivering when the
 * server closes its watch (short `timeoutSeconds`) and when the apiserver process restarts in the
 * middle of a watch; and after a restart its old resourceVersion is really expired (the new
 * apiserver's watch cache starts at a later revision, so the watch gets 410 Gone), it relists, and
 * the relist delivers only real differences, never a second "added" for an unchanged object. A
 * watch whose connection goes silently dead (a TCP proxy stops forwarding without closing) is
 * detected by the idle watchdog and reopened.
 */
import { randomBytes } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { SystemClock } from "../../src/clock/index.js";
import {
  Informer,
  KubeApiClient,
  KubeTransport,
  loadKubeConfig,
  resources,
  type InformerOptions,
  type KubeObject,
} from "../../src/kube/index.js";
import { startControlPlane, type ControlPlane } from "../cluster/control-plane.js";

const { ConfigMaps, Namespaces } = resources;

/** Everything one informer under test delivered, as "verb name@data.v" lines. */
class Recorder {
  readonly log: string[] = [];

  attach(informer: Informer<KubeObject>): void {
    const fmt = (o: KubeObject): string => `${o.metadata?.name}@${(o.data as Record<string, string> | undefined)?.v ?? ""}`;
    informer.on({
      add: (o) => this.log.push(`add ${fmt(o)}`),
      update: (_old, o) => this.log.push(`update ${fmt(o)}`),
      delete: (o) => this.log.push(`delete ${fmt(o)}`),
    });
  }

  /** Waits until `line` has been delivered. */
  async waitFor(line: string, timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!this.log.includes(line)) {
      if (performance.now() > deadline) throw new Error(`not delivered within ${timeoutMs} ms: ${line}; got ${JSON.stringify(this.log)}`);
      await sleep(50);
    }
  }

  count(line: string): number {
    return this.log.filter((l) => l === line).length;
  }
}

const cm = (ns: string, name: string, v: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: ns, labels },
  data: { v },
});

interface Harness {
  client: KubeApiClient;
  ns: string;
  informer: Informer<KubeObject>;
  rec: Recorder;
}

const started: Array<{ informer: Informer<KubeObject>; client: KubeApiClient; ns: string }> = [];

/** Creates a namespace of its own and a started, synced informer watching ConfigMaps in it. */
async function harness(kubeconfigPath: string, options: Partial<InformerOptions<KubeObject>> = {}, server?: string): Promise<Harness> {
  const client = KubeApiClient.fromConfig({ kind: "file", path: kubeconfigPath });
  const ns = `informer-${randomBytes(3).toString("hex")}`;
  await client.create(Namespaces, { metadata: { name: ns } });
  const source = server === undefined ? client : new KubeApiClient(new KubeTransport(withServer(kubeconfigPath, server)));
  const informer = new Informer<KubeObject>({ source, resource: ConfigMaps, clock: new SystemClock(), namespace: ns, ...options });
  const rec = new Recorder();
  rec.attach(informer);
  started.push({ informer, client, ns });
  informer.start();
  await informer.waitForSync();
  return { client, ns, informer, rec };
}

function withServer(kubeconfigPath: string, server: string): ReturnType<typeof loadKubeConfig> {
  const kc = loadKubeConfig({ kind: "file", path: kubeconfigPath });
  kc.clusters = kc.clusters.map((c) => ({ ...c, server }));
  return kc;
}

/**
 * A TCP proxy to the apiserver that can make every connection open so far go silently dead: bytes
 * are swallowed in both directions and nothing is closed, as with a dropped NAT entry or a
 * half-dead peer. Connections opened later work normally.
 */
class SilencingProxy {
  private readonly pairs: Array<{ client: Socket; upstream: Socket; dead: boolean }> = [];
  private server: Server | undefined;

  async start(target: URL): Promise<string> {
    this.server = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      const pair = { client, upstream, dead: false };
      this.pairs.push(pair);
      client.on("data", (b) => pair.dead || upstream.write(b));
      upstream.on("data", (b) => pair.dead || client.write(b));
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    const addr = this.server.address();
    if (addr === null || typeof addr === "string") throw new Error("proxy has no port");
    return `https://127.0.0.1:${addr.port}`;
  }

  /** Silences every connection opened so far. */
  silenceExisting(): number {
    for (const p of this.pairs) p.dead = true;
    return this.pairs.length;
  }

  async stop(): Promise<void> {
    for (const p of this.pairs) {
      p.client.destroy();
      p.upstream.destroy();
    }
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
  }
}

afterEach(async () => {
  for (const { informer, client, ns } of started.splice(0)) {
    await informer.stop();
    await client.delete(Namespaces, { name: ns }).catch(() => undefined);
    await client.transport.close();
  }
});

describe("on the shared control plane", () => {
  it("delivers add, update and delete, and only for objects matching its label selector", async () => {
    const { client, ns, informer, rec } = await harness(inject("kubeconfigPath"), { labelSelector: "watched=yes" });
    await client.create(ConfigMaps, cm(ns, "ignored", "1"));
    await client.create(ConfigMaps, cm(ns, "a", "1", { watched: "yes" }));
    await rec.waitFor("add a@1");
    await client.patch(ConfigMaps, { namespace: ns, name: "a" }, { type: "merge", body: { data: { v: "2" } } });
    await rec.waitFor("update a@2");
    await client.delete(ConfigMaps, { namespace: ns, name: "a" });
    await rec.waitFor("delete a@2");
    expect(rec.log).toEqual(["add a@1", "update a@2", "delete a@2"]);
    expect(informer.list(ns)).toEqual([]);
  });

  it("serves get, list and a secondary index from its cache", async () => {
    const { client, ns, informer, rec } = await harness(inject("kubeconfigPath"));
    informer.addIndex("team", (o) => [o.metadata?.labels?.team ?? ""]);
    await client.create(ConfigMaps, cm(ns, "x", "1", { team: "red" }));
    await client.create(ConfigMaps, cm(ns, "y", "1", { team: "blue" }));
    await rec.waitFor("add y@1");
    expect(informer.get(ns, "x")?.metadata?.labels).toEqual({ team: "red" });
    expect(informer.byIndex("team", "blue").map((o) => o.metadata?.name)).toEqual(["y"]);
    expect(informer.list(ns).map((o) => o.metadata?.name)).toEqual(expect.arrayContaining(["x", "y"]));
    expect(informer.list("some-other-namespace")).toEqual([]);
    expect(informer.get(ns, "missing")).toBeUndefined();
  });

  it("keeps delivering, exactly once each, while the server closes its watch every 2 seconds", async () => {
    const { client, ns, informer, rec } = await harness(inject("kubeconfigPath"), { watchTimeoutSeconds: 2 });
    await client.create(ConfigMaps, cm(ns, "before", "1"));
    await rec.waitFor("add before@1");
    await sleep(5_000);
    await client.create(ConfigMaps, cm(ns, "after", "1"));
    await client.patch(ConfigMaps, { namespace: ns, name: "before" }, { type: "merge", body: { data: { v: "2" } } });
    await rec.waitFor("add after@1");
    await rec.waitFor("update before@2");
    const stats = informer.stats();
    expect(stats.watches).toBeGreaterThanOrEqual(3);
    expect(stats.lists).toBe(1);
    expect(rec.count("add before@1")).toBe(1);
    expect(rec.log.filter((l) => l.startsWith("add ")).length).toBe(new Set(rec.log.filter((l) => l.startsWith("add "))).size);
  });
});

describe("stopping", () => {
  it("stops delivering and opens no further request once stop() has resolved", async () => {
    const { client, ns, informer, rec } = await harness(inject("kubeconfigPath"), { watchTimeoutSeconds: 1 });
    await informer.stop();
    const stats = informer.stats();
    await client.create(ConfigMaps, cm(ns, "late", "1"));
    await sleep(2_500);
    expect(informer.stats()).toEqual(stats);
    expect(rec.log.filter((l) => l.includes("late@"))).toEqual([]);
  });
});

describe("over a connection that goes silently dead", () => {
  const proxy = new SilencingProxy();
  const kubeconfigPath = (): string => inject("kubeconfigPath");
  let via: string;

  beforeAll(async () => {
    via = await proxy.start(new URL(loadKubeConfig({ kind: "file", path: kubeconfigPath() }).getCurrentCluster()!.server));
  });

  afterAll(async () => {
    await proxy.stop();
  });

  it("the informer notices the silence within its idle timeout and resumes on a new connection", async () => {
    const { client, ns, informer, rec } = await harness(kubeconfigPath(), { idleTimeoutMs: 3_000, watchTimeoutSeconds: 600 }, via);
    await client.create(ConfigMaps, cm(ns, "first", "1"));
    await rec.waitFor("add first@1");
    const before = informer.stats();

    expect(proxy.silenceExisting()).toBeGreaterThan(0);
    await client.create(ConfigMaps, cm(ns, "during", "1"));
    await rec.waitFor("add during@1", 20_000);

    const after = informer.stats();
    expect(after.idleRestarts).toBeGreaterThan(before.idleRestarts);
    expect(after.lists).toBe(before.lists);
    expect(rec.count("add first@1")).toBe(1);
  });

  it("a plain request times out, and the next request gets a fresh connection", async () => {
    const client = new KubeApiClient(new KubeTransport(withServer(kubeconfigPath(), via), { requestTimeoutMs: 1_500 }));
    try {
      await client.get(Namespaces, { name: "default" });
      proxy.silenceExisting();
      const err = await client.get(Namespaces, { name: "default" }).catch((e: unknown) => e);
      expect(err).toMatchObject({ reason: "Timeout", status: 0 });
      expect((await client.get(Namespaces, { name: "default" })).metadata?.name).toBe("default");
    } finally {
      await client.transport.close();
    }
  });
});

describe("on a private control plane whose apiserver restarts", () => {
  let cp: ControlPlane;

  beforeAll(async () => {
    cp = await startControlPlane({ components: ["etcd", "apiserver"], installCrds: false });
  });

  afterAll(async () => {
    await cp.stop();
  });

  it("keeps delivering after the apiserver restarts in the middle of a watch", async () => {
    const { client, ns, informer, rec } = await harness(cp.kubeconfigPath, {
      backoff: { initialMs: 200, maxMs: 1_000, factor: 2, jitter: 0.1 },
    });
    await client.create(ConfigMaps, cm(ns, "one", "1"));
    await rec.waitFor("add one@1");
    await cp.restartApiServer();
    await client.create(ConfigMaps, cm(ns, "two", "1"));
    await client.patch(ConfigMaps, { namespace: ns, name: "one" }, { type: "merge", body: { data: { v: "2" } } });
    await rec.waitFor("add two@1");
    await rec.waitFor("update one@2");
    expect(rec.count("add one@1")).toBe(1);
    expect(informer.stats().failures).toBeGreaterThanOrEqual(1);
  });

  it("relists after its resourceVersion expires (410) and delivers only what changed", async () => {
    const { client, ns, informer, rec } = await harness(cp.kubeconfigPath, {
      // A slow, fixed retry leaves time to change objects after the restart before the informer is back.
      backoff: { initialMs: 4_000, maxMs: 4_000, factor: 1, jitter: 0 },
    });
    for (const name of ["same", "changed", "removed"]) await client.create(ConfigMaps, cm(ns, name, "1"));
    await rec.waitFor("add removed@1");
    const before = informer.stats();

    await cp.restartApiServer();
    await client.patch(ConfigMaps, { namespace: ns, name: "changed" }, { type: "merge", body: { data: { v: "2" } } });
    await client.delete(ConfigMaps, { namespace: ns, name: "removed" });
    await client.create(ConfigMaps, cm(ns, "new", "1"));

    await rec.waitFor("update changed@2");
    await rec.waitFor("delete removed@1");
    await rec.waitFor("add new@1");
    const after = informer.stats();
    expect(after.gone).toBeGreaterThan(before.gone);
    expect(after.lists).toBeGreaterThan(before.lists);
    for (const name of ["same", "changed", "removed"]) expect(rec.count(`add ${name}@1`)).toBe(1);
    expect(rec.log.filter((l) => l.includes("same@"))).toEqual(["add same@1"]);
  });
});
