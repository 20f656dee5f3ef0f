import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { resources, type KubeObject } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { silentLogger } from "../log/logger.js";
import { capturedLogger } from "../../test/support/captured-logger.js";
import { list, ScriptedSource, settle } from "../../test/support/scripted-informer.js";
import { SharedCache } from "./cache.js";
import { Manager, runnableLoops, type Leadership, type Loop, type RunEnd } from "./manager.js";

function recorder(events: string[], name: string, leaderOnly = true): Loop {
  return {
    name,
    leaderOnly,
    start: () => void events.push(`start ${name}`),
    stop: (graceMs) => {
      events.push(`stop ${name} ${String(graceMs)}`);
      return Promise.resolve();
    },
  };
}

interface Setup {
  events: string[];
  source: ScriptedSource;
  manager: Manager;
  release: () => void;
}

function setup(loops: ReadonlyArray<{ name: string; leaderOnly: boolean }> = [], logger: Logger = silentLogger()): Setup {
  const events: string[] = [];
  const source = new ScriptedSource();
  let release = (): void => {};
  const listed = new Promise<void>((r) => (release = r));
  source.lists = [() => listed.then(() => list("1"))];
  const cache = new SharedCache({ source, clock: new FakeClock() });
  cache.informer({ resource: resources.ConfigMaps, namespace: "ns", parse: (o: KubeObject) => o });
  const manager = new Manager({
    cache,
    logger,
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
  const added =
    loops.length > 0
      ? loops
      : [
          { name: "applicationset", leaderOnly: true },
          { name: "sync-engine", leaderOnly: true },
        ];
  for (const l of added) manager.add(recorder(events, l.name, l.leaderOnly));
  return { events, source, manager, release };
}

/** A leadership the test drives: it leads when told, loses when told, and stops with the signal. */
class ScriptedLeadership implements Leadership {
  private started: ((leading: AbortSignal) => void) | undefined;
  private end: ((end: RunEnd) => void) | undefined;
  private readonly leadership = new AbortController();

  run(signal: AbortSignal, started: (leading: AbortSignal) => void): Promise<RunEnd> {
    this.started = started;
    return new Promise<RunEnd>((resolve) => {
      this.end = resolve;
      signal.addEventListener("abort", () => resolve("stopped"), { once: true });
    });
  }

  lead(): void {
    this.started?.(this.leadership.signal);
  }

  lose(): void {
    this.leadership.abort(new Error("leader election lost"));
    this.end?.("lost");
  }
}

const follower = { name: "webhook-index", leaderOnly: false };
const writer = { name: "applicationset", leaderOnly: true };
const engine = { name: "sync-engine", leaderOnly: true };

describe("runnableLoops", () => {
  it.each([
    { loops: [writer, engine], leading: true, want: ["applicationset", "sync-engine"] },
    { loops: [writer, engine], leading: false, want: [] },
    { loops: [follower, writer], leading: false, want: ["webhook-index"] },
    { loops: [follower, writer], leading: true, want: ["webhook-index", "applicationset"] },
    { loops: [], leading: true, want: [] },
  ])("leading=$leading runs $want of $loops.length loops", ({ loops, leading, want }) => {
    const events: string[] = [];
    const built = loops.map((l) => recorder(events, l.name, l.leaderOnly));
    expect(runnableLoops(built, leading).map((l) => l.name)).toEqual(want);
  });
});

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

describe("Manager.run and leadership", () => {
  const starts = (events: string[]): string[] => events.filter((e) => e.startsWith("start")).map((e) => e.slice("start ".length));

  it.each([
    {
      name: "without leader election, every loop",
      loops: [follower, writer, engine],
      leadership: "none",
      want: ["webhook-index", "applicationset", "sync-engine"],
    },
    {
      name: "a follower, only the loops that need no leadership",
      loops: [follower, writer, engine],
      leadership: "follower",
      want: ["webhook-index"],
    },
    { name: "a follower of leader-only loops, none", loops: [writer, engine], leadership: "follower", want: [] },
    {
      name: "the leader, every loop",
      loops: [follower, writer, engine],
      leadership: "leader",
      want: ["webhook-index", "applicationset", "sync-engine"],
    },
  ] as const)("runs $name", async ({ loops, leadership, want }) => {
    const { events, source, manager, release } = setup(loops);
    const election = new ScriptedLeadership();
    const stop = new AbortController();
    const running = manager.run(stop.signal, leadership === "none" ? undefined : election);
    release();
    await settle();
    if (leadership === "leader") election.lead();
    await settle();
    expect(starts(events)).toEqual(want);
    // The cache runs in every replica, leader or not.
    expect(source.sessions).toHaveLength(1);
    stop.abort();
    expect(await running).toBe("stopped");
    await manager.stop(0);
  });

  it("starts the leader-only loops when this process starts leading, not before, and each once", async () => {
    const { events, manager, release } = setup([follower, writer]);
    const election = new ScriptedLeadership();
    const stop = new AbortController();
    const running = manager.run(stop.signal, election);
    release();
    await settle();
    expect(starts(events)).toEqual(["webhook-index"]);
    election.lead();
    await settle();
    expect(starts(events)).toEqual(["webhook-index", "applicationset"]);
    stop.abort();
    await running;
    await manager.stop(0);
  });

  it("waits for the cache before starting the leader's loops, and starts none when leadership ends first", async () => {
    const log = capturedLogger();
    const { events, manager, release } = setup([writer], log.logger);
    const election = new ScriptedLeadership();
    const running = manager.run(new AbortController().signal, election);
    election.lead();
    await settle();
    expect(starts(events)).toEqual([]);
    election.lose();
    expect(await running).toBe("lost");
    release();
    await settle();
    expect(starts(events)).toEqual([]);
    // The end of leadership is no failure to report.
    expect(log.lines.map((l) => l["msg"])).not.toContain("loops failed to start");
    await manager.stop(0);
  });

  it("ends with the leadership's end: lost", async () => {
    const { manager, release } = setup([writer]);
    const election = new ScriptedLeadership();
    const running = manager.run(new AbortController().signal, election);
    release();
    election.lead();
    await settle();
    election.lose();
    expect(await running).toBe("lost");
    await manager.stop(0);
  });

  it("without leader election, stops at once when the signal has already aborted, starting nothing", async () => {
    const { events, manager, release } = setup([writer]);
    const stop = new AbortController();
    stop.abort();
    release();
    expect(await manager.run(stop.signal)).toBe("stopped");
    await settle();
    expect(starts(events)).toEqual([]);
    await manager.stop(0);
  });
});
