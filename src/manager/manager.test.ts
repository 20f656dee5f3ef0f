import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { resources, type KubeObject } from "../kube/index.js";
import { silentLogger } from "../log/logger.js";
import { list, ScriptedSource, settle } from "../../test/support/scripted-informer.js";
import { SharedCache } from "./cache.js";
import { Manager, type Loop } from "./manager.js";

function recorder(events: string[], name: string): Loop {
  return {
    name,
    start: () => void events.push(`start ${name}`),
    stop: (graceMs) => {
      events.push(`stop ${name} ${String(graceMs)}`);
      return Promise.resolve();
    },
  };
}

function setup(): { events: string[]; source: ScriptedSource; manager: Manager; release: () => void } {
  const events: string[] = [];
  const source = new ScriptedSource();
  let release = (): void => {};
  const listed = new Promise<void>((r) => (release = r));
  source.lists = [() => listed.then(() => list("1"))];
  const cache = new SharedCache({ source, clock: new FakeClock() });
  cache.informer({ resource: resources.ConfigMaps, namespace: "ns", parse: (o: KubeObject) => o });
  const manager = new Manager({
    cache,
    logger: silentLogger(),
    closers: [
      () => {
        events.push("close servers");
        return Promise.resolve();
      },
      () => {
        events.push("close clients");
        return Promise.resolve();
      },
    ],
  });
  manager.add(recorder(events, "applicationset"));
  manager.add(recorder(events, "sync-engine"));
  return { events, source, manager, release };
}

describe("Manager", () => {
  it("starts the loops only once the cache has synced, each once", async () => {
    const { events, manager, release } = setup();
    const starting = manager.startLoops();
    await settle();
    expect(events).toEqual([]);
    release();
    await starting;
    await manager.startLoops();
    expect(events).toEqual(["start applicationset", "start sync-engine"]);
    await manager.stop(1_000);
  });

  it("stops the loops, then the cache, then closes the servers and the clients, in that order", async () => {
    const { events, source, manager, release } = setup();
    release();
    await manager.startLoops();
    await settle();
    await manager.stop(5_000);
    expect(events.slice(2)).toEqual(["stop applicationset 5000", "stop sync-engine 5000", "close servers", "close clients"]);
    expect(source.sessions.every((s) => s.options.signal?.aborted === true)).toBe(true);
  });

  it("starts no loop after it was stopped", async () => {
    const { events, manager, release } = setup();
    const starting = manager.startLoops();
    await manager.stop(0);
    release();
    await starting.catch(() => undefined);
    expect(events.filter((e) => e.startsWith("start"))).toEqual([]);
  });
});
