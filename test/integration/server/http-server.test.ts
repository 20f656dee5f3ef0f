// The HTTP servers of src/server on real sockets: probes, metrics, routing and closing. Listen
// address parsing is in src/server/http.test.ts.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeClock, SystemClock } from "../../../src/clock/index.js";
import { silentLogger } from "../../../src/log/logger.js";
import { ControllerMetrics, Registry } from "../../../src/metrics/index.js";
import { metricsRoutes, probeRoutes, type Check } from "../../../src/server/endpoints.js";
import { PROFILER_DISABLED, profilerGate } from "../../../src/server/profiler.js";
import { startHttpServer, type HttpEndpoint, type Routes } from "../../../src/server/http.js";

const open: HttpEndpoint[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function serve(routes: Routes, addr = "127.0.0.1:0"): Promise<HttpEndpoint> {
  const s = await startHttpServer({ addr, routes, logger: silentLogger(), clock: new SystemClock(), name: "test", closeGraceMs: 200 });
  open.push(s);
  return s;
}

/** One GET on a keep-alive connection, read to the end (the connection stays open, idle). */
function keepAliveGet(port: number, path: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent: undefined, headers: { Connection: "keep-alive" } }, (res) => {
      res.resume();
      res.on("end", resolve);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Lets the event loop turn `n` times (I/O callbacks included). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function get(s: HttpEndpoint, path: string, method = "GET"): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(`${s.url}${path}`, { method });
  return { status: res.status, body: await res.text(), type: res.headers.get("content-type") };
}

describe("probe endpoints", () => {
  it("answers ok on /healthz and /readyz when every check passes", async () => {
    const s = await serve(probeRoutes());
    expect(await get(s, "/healthz")).toMatchObject({ status: 200, body: "ok" });
    expect(await get(s, "/readyz")).toMatchObject({ status: 200, body: "ok" });
  });

  it("is not ready until the informers have synced, while staying healthy", async () => {
    let synced = false;
    const informers: Check = {
      name: "informers",
      check: () => {
        if (!synced) throw new Error("caches not synced");
      },
    };
    const s = await serve(probeRoutes({ ready: [informers] }));
    expect(await get(s, "/readyz")).toMatchObject({
      status: 500,
      body: "[+]ping ok\n[-]informers failed: reason withheld\nreadyz check failed\n",
    });
    expect(await get(s, "/readyz/informers")).toMatchObject({ status: 500 });
    expect(await get(s, "/healthz")).toMatchObject({ status: 200, body: "ok" });
    synced = true;
    expect(await get(s, "/readyz")).toMatchObject({ status: 200, body: "ok" });
    expect(await get(s, "/readyz?verbose")).toMatchObject({ status: 200, body: "[+]ping ok\n[+]informers ok\nreadyz check passed\n" });
    expect(await get(s, "/readyz/nope")).toMatchObject({ status: 404, body: "no such readyz check: nope\n" });
  });
});

describe("metrics endpoints", () => {
  it("serves the registry in the Prometheus text format", async () => {
    const registry = new Registry();
    new ControllerMetrics({ registry, maxConcurrentReconciles: 3 });
    const s = await serve(metricsRoutes(registry));
    const res = await get(s, "/metrics");
    expect(res.status).toBe(200);
    expect(res.type).toBe(registry.contentType);
    expect(res.body).toContain('controller_runtime_max_concurrent_reconciles{controller="applicationset"} 3');
  });

  it("answers the profiler paths with Argo CD's 401", async () => {
    const s = await serve(metricsRoutes(new Registry()));
    expect(await get(s, "/debug/pprof/heap")).toMatchObject({ status: 401, body: PROFILER_DISABLED });
  });
});

describe("the profiler behind Argo CD's gate file", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "appset-profiler-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function profiled(heapSnapshot = false): Promise<{ s: HttpEndpoint; gate: string }> {
    const gate = join(dir, "profiler.enabled");
    const s = await serve(
      metricsRoutes(new Registry(), { enabled: profilerGate(gate), clock: new SystemClock(), argv: ["node", "appset"], heapSnapshot }),
    );
    return { s, gate };
  }

  it("is off while the file is absent or says anything but true, and on as soon as it says true", async () => {
    const { s, gate } = await profiled();
    const states: Array<{ content: string | undefined; status: number }> = [];
    for (const content of [undefined, "false", "true\n", "TRUE", "true"]) {
      if (content !== undefined) await writeFile(gate, content);
      states.push({ content, status: (await get(s, "/debug/pprof/")).status });
    }
    expect(states.map((x) => x.status)).toEqual([401, 401, 401, 401, 200]);
    expect(await get(s, "/debug/pprof/cmdline")).toMatchObject({ status: 200, body: "node\0appset" });
    expect(await get(s, "/debug/pprof/goroutine")).toMatchObject({ status: 404, body: "Unknown profile\n" });
    await rm(gate);
    expect(await get(s, "/debug/pprof/cmdline")).toMatchObject({ status: 401, body: PROFILER_DISABLED });
  });

  it("serves a V8 CPU profile of ?seconds and refuses one above the cap", async () => {
    const { s, gate } = await profiled();
    await writeFile(gate, "true");
    const res = await get(s, "/debug/pprof/profile?seconds=1");
    const profile = JSON.parse(res.body) as { nodes: unknown[]; startTime: number; endTime: number };
    expect({ status: res.status, nodes: profile.nodes.length > 0, micros: profile.endTime - profile.startTime >= 900_000 }).toEqual({
      status: 200,
      nodes: true,
      micros: true,
    });
    expect(await get(s, "/debug/pprof/profile?seconds=301")).toMatchObject({ status: 400 });
  });

  it("streams a V8 heap snapshot at heapsnapshot only with the setting", async () => {
    const { s, gate } = await profiled(true);
    await writeFile(gate, "true");
    const res = await fetch(`${s.url}/debug/pprof/heapsnapshot`);
    const reader = res.body!.getReader();
    let head = "";
    while (head.length < 64) {
      const chunk = await reader.read();
      if (chunk.done) break;
      head += Buffer.from(chunk.value).toString("utf8");
    }
    await reader.cancel();
    expect({ status: res.status, disposition: res.headers.get("content-disposition"), head: head.slice(0, 12) }).toEqual({
      status: 200,
      disposition: 'attachment; filename="heap.heapsnapshot"',
      head: '{"snapshot":',
    });
  });
});

