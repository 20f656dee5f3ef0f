import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import type { Handler } from "./http.js";
import { HEAP_SNAPSHOT_DISABLED, PROFILER_DISABLED, profilerHandler, profileSeconds, type ProfilerOptions } from "./profiler.js";

/**
 * A token kept alive for the whole file, made at run time so that it is not in the test's source
 * text (which a heap snapshot would also hold), and flat (one piece in memory, as a token read
 * from a Secret is) rather than a concatenation, which a snapshot stores as its parts.
 */
const held = { token: Buffer.from(`leak-probe-${randomBytes(16).toString("hex")}`).toString("latin1") };

/** A response that keeps its status, headers, the first bytes, and whether a string went by. */
class Sink extends Writable {
  status = 0;
  headers: Record<string, unknown> = {};
  head = "";
  bytes = 0;
  private found = false;
  private tail = "";

  constructor(private readonly needle: string) {
    super();
  }

  writeHead(status: number, headers: Record<string, unknown> = {}): this {
    this.status = status;
    Object.assign(this.headers, headers);
    return this;
  }

  setHeader(name: string, value: unknown): void {
    this.headers[name] = value;
  }

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    const text = this.tail + chunk.toString();
    if (text.includes(this.needle)) this.found = true;
    this.tail = text.slice(-this.needle.length);
    if (this.head.length < 64) this.head += chunk.toString().slice(0, 64 - this.head.length);
    this.bytes += Buffer.byteLength(chunk);
    done();
  }

  /** Whether the body held the needle. */
  get leaked(): boolean {
    return this.found;
  }
}

/** Answers `path` with the profiler; a timed profile's seconds pass on the fake clock. */
async function ask(path: string, o: Partial<ProfilerOptions> = {}): Promise<Sink> {
  const clock = new FakeClock();
  const handler = profilerHandler({ enabled: () => Promise.resolve(true), clock, argv: ["node"], ...o });
  const res = new Sink(held.token);
  const done = Promise.resolve(
    handler({} as Parameters<Handler>[0], res as unknown as Parameters<Handler>[1], new URL(`http://metrics${path}`)),
  );
  // A timed profile sleeps on the clock: once it does, allocate (the secret among it) and let its time pass.
  for (let i = 0; i < 1000 && clock.pendingTimers === 0 && res.status === 0; i++) await new Promise((r) => setImmediate(r));
  if (clock.pendingTimers > 0) {
    const garbage = Array.from({ length: 20_000 }, (_, i) => ({ i, copy: `${held.token}-${i}` }));
    expect(garbage.length).toBe(20_000);
    await clock.advanceAsync(60_000);
  }
  await done;
  await new Promise((r) => setImmediate(r));
  return res;
}

describe("the profiler's heap profiles", () => {
  it("serves a sampling heap profile that holds allocation sites but not the values in memory", async () => {
    const res = await ask("/debug/pprof/heap?seconds=1");
    expect({ status: res.status, file: res.headers["Content-Disposition"], head: res.head.slice(0, 8), leaked: res.leaked }).toEqual({
      status: 200,
      file: 'attachment; filename="heap.heapprofile"',
      head: '{"head":',
      leaked: false,
    });
  });

  it("refuses a full heap snapshot without the setting, and serves one, secrets included, with it", async () => {
    const off = await ask("/debug/pprof/heapsnapshot");
    expect({ status: off.status, leaked: off.leaked, bytes: off.bytes }).toEqual({
      status: 403,
      leaked: false,
      bytes: Buffer.byteLength(HEAP_SNAPSHOT_DISABLED),
    });
    const on = await ask("/debug/pprof/heapsnapshot", { heapSnapshot: true });
    expect({ status: on.status, head: on.head.slice(0, 12), leaked: on.leaked }).toEqual({
      status: 200,
      head: '{"snapshot":',
      leaked: true,
    });
  }, 60_000);

  it.each([
    // path: the request; status: the answer while the profiler is on and snapshots are off
    { name: "the index lists heap and heapsnapshot", path: "/debug/pprof/", status: 200 },
    { name: "a heap profile above the longest duration is refused", path: "/debug/pprof/heap?seconds=301", status: 400 },
    { name: "an unknown profile is 404", path: "/debug/pprof/goroutine", status: 404 },
  ])("$name", async ({ path, status }) => {
    expect((await ask(path)).status).toBe(status);
  });

  it("answers every profile with Argo CD's 401 while the profiler is off", async () => {
    const res = await ask("/debug/pprof/heapsnapshot", { heapSnapshot: true, enabled: () => Promise.resolve(false) });
    expect({ status: res.status, bytes: res.bytes }).toEqual({ status: 401, bytes: Buffer.byteLength(PROFILER_DISABLED) });
  });
});

describe("profileSeconds", () => {
  it.each([
    { text: null, seconds: 30 },
    { text: "5", seconds: 5 },
    { text: "0", seconds: 30 },
    { text: "x", seconds: 30 },
  ])("reads $text as $seconds", ({ text, seconds }) => {
    expect(profileSeconds(text)).toEqual({ ok: true, seconds });
  });
});
