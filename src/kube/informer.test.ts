import { describe, expect, it } from "vitest";
import { KubeApiError, KubeReason } from "./errors.js";
import { cm, list, settle, setup } from "../../test/support/scripted-informer.js";
import type { ObjectList } from "./ports.js";

describe("Informer", () => {
  it("lists, syncs, then applies watch events from the list's resourceVersion with bookmarks requested", async () => {
    const { source, events, informer } = setup();
    source.lists = [() => list("10", cm("a", "5"))];
    informer.start();
    await informer.waitForSync();
    await settle();
    expect(source.current.options).toMatchObject({
      resourceVersion: "10",
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
      namespace: "ns",
    });
    source.current.emit({ type: "ADDED", object: cm("b", "11") });
    source.current.emit({ type: "MODIFIED", object: cm("a", "12", { k: "v" }) });
    source.current.emit({ type: "DELETED", object: cm("b", "13") });
    expect(events).toEqual(["add a@5", "add b@11", "update a 5->12", "delete b@11"]);
    expect(informer.get("ns", "a")?.data).toEqual({ k: "v" });
    expect(informer.lastSyncResourceVersion).toBe("13");
    await informer.stop();
  });

  it("relists on a 410 ERROR event and delivers only real differences", async () => {
    const { source, events, informer } = setup();
    source.lists = [
      () => list("10", cm("a", "5"), cm("b", "6"), cm("c", "7")),
      () => list("50", cm("a", "5"), cm("b", "40"), cm("d", "41")),
    ];
    informer.start();
    await settle();
    events.length = 0;
    source.current.emit({ type: "ERROR", object: { kind: "Status", code: 410, reason: "Expired", message: "too old resource version" } });
    await settle();
    expect(events).toEqual(["update b 6->40", "add d@41", "delete c@7"]);
    expect(source.listCalls).toHaveLength(2);
    expect(source.current.options.resourceVersion).toBe("50");
    expect(informer.stats()).toMatchObject({ lists: 2, gone: 1 });
    await informer.stop();
  });

  it("treats an ERROR event other than 410 as a failure: backs off, then watches again without relisting", async () => {
    const { clock, source, informer } = setup();
    source.lists = [() => list("10")];
    informer.start();
    await settle();
    source.current.emit({ type: "ERROR", object: { kind: "Status", code: 500, reason: "InternalError", message: "etcd hiccup" } });
    await settle();
    expect(source.sessions).toHaveLength(1);
    await clock.advanceAsync(500);
    await settle();
    expect(source.sessions).toHaveLength(2);
    expect(informer.stats()).toMatchObject({ lists: 1, gone: 0, failures: 1 });
    await informer.stop();
  });

  it("backs off after a failure and resumes the watch from the last resourceVersion without relisting", async () => {
    const { clock, source, informer } = setup();
    source.lists = [() => list("10")];
    informer.start();
    await settle();
    source.current.emit({ type: "BOOKMARK", object: { metadata: { resourceVersion: "20" } } });
    source.current.fail(new KubeApiError({ status: 0, reason: KubeReason.Network, message: "ECONNRESET" }));
    await settle();
    expect(source.sessions).toHaveLength(1);
    await clock.advanceAsync(499);
    await settle();
    expect(source.sessions).toHaveLength(1);
    await clock.advanceAsync(1);
    await settle();
    expect(source.sessions).toHaveLength(2);
    expect(source.current.options.resourceVersion).toBe("20");
    expect(source.listCalls).toHaveLength(1);
    await informer.stop();
  });

  it("doubles the backoff on consecutive failures and resets it after a healthy watch", async () => {
    const { clock, source, informer } = setup();
    source.lists = [() => list("10")];
    informer.start();
    await settle();
    const gaps: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = source.sessions.length;
      const failedAt = clock.now();
      source.current.fail(new KubeApiError({ status: 503, reason: KubeReason.ServerError, message: "down" }));
      while (source.sessions.length === before) await clock.advanceAsync(100);
      gaps.push(clock.now() - failedAt);
    }
    expect(gaps).toEqual([500, 1000, 2000]);
    source.current.emit({ type: "BOOKMARK", object: { metadata: { resourceVersion: "11" } } });
    source.current.end();
    await settle();
    const before = source.sessions.length;
    source.current.fail(new KubeApiError({ status: 503, reason: KubeReason.ServerError, message: "down" }));
    await clock.advanceAsync(500);
    await settle();
    expect(source.sessions.length).toBe(before + 1);
    await informer.stop();
  });

  it("starts the backoff afresh when a watch that had been open a while fails (an apiserver restart)", async () => {
    const { clock, source, informer } = setup();
    source.lists = [() => list("10")];
    informer.start();
    await settle();
    const gapAfterFailure = async (openFor: number): Promise<number> => {
      await clock.advanceAsync(openFor);
      const before = source.sessions.length;
      const failedAt = clock.now();
      source.current.fail(new KubeApiError({ status: 0, reason: KubeReason.Network, message: "terminated" }));
      while (source.sessions.length === before) await clock.advanceAsync(100);
      return clock.now() - failedAt;
    };
    expect([await gapAfterFailure(0), await gapAfterFailure(0), await gapAfterFailure(0)]).toEqual([500, 1000, 2000]);
    expect(await gapAfterFailure(5_000)).toBe(500);
    await informer.stop();
  });

  it("starts the backoff afresh once a relist succeeds after failed ones", async () => {
    const { clock, source, informer } = setup();
    const down = (): never => {
      throw new KubeApiError({ status: 0, reason: KubeReason.Network, message: "ECONNREFUSED" });
    };
    source.lists = [() => list("10"), down, down, down, down, () => list("20")];
    informer.start();
    await settle();
    source.current.emit({ type: "ERROR", object: { kind: "Status", code: 410, reason: "Expired", message: "too old resource version" } });
    while (source.listCalls.length < 6) await clock.advanceAsync(100);
    await settle();
    const before = source.sessions.length;
    const failedAt = clock.now();
    source.current.fail(new KubeApiError({ status: 0, reason: KubeReason.Network, message: "terminated" }));
    while (source.sessions.length === before) await clock.advanceAsync(100);
    expect(clock.now() - failedAt).toBe(500);
    await informer.stop();
  });

  it("reopens a watch the server closed at once, from the last resourceVersion", async () => {
    const { clock, source, informer } = setup();
    source.lists = [() => list("10")];
    informer.start();
    await settle();
    source.current.emit({ type: "ADDED", object: cm("a", "15") });
    await clock.advanceAsync(5_000);
    source.current.end();
    await settle();
    expect(source.sessions).toHaveLength(2);
    expect(source.current.options.resourceVersion).toBe("15");
    await informer.stop();
  });

  it("aborts a watch that stays silent past the idle timeout and opens a new one", async () => {
    const { clock, source, informer } = setup();
    source.lists = [() => list("10")];
    informer.start();
    await settle();
    await clock.advanceAsync(30_000);
    source.current.emit({ type: "BOOKMARK", object: { metadata: { resourceVersion: "12" } } });
    await clock.advanceAsync(59_999);
    await settle();
    expect(source.sessions).toHaveLength(1);
    await clock.advanceAsync(1);
    await settle();
    expect(source.sessions).toHaveLength(2);
    expect(source.sessions[0]?.options.signal?.aborted).toBe(true);
    expect(source.current.options.resourceVersion).toBe("12");
    expect(informer.stats().idleRestarts).toBe(1);
    await informer.stop();
  });

  it("relists every resync period, delivering only what the watch missed, and never without a period", async () => {
    const { clock, source, events, informer } = setup({ resyncPeriodMs: 20_000, idleTimeoutMs: 600_000 });
    source.lists = [() => list("10", cm("a", "10")), () => list("15", cm("a", "10"), cm("b", "14"))];
    informer.start();
    await settle();
    await clock.advanceAsync(19_999);
    await settle();
    expect(source.listCalls).toHaveLength(1);
    await clock.advanceAsync(1);
    await settle();
    expect(source.listCalls).toHaveLength(2);
    expect(source.sessions[0]?.options.signal?.aborted).toBe(true);
    expect(source.current.options.resourceVersion).toBe("15");
    expect(events).toEqual(["add a@10", "add b@14"]);
    expect(informer.stats()).toMatchObject({ resyncs: 1, failures: 0 });
    await informer.stop();

    const quiet = setup({ idleTimeoutMs: 600_000 });
    quiet.source.lists = [() => list("10")];
    quiet.informer.start();
    await settle();
    await quiet.clock.advanceAsync(300_000);
    await settle();
    expect(quiet.source.listCalls).toHaveLength(1);
    await quiet.informer.stop();
  });

  it("reports an object that fails to parse, keeps the last valid version, and keeps going", async () => {
    const invalid: string[] = [];
    const { source, events, informer } = setup({
      parse: (raw) => {
        if ((raw.data as Record<string, string> | undefined)?.bad !== undefined) throw new Error("bad data");
        return raw;
      },
      onInvalid: (raw, err) => invalid.push(`${raw.metadata?.name}: ${String(err)}`),
    });
    source.lists = [() => list("10", cm("a", "5"))];
    informer.start();
    await settle();
    source.current.emit({ type: "MODIFIED", object: cm("a", "11", { bad: "x" }) });
    source.current.emit({ type: "ADDED", object: cm("b", "12", { bad: "x" }) });
    source.current.emit({ type: "ADDED", object: cm("c", "13") });
    expect(invalid).toEqual(["a: Error: bad data", "b: Error: bad data"]);
    expect(events).toEqual(["add a@5", "add c@13"]);
    expect(informer.get("ns", "a")?.metadata?.resourceVersion).toBe("5");
    expect(informer.stats().invalid).toBe(2);
    await informer.stop();
  });

  it("delivers delete then add when an object is recreated under the same name", async () => {
    const { source, events, informer } = setup();
    source.lists = [() => list("10", cm("a", "5", {}, "u1"))];
    informer.start();
    await settle();
    source.current.emit({ type: "MODIFIED", object: cm("a", "20", {}, "u2") });
    expect(events).toEqual(["add a@5", "delete a@5", "add a@20"]);
    await informer.stop();
  });

  it("reads every page of a paginated list before syncing", async () => {
    const { source, informer } = setup({ pageSize: 1 });
    source.lists = [
      (o) =>
        o.continue === undefined
          ? { items: [cm("a", "1")], resourceVersion: "9", continue: "t1" }
          : { items: [cm("b", "2")], resourceVersion: "9" },
    ];
    informer.start();
    await informer.waitForSync();
    expect(informer.list("ns").map((o) => o.metadata?.name)).toEqual(["a", "b"]);
    expect(source.listCalls.map((c) => [c.limit, c.continue])).toEqual([
      [1, undefined],
      [1, "t1"],
    ]);
    await informer.stop();
  });

  it("replays cached objects to handlers registered late and serves secondary indexes", async () => {
    const { source, informer } = setup();
    informer.addIndex("team", (o) => [(o.data as Record<string, string> | undefined)?.team ?? ""]);
    source.lists = [() => list("10", cm("a", "1", { team: "x" }), cm("b", "2", { team: "y" }))];
    informer.start();
    await informer.waitForSync();
    const late: string[] = [];
    informer.on({ add: (o) => late.push(o.metadata?.name ?? "") });
    expect(late).toEqual(["a", "b"]);
    expect(informer.byIndex("team", "y").map((o) => o.metadata?.name)).toEqual(["b"]);
    await informer.stop();
  });

  it("keeps delivering to other handlers when one throws", async () => {
    const { source, events, informer } = setup();
    informer.on({
      add: () => {
        throw new Error("handler bug");
      },
    });
    source.lists = [() => list("10", cm("a", "1"))];
    informer.start();
    await settle();
    source.current.emit({ type: "ADDED", object: cm("b", "11") });
    expect(events).toEqual(["add a@1", "add b@11"]);
    await informer.stop();
  });

  it("aborts the open watch on stop", async () => {
    const { clock, source, informer } = setup();
    source.lists = [() => list("10")];
    informer.start();
    await settle();
    const open = source.current;
    await informer.stop();
    expect(open.options.signal?.aborted).toBe(true);
    expect(clock.pendingTimers).toBe(0);
    expect(() => informer.start()).toThrow("informer was stopped");
  });

  it("ends a back-off wait at once when told to retry now, and does nothing when not waiting", async () => {
    const { clock, source, informer } = setup();
    source.lists = [() => list("10")];
    informer.start();
    await settle();
    informer.retryNow();
    await settle();
    expect(source.sessions).toHaveLength(1);
    source.current.fail(new KubeApiError({ status: 0, reason: KubeReason.Network, message: "ECONNREFUSED" }));
    await settle();
    expect(clock.pendingTimers).toBe(1);
    informer.retryNow();
    await settle();
    expect(source.sessions).toHaveLength(2);
    expect(source.current.options.resourceVersion).toBe("10");
    await informer.stop();
  });

  it("cancels the backoff timer on stop", async () => {
    const { clock, source, informer } = setup();
    source.lists = [() => list("10")];
    informer.start();
    await settle();
    source.current.fail(new KubeApiError({ status: 0, reason: KubeReason.Network, message: "down" }));
    await settle();
    expect(clock.pendingTimers).toBe(1);
    await informer.stop();
    expect(clock.pendingTimers).toBe(0);
    expect(source.sessions).toHaveLength(1);
  });

  it("rejects waitForSync when stopped before the first list completed", async () => {
    const { source, informer } = setup();
    source.lists = [() => new Promise<ObjectList>(() => undefined)];
    informer.start();
    const waiting = informer.waitForSync();
    expect(informer.hasSynced()).toBe(false);
    const stopping = informer.stop();
    await expect(waiting).rejects.toThrow("informer stopped before it synced");
    await stopping;
    expect(source.listCalls[0]?.signal?.aborted).toBe(true);
  });

  it("rejects waitForSync at once when handed a signal that has already fired", async () => {
    const { source, informer } = setup();
    source.lists = [() => new Promise<ObjectList>(() => undefined)];
    informer.start();
    const aborted = new AbortController();
    aborted.abort(new Error("shutting down"));
    await expect(informer.waitForSync(aborted.signal)).rejects.toThrow("shutting down");
    await informer.stop();
  });
});
