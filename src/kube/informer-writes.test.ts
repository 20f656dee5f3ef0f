import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cm, list, settle, setup } from "../../test/support/scripted-informer.js";
import type { KubeObject, WatchEvent } from "./ports.js";

const rvOf = (o: KubeObject | undefined): string | undefined => o?.metadata?.resourceVersion;

async function started(objs: KubeObject[] = [cm("a", "10")], extra: Parameters<typeof setup>[0] = {}) {
  const s = setup({ idleTimeoutMs: 600_000, ...extra });
  s.source.lists = [() => list("10", ...objs)];
  s.informer.start();
  await s.informer.waitForSync();
  await settle();
  s.events.length = 0;
  return s;
}

describe("Informer read-your-writes", () => {
  it("holds a written object at once, tells the handlers, and neither its own watch event nor an older one changes it", async () => {
    const { source, events, informer } = await started();
    informer.written(cm("a", "20", { k: "written" }));
    expect(informer.get("ns", "a")?.data).toEqual({ k: "written" });
    expect(informer.lastSyncResourceVersion).toBe("10");
    source.current.emit({ type: "MODIFIED", object: cm("a", "15", { k: "older" }) });
    source.current.emit({ type: "MODIFIED", object: cm("a", "20", { k: "written" }) });
    expect(informer.get("ns", "a")?.data).toEqual({ k: "written" });
    expect(events).toEqual(["update a 10->20"]);
    source.current.emit({ type: "MODIFIED", object: cm("a", "21", { k: "newer" }) });
    expect(events).toEqual(["update a 10->20", "update a 20->21"]);
    expect(informer.lastSyncResourceVersion).toBe("21");
    await informer.stop();
  });

  it.each([
    // name; the events after the eviction; the resourceVersion held at the end (undefined: absent); handler calls
    {
      name: "an older event does not bring an evicted object back",
      after: [{ type: "MODIFIED", object: cm("a", "9") }],
      held: undefined,
      calls: ["delete a@10"],
    },
    {
      name: "the DELETED event of an evicted object changes nothing",
      after: [{ type: "DELETED", object: cm("a", "12") }],
      held: undefined,
      calls: ["delete a@10"],
    },
    {
      name: "a re-creation after the eviction is added",
      after: [
        { type: "DELETED", object: cm("a", "12") },
        { type: "ADDED", object: cm("a", "13", {}, "uid-2") },
      ],
      held: "13",
      calls: ["delete a@10", "add a@13"],
    },
  ] satisfies Array<{ name: string; after: WatchEvent[]; held: string | undefined; calls: string[] }>)(
    "$name",
    async ({ after, held, calls }) => {
      const { source, events, informer } = await started();
      informer.evict("ns", "a");
      for (const e of after) source.current.emit(e);
      expect(rvOf(informer.get("ns", "a"))).toBe(held);
      expect(events).toEqual(calls);
      await informer.stop();
    },
  );

  it("keeps a written object through a periodic relist taken before the write, and takes a later relist's newer version", async () => {
    const { clock, source, events, informer } = await started([cm("a", "10")], { resyncPeriodMs: 20_000 });
    let release: () => void = () => undefined;
    const early = new Promise<void>((r) => (release = r));
    source.lists = [
      async () => {
        await early;
        return list("12", cm("a", "11", { k: "listed" }));
      },
      () => list("30", cm("a", "25", { k: "later" }), cm("b", "26")),
    ];
    await clock.advanceAsync(20_000);
    await settle();
    informer.written(cm("a", "14", { k: "written" }));
    informer.written(cm("c", "15"));
    release();
    await settle();
    expect(informer.get("ns", "a")?.data).toEqual({ k: "written" });
    expect(rvOf(informer.get("ns", "c"))).toBe("15");
    expect(informer.lastSyncResourceVersion).toBe("12");
    await clock.advanceAsync(20_000);
    await settle();
    expect(informer.get("ns", "a")?.data).toEqual({ k: "later" });
    expect(informer.get("ns", "c")).toBeUndefined();
    expect(events).toEqual(["update a 10->14", "add c@15", "update a 14->25", "add b@26", "delete c@15"]);
    expect(informer.stats()).toMatchObject({ resyncs: 2 });
    await informer.stop();
  });

  it("never goes back to an older version, whatever the order of writes, watch events and evictions", async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constantFrom("write" as const, "event" as const), rv: fc.integer({ min: 11, max: 60 }) }),
      fc.constant({ kind: "evict" as const, rv: 0 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30 }), async (steps) => {
        const { source, informer } = await started();
        let newest = 10;
        for (const s of steps) {
          const before = Number(rvOf(informer.get("ns", "a")) ?? "0");
          if (s.kind === "evict") informer.evict("ns", "a");
          else if (s.kind === "write") informer.written(cm("a", String(s.rv)));
          else source.current.emit({ type: "MODIFIED", object: cm("a", String(s.rv)) });
          newest = s.kind === "evict" ? newest : Math.max(newest, s.rv);
          const after = rvOf(informer.get("ns", "a"));
          if (after !== undefined) expect(Number(after)).toBeGreaterThanOrEqual(before);
        }
        const held = rvOf(informer.get("ns", "a"));
        if (held !== undefined) expect(Number(held)).toBe(newest);
        await informer.stop();
      }),
      { numRuns: 50 },
    );
  });
});