describe("startHttpServer", () => {
  it.each([
    // path/method: the request; status: the answer
    { name: "an unknown path is 404", path: "/nope", method: "GET", status: 404 },
    { name: "a POST is 405", path: "/ok", method: "POST", status: 405 },
    { name: "a HEAD is served", path: "/ok", method: "HEAD", status: 200 },
    { name: "a failing handler is 500", path: "/boom", method: "GET", status: 500 },
  ])("$name", async ({ path, method, status }) => {
    const s = await serve({
      "/ok": (_q, res) => void res.end("fine"),
      "/boom": () => Promise.reject(new Error("broken")),
    });
    expect((await get(s, path, method)).status).toBe(status);
  });

  it("fails to start on an address already in use", async () => {
    const s = await serve({});
    await expect(serve({}, `127.0.0.1:${s.port}`)).rejects.toThrow(/EADDRINUSE/);
  });

  it("drops an idle keep-alive connection at once on close, without waiting out the grace period", async () => {
    // The fake clock never moves here: close() can only resolve because the idle connection is dropped.
    const clock = new FakeClock();
    const s = await startHttpServer({ addr: "127.0.0.1:0", routes: probeRoutes(), logger: silentLogger(), clock, name: "t" });
    await keepAliveGet(s.port, "/healthz");
    await s.close();
    expect(clock.pendingTimers).toBe(0);
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
  });

  it("cuts a busy connection when the grace period ends, and not before", async () => {
    const clock = new FakeClock();
    let entered: () => void = () => undefined;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const hang: Routes = {
      "/hang": () => {
        entered();
        return new Promise<void>(() => undefined);
      },
    };
    const s = await startHttpServer({ addr: "127.0.0.1:0", routes: hang, logger: silentLogger(), clock, name: "t", closeGraceMs: 2_000 });
    const answer = fetch(`${s.url}/hang`).then(
      () => "answered",
      () => "cut",
    );
    await inHandler;
    let closed = false;
    const closing = s.close().then(() => {
      closed = true;
    });
    clock.advance(1_999);
    await turns(20);
    expect(closed).toBe(false);
    clock.advance(1);
    await closing;
    expect(await answer).toBe("cut");
  });
});
