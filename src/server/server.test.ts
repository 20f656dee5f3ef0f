import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { SystemClock } from "../clock/index.js";
import { silentLogger } from "../log/logger.js";
import { ControllerMetrics, Registry } from "../metrics/index.js";
import { metricsRoutes, PROFILER_DISABLED, probeRoutes, type Check } from "./endpoints.js";
import { parseListenAddress, startHttpServer, type HttpEndpoint, type Routes } from "./http.js";

const open: HttpEndpoint[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function serve(routes: Routes, addr = "127.0.0.1:0"): Promise<HttpEndpoint> {
  const s = await startHttpServer({ addr, routes, logger: silentLogger(), clock: new SystemClock(), name: "test", closeGraceMs: 200 });
  open.push(s);
  return s;
}

async function get(s: HttpEndpoint, path: string, method = "GET"): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(`${s.url}${path}`, { method });
  return { status: res.status, body: await res.text(), type: res.headers.get("content-type") };
}

describe("parseListenAddress", () => {
  it.each([
    // addr: a Go listen address; host/port: what it binds
    { name: "a port alone listens on every interface", addr: ":8080", host: undefined, port: 8080 },
    { name: "an IPv4 host", addr: "127.0.0.1:0", host: "127.0.0.1", port: 0 },
    { name: "a bracketed IPv6 host", addr: "[::1]:8081", host: "::1", port: 8081 },
    { name: "a host name", addr: "localhost:7000", host: "localhost", port: 7000 },
  ])("reads $name", ({ addr, host, port }) => {
    expect(parseListenAddress(addr)).toEqual({ host, port });
  });

  it.each([
    { name: "no port", addr: "8080", message: "address 8080: missing port in address" },
    { name: "a named port", addr: ":http", message: "address :http: invalid port" },
    { name: "a port beyond 65535", addr: ":70000", message: "address :70000: invalid port" },
  ])("rejects $name", ({ addr, message }) => {
    expect(() => parseListenAddress(addr)).toThrow(message);
  });
});

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
    expect(await get(s, "/readyz")).toMatchObject({ status: 500, body: "[+]ping ok\n[-]informers failed: reason withheld\nreadyz check failed\n" });
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

  it("closes with a keep-alive connection open, and refuses connections afterwards", async () => {
    const s = await startHttpServer({ addr: "127.0.0.1:0", routes: probeRoutes(), logger: silentLogger(), clock: new SystemClock(), name: "t" });
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: s.port, path: "/healthz", agent: undefined, headers: { Connection: "keep-alive" } }, (res) => {
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end();
    });
    const started = performance.now();
    await s.close();
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
  });
});
