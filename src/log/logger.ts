/**
 * Logging: a pino logger built once by the composition root (src/cli) from the `--loglevel` and
 * `--logformat` settings and passed down; each reconcile gets a child bound to its identifiers.
 */
import { pino, type DestinationStream, type LogFn, type Logger } from "pino";
import { boundText, MAX_LOG_FIELD } from "../bounded-text.js";

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
}

/**
 * Builds the process logger. `text` prints `time level msg key=value…` lines. A line's string
 * fields and message are cut to {@link MAX_LOG_FIELD} (a child's bindings, our own identifiers, are not).
 */
export function createLogger(opts: LoggerOptions): Logger {
  const destination = opts.destination ?? pino.destination({ fd: 2, sync: false });
  const bounded = { formatters: { log: boundFields }, hooks: { logMethod: boundMessage } };
  if (opts.format === "json") {
    return pino({ level: opts.level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime, ...bounded }, destination);
  }
  return pino({ level: opts.level, base: undefined, timestamp: false, ...bounded }, textStream(destination));
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

/** Re-encodes pino's JSON lines as `level=info msg="…" key=value` text lines. */
function textStream(out: DestinationStream): DestinationStream {
  const names: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };
  return {
    write(line: string): void {
      const { level, msg, ...rest } = JSON.parse(line) as Record<string, unknown>;
      const fields = Object.entries(rest).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
      out.write([`level=${names[level as number] ?? String(level)}`, `msg=${JSON.stringify(msg ?? "")}`, ...fields].join(" ") + "\n");
    },
  };
}

/** A logger that discards everything (tests that do not look at logs). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
