/**
 * Logging: a pino logger built once by the composition root (src/cli) from the `--loglevel` and
 * `--logformat` settings and passed down; each reconcile gets a child bound to its identifiers.
 */
import { pino, type Logger, type DestinationStream } from "pino";

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

/** Builds the process logger. `text` prints `time level msg key=value…` lines. */
export function createLogger(opts: LoggerOptions): Logger {
  const destination = opts.destination ?? pino.destination({ fd: 2, sync: false });
  if (opts.format === "json") {
    return pino({ level: opts.level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, destination);
  }
  return pino({ level: opts.level, base: undefined, timestamp: false }, textStream(destination));
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
