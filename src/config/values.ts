/**
 * Parsers for the value syntaxes of the controller's flags and environment variables, following the
 * Go originals: `strconv.ParseBool` for boolean flags, `time.ParseDuration` for durations (plus
 * Argo CD's `Nd` days in the environment), and comma-separated lists.
 */
import { formatGoDuration, GoDurationError, parseGoDuration } from "../clock/index.js";

/** A parse result: the value, or why the text is not one. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(error: string): Parsed<T> => ({ ok: false, error });

/** Go `strconv.ParseBool`: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False. */
export function parseFlagBool(text: string): Parsed<boolean> {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(text)) return ok(true);
  if (["0", "f", "F", "FALSE", "false", "False"].includes(text)) return ok(false);
  return fail(`invalid boolean "${text}"`);
}

/** Argo CD's env booleans: `true`/`false` in any case; anything else is not a boolean. */
export function parseEnvBool(text: string): Parsed<boolean> {
  const lower = text.toLowerCase();
  if (lower === "true") return ok(true);
  if (lower === "false") return ok(false);
  return fail(`invalid boolean "${text}"`);
}

/** A base-10 integer as Go's `strconv.ParseInt` reads it (optional sign, digits only). */
export function parseInteger(text: string): Parsed<number> {
  if (!/^[+-]?\d+$/.test(text)) return fail(`invalid integer "${text}"`);
  const value = Number(text);
  return Number.isSafeInteger(value) ? ok(value) : fail(`integer "${text}" is out of range`);
}

/** A decimal number (Go's `strconv.ParseFloat` on decimal text). */
export function parseFloatText(text: string): Parsed<number> {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return fail(`invalid number "${text}"`);
  return ok(Number(text));
}

/** Go `time.ParseDuration` (`1h30m`, `1.5s`, `-2m`, a bare `0`) in milliseconds, with Go's messages. */
export function parseDurationMs(text: string): Parsed<number> {
  try {
    return ok(nanosToMs(parseGoDuration(text)));
  } catch (err) {
    if (err instanceof GoDurationError) return fail(err.message);
    throw err;
  }
}

/** Milliseconds of a nanosecond count, exact for every whole millisecond. */
function nanosToMs(nanos: bigint): number {
  return Number(nanos / 1_000_000n) + Number(nanos % 1_000_000n) / 1e6;
}

/** An environment duration: Go syntax, or Argo CD's `Nd` for N days. */
export function parseEnvDuration(text: string): Parsed<number> {
  const days = /^(\d+)d$/.exec(text);
  if (days !== null) return ok(Number(days[1]) * 86_400_000);
  return parseDurationMs(text);
}

/** Splits a comma-separated list, trimming entries and dropping empty ones. */
export function parseList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** Formats milliseconds the way Go prints a `time.Duration` (`10h0m0s`, `3m0s`, `1.5s`, `0s`). */
export function formatDurationMs(ms: number): string {
  return formatGoDuration(BigInt(Math.trunc(ms)) * 1_000_000n + BigInt(Math.round((ms % 1) * 1e6)));
}

/** clientcmd's message for a `--request-timeout` it cannot read. */
export const REQUEST_TIMEOUT_ERROR =
  "invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)";

/** kubectl's `--request-timeout`: a bare integer is seconds, else a Go duration; never negative. Milliseconds. */
export function parseRequestTimeout(text: string): Parsed<number> {
  const seconds = parseInteger(text);
  const parsed = seconds.ok ? ok(seconds.value * 1000) : parseDurationMs(text);
  return parsed.ok && parsed.value >= 0 ? parsed : fail(REQUEST_TIMEOUT_ERROR);
}
