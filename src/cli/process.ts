/**
 * What every long-running `appset` command shares: the controller's flags parsed (help → exit 0, a bad
 * flag → exit 1), the logger and clock built, SIGTERM/SIGINT turned into an abort signal, and the end
 * of the work mapped to the exit code (lost leadership or a failure → 1).
 */
import { SystemClock, type Clock } from "../clock/index.js";
import { configUsage, effectiveLogLevel, parseConfig, type Config, type Env } from "../config/index.js";
import { errorMessage } from "../errors.js";
import { createLogger, type Logger } from "../log/logger.js";
import type { Registry } from "prom-client";
import { metricsRoutes, probeRoutes, profilerGate, startHttpServer, type Check, type HttpEndpoint } from "../server/index.js";

/** The process surroundings (injected so tests can run a command in-process). */
export interface ControllerIO {
  out(s: string): void;
  err(s: string): void;
  readonly env: Env;
  /** Registers a handler for SIGTERM/SIGINT; returns a function that unregisters it. */
  onSignal(handler: (signal: string) => void): () => void;
}

/** Registers `handler` for SIGTERM and SIGINT on the current process. */
export function processSignals(handler: (signal: string) => void): () => void {
  const on = (sig: NodeJS.Signals): void => handler(sig);
  process.on("SIGTERM", on);
  process.on("SIGINT", on);
  return () => {
    process.off("SIGTERM", on);
    process.off("SIGINT", on);
  };
}

/** What a command's work receives. */
export interface ProcessRuntime {
  readonly config: Config;
  readonly env: Env;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Aborts on SIGTERM/SIGINT. */
  readonly signal: AbortSignal;
}

/** How a command's work ended. */
export type ProcessEnd = "stopped" | "lost";

/**
 * Runs `work` as the command `command` (e.g. "appset controller"), logging as `title` (e.g.
 * "applicationset controller"); resolves to the exit code. `--help` lists the flags of `settings`
 * (default: every flag).
 */
export async function runProcess(
  names: { command: string; title: string; settings?: ReadonlySet<string> },
  args: readonly string[],
  io: ControllerIO,
  work: (rt: ProcessRuntime) => Promise<ProcessEnd>,
): Promise<number> {
  const parsed = parseConfig(args, io.env);
  if (parsed.kind === "help") {
    io.out(configUsage(names.command, names.settings));
    return 0;
  }
  if (parsed.kind === "error") {
    io.err(`${names.command}: ${parsed.message}\n`);
    return 1;
  }
  const config = parsed.config;
  const logger = createLogger({ level: effectiveLogLevel(config), format: config.logFormat, timestampLayout: config.logFormatTimestamp });
  for (const w of parsed.warnings) logger.warn(w);
  const stop = new AbortController();
  const unregister = io.onSignal((sig) => {
    logger.info({ signal: sig }, "shutting down");
    stop.abort(new Error(sig));
  });
  try {
    const end = await work({ config, env: io.env, logger, clock: new SystemClock(), signal: stop.signal });
    logger.info({ end }, `${names.title} stopped`);
    return end === "lost" ? 1 : 0;
  } catch (err) {
    logger.error({ error: errorMessage(err) }, `${names.title} failed`);
    return 1;
  } finally {
    unregister();
  }
}

/**
 * Starts a process's probe server (`--probe-addr`, `ready` added to readiness) and metrics server
 * (`--metrics-addr`, with the profiler behind Argo CD's gate file `ARGOCD_ENABLE_PROFILER_FILE_PATH`;
 * full heap snapshots only with `--profiler-heap-snapshot`).
 */
export async function startProbeAndMetrics(
  d: { config: Config; logger: Logger; clock: Clock },
  o: { registry: Registry; ready: Check },
): Promise<[HttpEndpoint, HttpEndpoint]> {
  const { config, logger, clock } = d;
  const profiler = { enabled: profilerGate(config.profilerFilePath), clock, argv: process.argv, heapSnapshot: config.profilerHeapSnapshot };
  const probe = await startHttpServer({ addr: config.probeAddr, routes: probeRoutes({ ready: [o.ready] }), logger, clock, name: "probe" });
  try {
    const metrics = await startHttpServer({
      addr: config.metricsAddr,
      routes: metricsRoutes(o.registry, profiler),
      logger,
      clock,
      name: "metrics",
    });
    return [probe, metrics];
  } catch (err) {
    await probe.close();
    throw err;
  }
}
