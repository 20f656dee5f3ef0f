/**
 * The sync engine in a sharded replica (docs/sharding.md#the-sync-engine): it runs without
 * leadership, queues only the Applications this replica owns, queues every Application again when
 * the owners change, and names the replica in its reconcile log lines.
 */
import { describe, expect, it } from "vitest";
import { capturedLogger } from "../../test/support/captured-logger.js";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { list, ScriptedSource, settle } from "../../test/support/scripted-informer.js";
import { application } from "../../test/unit/syncwaves/builders.js";
import { FakeClock } from "../clock/index.js";
import type { Shard } from "../shard/index.js";
import { SyncEngine } from "./engine.js";

/** A shard owning the keys in `owned`; `change()` tells the listeners. */
function fakeShard(owned: Set<string>): Shard & { change(): void } {
  const listeners = new Set<() => void>();
  return {
    identity: "replica-1",
    owns: (key) => owned.has(key),
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    change: () => {
      for (const l of listeners) l();
    },
  };
}

const NAMES = ["a", "b", "c", "d"];

/** An engine over Applications a to d of `argocd` (none readable: each reconcile is one get), not started. */
function setup(shard: Shard | undefined): { engine: SyncEngine; client: FakeKubeClient; logs: ReturnType<typeof capturedLogger> } {
  const source = new ScriptedSource();
  source.lists = [() => list("1", ...NAMES.map((name) => application({ metadata: { name, namespace: "argocd", resourceVersion: "1" } })))];
  const client = new FakeKubeClient();
  const logs = capturedLogger("debug");
  const engine = new SyncEngine({
    watch: source,
    client,
    resolve: () => Promise.reject(new Error("nothing is resolved")),
    source: { read: () => Promise.reject(new Error("nothing is read")) },
    clock: new FakeClock(0),
    log: logs.logger,
    watchResources: false,
    ...(shard === undefined ? {} : { shard }),
  });
  return { engine, client, logs };
}

/** The Applications reconciled so far, in order (each reconcile reads its Application first). */
const reconciled = (client: FakeKubeClient): string[] =>
  client.actions.filter((a) => a.verb === "get" && a.resource === "applications").map((a) => a.name ?? "");

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await settle();
  expect(done()).toBe(true);
}

describe("the sync engine in a sharded replica", () => {
  it("runs in every replica with a shard and only in the leader without", () => {
    expect(setup(fakeShard(new Set())).engine.loop().leaderOnly).toBe(false);
    expect(setup(undefined).engine.loop().leaderOnly).toBe(true);
  });

  it("queues only the Applications it owns, then every one it owns after the owners change", async () => {
    const owned = new Set(["argocd/a", "argocd/c"]);
    const shard = fakeShard(owned);
    const { engine, client } = setup(shard);
    engine.start();
    try {
      await until(() => reconciled(client).length >= 2 && engine.idle());
      expect(reconciled(client).sort()).toEqual(["a", "c"]);
      expect(engine.applications().map((a) => a.metadata.name)).toEqual(["a", "c"]);

      owned.clear();
      owned.add("argocd/b");
      owned.add("argocd/d");
      engine.add("argocd/a");
      shard.change();
      await until(() => reconciled(client).length >= 4 && engine.idle());
      expect(reconciled(client).slice(2).sort()).toEqual(["b", "d"]);
      expect(engine.applications().map((a) => a.metadata.name)).toEqual(["b", "d"]);
    } finally {
      await engine.stop(0);
    }
  });

  it("queues every Application without a shard, and names the replica in its reconcile lines with one", async () => {
    for (const shard of [undefined, fakeShard(new Set(["argocd/b"]))]) {
      const { engine, client, logs } = setup(shard);
      // A failed read: the worker logs the reconcile's error on a line with its key fields.
      client.interceptors.get = () => Promise.reject(new Error("apiserver says no"));
      engine.start();
      try {
        const want = shard === undefined ? NAMES : ["b"];
        await until(() => reconciled(client).length >= want.length && logs.lines.filter((l) => l.app !== undefined).length >= want.length);
        expect(reconciled(client).sort()).toEqual(want);
        const lines = logs.lines.filter((l) => l.app !== undefined);
        expect(lines.length).toBeGreaterThan(0);
        for (const l of lines) expect(l.replica).toBe(shard?.identity);
      } finally {
        await engine.stop(0);
      }
    }
  });
});
