/** A JSON logger for tests that keeps every line it writes, parsed. */
import { createLogger, type Logger } from "../../src/log/logger.js";

/** The lines logged so far, and the logger that writes them. */
export interface CapturedLogger {
  readonly lines: Array<Record<string, unknown>>;
  readonly logger: Logger;
}

/** A logger at `level` whose lines are kept, parsed, in `lines`. */
export function capturedLogger(level: "debug" | "info" = "info"): CapturedLogger {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level,
    format: "json",
    destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) },
  });
  return { lines, logger };
}
