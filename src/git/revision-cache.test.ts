import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { RevisionCache } from "./revision-cache.js";

/** A load the test settles by hand, counting its runs and recording the signals it was given. */
function loader() {
  const runs: Array<{ signal: AbortSignal | undefined; resolve: (v: string) => void; reject: (e: Error) => void }> = [];
  const load = (signal?: AbortSignal): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      runs.push({ signal, resolve, reject });
    });
  return { runs, load };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("RevisionCache", () => {
  it("shares one load among callers asking at once, and keeps its value for the interval only", async () => {
    const clock = new FakeClock(0);
    const cache = new RevisionCache<string>({ clock, ttlMs: 3000 });
    const { runs, load } = loader();
    const asked = [cache.get("u", "k", load), cache.get("u", "k", load), cache.get("u", "k", load)];
    expect(runs).toHaveLength(1);
    runs[0]!.resolve("v1");
    expect(await Promise.all(asked)).toEqual([
      { value: "v1", cached: false },
      { value: "v1", cached: true },
      { value: "v1", cached: true },
    ]);
    clock.advance(2999);
    expect(await cache.get("u", "k", load)).toEqual({ value: "v1", cached: true });
    clock.advance(1);
    const again = cache.get("u", "k", load);
    expect(runs).toHaveLength(2);
    runs[1]!.resolve("v2");
    expect(await again).toEqual({ value: "v2", cached: false });
  });

  it.each([
    // name; the interval; loads expected for two callers asking at once
    { name: "an interval of 0 keeps and shares nothing", ttlMs: 0, loads: 2 },
    { name: "a positive interval shares", ttlMs: 1, loads: 1 },
  ])("$name", async ({ ttlMs, loads }) => {
    const cache = new RevisionCache<string>({ clock: new FakeClock(0), ttlMs });
    const { runs, load } = loader();
    const asked = [cache.get("u", "k", load), cache.get("u", "k", load)];
    expect(runs).toHaveLength(loads);
    for (const r of runs) r.resolve("v");
    await Promise.all(asked);
    expect(cache.size).toBe(ttlMs > 0 ? 1 : 0);
  });

  it("gives a failed load's error to every caller sharing it and keeps nothing", async () => {
    const cache = new RevisionCache<string>({ clock: new FakeClock(0), ttlMs: 3000 });
    const { runs, load } = loader();
    const asked = [cache.get("u", "k", load), cache.get("u", "k", load)];
    runs[0]!.reject(new Error("refused"));
    for (const a of asked) await expect(a).rejects.toThrow("refused");
    expect(cache.size).toBe(0);
    void cache.get("u", "k", load);
    expect(runs).toHaveLength(2);
  });

  it("keys entries apart: one key's value never answers another", async () => {
    const cache = new RevisionCache<string>({ clock: new FakeClock(0), ttlMs: 3000 });
    const { runs, load } = loader();
    const a = cache.get("u", "creds-a", load);
    const b = cache.get("u", "creds-b", load);
    runs[0]!.resolve("for a");
    runs[1]!.resolve("for b");
    expect([(await a).value, (await b).value]).toEqual(["for a", "for b"]);
  });

  it("aborts a shared load once every waiter has given up, and the next caller starts a new one", async () => {
    const cache = new RevisionCache<string>({ clock: new FakeClock(0), ttlMs: 3000 });
    const { runs, load } = loader();
    const [x, y] = [new AbortController(), new AbortController()];
    const first = cache.get("u", "k", load, x.signal);
    const second = cache.get("u", "k", load, y.signal);
    x.abort(new Error("x gave up"));
    await expect(first).rejects.toThrow("x gave up");
    expect(runs[0]!.signal?.aborted).toBe(false);
    y.abort(new Error("y gave up"));
    await expect(second).rejects.toThrow("y gave up");
    expect(runs[0]!.signal?.aborted).toBe(true);
    const third = cache.get("u", "k", load);
    expect(runs).toHaveLength(2);
    runs[1]!.resolve("v");
    expect(await third).toEqual({ value: "v", cached: false });
  });

  it("never aborts a load a caller without a signal waits for", async () => {
    const cache = new RevisionCache<string>({ clock: new FakeClock(0), ttlMs: 3000 });
    const { runs, load } = loader();
    const patient = cache.get("u", "k", load);
    const ac = new AbortController();
    const quitter = cache.get("u", "k", load, ac.signal);
    ac.abort(new Error("quit"));
    await expect(quitter).rejects.toThrow("quit");
    expect(runs[0]!.signal?.aborted).toBe(false);
    runs[0]!.resolve("v");
    expect(await patient).toEqual({ value: "v", cached: false });
  });

  it("rejects a caller whose signal has already aborted without starting a load", async () => {
    const cache = new RevisionCache<string>({ clock: new FakeClock(0), ttlMs: 3000 });
    const { runs, load } = loader();
    await expect(cache.get("u", "k", load, AbortSignal.abort(new Error("too late")))).rejects.toThrow("too late");
    expect(runs).toHaveLength(0);
  });

  it("drops the entries of the repositories invalidated, and does not keep a load that was in flight", async () => {
    const cache = new RevisionCache<string>({ clock: new FakeClock(0), ttlMs: 3000 });
    const { runs, load } = loader();
    const kept = cache.get("https://host/a", "a1", load);
    runs[0]!.resolve("a");
    await kept;
    const other = cache.get("https://host/b", "b1", load);
    runs[1]!.resolve("b");
    await other;
    const inFlight = cache.get("https://host/a", "a2", load);
    expect(cache.invalidate((url) => url === "https://host/a")).toBe(2);
    runs[2]!.resolve("stale");
    expect(await inFlight).toEqual({ value: "stale", cached: false });
    await tick();
    expect(cache.size).toBe(1);
    expect(await cache.get("https://host/b", "b1", load)).toEqual({ value: "b", cached: true });
    void cache.get("https://host/a", "a2", load);
    expect(runs).toHaveLength(4);
  });

  it("forgets expired values when it starts a load, so keys asked once do not pile up", async () => {
    const clock = new FakeClock(0);
    const cache = new RevisionCache<string>({ clock, ttlMs: 10 });
    const { runs, load } = loader();
    for (const key of ["a", "b", "c"]) {
      const got = cache.get(key, key, load);
      runs.at(-1)!.resolve(key);
      await got;
    }
    expect(cache.size).toBe(3);
    clock.advance(10);
    const next = cache.get("d", "d", load);
    expect(cache.size).toBe(1);
    runs.at(-1)!.resolve("d");
    await next;
  });
});
