/**
 * Logging: a pino logger built once by the composition root (src/cli) from the `--loglevel` and
 * `--logformat` settings and passed down; each reconcile gets a child bound to its identifiers.
 */
import { pino, type DestinationStream, type LogFn, type Logger } from "pino";
import { boundText, MAX_LOG_FIELD } from "../bounded-text.js";
import { SystemClock } from "../clock/index.js";
import { formatTime, GoTime } from "../template/functions/go-time.js";

export type { Logger } from "pino";

/** Log levels accepted by `--loglevel` (Argo CD's names). */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Log formats accepted by `--logformat` (Argo CD's names). */
export const LOG_FORMATS = ["json", "text"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  level: LogLevel;
  format: LogFormat;
  /** Where lines go (default: stderr). */
  destination?: DestinationStream;
  /**
   * Go time layout of the `time` field (`log.format.timestamp`), in UTC. Empty or absent: text lines
   * carry Go's RFC 3339 (`2006-01-02T15:04:05Z07:00`, logrus's default) and json lines an ISO time
   * with milliseconds.
   */
  timestampLayout?: string;
  /** The clock of the timestamps, in epoch milliseconds (default: the system's). */
  now?: () => number;
}

/** Go's `time.RFC3339`, the layout logrus stamps lines with when none is configured. */
export const RFC3339_LAYOUT = "2006-01-02T15:04:05Z07:00";

/**
 * Builds the process logger. `text` prints `time="…" level=… msg="…" key=value…` lines, in logrus's
 * order. A line's string fields and message are cut to {@link MAX_LOG_FIELD} (a child's bindings, our
 * own identifiers, are not).
 */
export function createLogger(opts: LoggerOptions): Logger {
  const destination = opts.destination ?? pino.destination({ fd: 2, sync: false });
  const bounded = { formatters: { log: boundFields }, hooks: { logMethod: boundMessage } };
  const layout = opts.timestampLayout ?? "";
  const clock = new SystemClock();
  const now = opts.now ?? (() => clock.now());
  const stamp = (goLayout: string) => () => `,"time":${JSON.stringify(formatTime(new GoTime(now()), goLayout))}`;
  if (opts.format === "json") {
    const timestamp = layout === "" ? () => `,"time":"${new Date(now()).toISOString()}"` : stamp(layout);
    return pino({ level: opts.level, base: undefined, timestamp, ...bounded }, destination);
  }
  return pino({ level: opts.level, base: undefined, timestamp: stamp(layout || RFC3339_LAYOUT), ...bounded }, textStream(destination));
}

/** A log line's fields with every string value cut to {@link MAX_LOG_FIELD}. */
function boundFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) out[key] = typeof value === "string" ? boundText(value, MAX_LOG_FIELD) : value;
  return out;
}

/** Cuts a log call's message arguments to {@link MAX_LOG_FIELD}. */
function boundMessage(this: Logger, args: Parameters<LogFn>, method: LogFn): void {
  const cut = args.map((a) => (typeof a === "string" ? boundText(a, MAX_LOG_FIELD) : a)) as Parameters<LogFn>;
  method.apply(this, cut);
}

/** Re-encodes pino's JSON lines as `[time="…"] level=info msg="…" key=value` text lines (logrus's order). */
function textStream(out: DestinationStream): DestinationStream {
  const names: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };
  return {
    write(line: string): void {
      const { time, level, msg, ...rest } = JSON.parse(line) as Record<string, unknown>;
      const fields = Object.entries(rest).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
      const head = time === undefined ? [] : [`time=${JSON.stringify(time)}`];
      out.write(
        [...head, `level=${names[level as number] ?? String(level)}`, `msg=${JSON.stringify(msg ?? "")}`, ...fields].join(" ") + "\n",
      );
    },
  };
}

/** A logger that discards everything (tests that do not look at logs). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
