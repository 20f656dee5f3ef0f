/**
 * The routes of the controller's two plain servers (docs/cli.md#appset-controller):
 *
 * - the probe server (`--probe-addr`, default `:8081`): `/healthz` and `/readyz` in
 *   controller-runtime's format (`ok`, or `[-]<check> failed: reason withheld` with 500; `?verbose`
 *   lists every check; `/readyz/<check>` runs one). Argo CD registers only a ping, so its probes
 *   always pass; this controller's composition root adds "informers synced" to readiness. Leadership
 *   is never a check: a standby replica is healthy and ready.
 * - the metrics server (`--metrics-addr`, default `:8080`): `/metrics` in the Prometheus text format,
 *   and `/debug/pprof/` behind Argo CD's profiler gate (src/server/profiler.ts): a sampling heap
 *   profile, never a full heap snapshot unless `--profiler-heap-snapshot` says so.
 */
import type { ServerResponse } from "node:http";
import type { Registry } from "prom-client";
import { errorMessage } from "../errors.js";
import { sendText, type Handler, type Routes } from "./http.js";
import { PROFILER_DISABLED, profilerHandler, type ProfilerOptions } from "./profiler.js";

/** One named check; it fails by throwing (controller-runtime's `healthz.Checker`). */
export interface Check {
  name: string;
  check(): void | Promise<void>;
}

/** controller-runtime's always-passing check. */
export const ping: Check = { name: "ping", check: () => {} };

async function runChecks(checks: readonly Check[]): Promise<Array<{ name: string; error?: string }>> {
  return Promise.all(
    checks.map(async (c) => {
      try {
        await c.check();
        return { name: c.name };
      } catch (err) {
        return { name: c.name, error: errorMessage(err) };
      }
    }),
  );
}

/** A `/healthz`-style handler over `checks`, named `kind` ("healthz" or "readyz"). */
function checkHandler(kind: string, checks: readonly Check[]): Handler {
  return async (_req, res: ServerResponse, url) => {
    const sub = url.pathname.slice(`/${kind}/`.length);
    const selected = url.pathname.startsWith(`/${kind}/`) ? checks.filter((c) => c.name === sub) : checks;
    if (url.pathname.startsWith(`/${kind}/`) && selected.length === 0) return sendText(res, 404, `no such ${kind} check: ${sub}\n`);
    const results = await runChecks(selected);
    const failed = results.some((r) => r.error !== undefined);
    if (!failed && !url.searchParams.has("verbose")) return sendText(res, 200, "ok");
    const lines = results.map((r) => (r.error === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`));
    sendText(res, failed ? 500 : 200, `${lines.join("\n")}\n${kind} check ${failed ? "failed" : "passed"}\n`);
  };
}

/** The probe server's routes. `ready` checks are added to the ping of `/readyz`. */
export function probeRoutes(options: { health?: readonly Check[]; ready?: readonly Check[] } = {}): Routes {
  const health = [ping, ...(options.health ?? [])];
  const ready = [ping, ...(options.ready ?? [])];
  const healthz = checkHandler("healthz", health);
  const readyz = checkHandler("readyz", ready);
  return { "/healthz": healthz, "/healthz/": healthz, "/readyz": readyz, "/readyz/": readyz };
}

/** The metrics server's routes over one registry; without `profiler`, the profiler is always off. */
export function metricsRoutes(registry: Registry, profiler?: ProfilerOptions): Routes {
  return {
    "/metrics": async (_req, res) => {
      const body = await registry.metrics();
      res.writeHead(200, { "Content-Type": registry.contentType, "Content-Length": Buffer.byteLength(body) });
      res.end(body);
    },
    "/debug/pprof/": profiler === undefined ? (_req, res) => sendText(res, 401, PROFILER_DISABLED) : profilerHandler(profiler),
  };
}
