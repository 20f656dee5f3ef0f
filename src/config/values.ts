/**
 * Parsers for the value syntaxes of the controller's flags and environment variables, following the
 * Go originals: `strconv.ParseBool` for boolean flags, `time.ParseDuration` for durations (plus
 * Argo CD's `Nd` days in the environment), and comma-separated lists.
 */

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

const unitMs: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "\u00b5s": 1e-3,
  "\u03bcs": 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Go `time.ParseDuration` in milliseconds: a signed sequence of decimal numbers, each with a unit
 * (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`), e.g. `1h30m`, `1.5s`, `-2m`; a bare `0` is allowed.
 */
export function parseGoDuration(text: string): Parsed<number> {
  const match = /^([+-]?)(.*)$/.exec(text);
  const sign = match?.[1] === "-" ? -1 : 1;
  const body = match?.[2] ?? "";
  if (body === "0") return ok(0);
  if (body === "") return fail(`invalid duration "${text}"`);
  const part = /(\d+\.?\d*|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  while (pos < body.length) {
    part.lastIndex = pos;
    const m = part.exec(body);
    if (m === null) return fail(`invalid duration "${text}"`);
    total += Number(m[1]) * (unitMs[m[2] ?? ""] ?? 0);
    pos = part.lastIndex;
  }
  return ok(sign * total);
}

/** An environment duration: Go syntax, or Argo CD's `Nd` for N days. */
export function parseEnvDuration(text: string): Parsed<number> {
  const days = /^(\d+)d$/.exec(text);
  if (days !== null) return ok(Number(days[1]) * 86_400_000);
  return parseGoDuration(text);
}

/** Splits a comma-separated list, trimming entries and dropping empty ones. */
export function parseList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** Formats milliseconds the way Go prints a `time.Duration` (`10h0m0s`, `3m0s`, `1.5s`, `0s`). */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  let rest = Math.abs(ms);
  if (rest < 1_000) return `${sign}${rest}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = `${rest / 1_000}s`;
  if (h > 0) return `${sign}${h}h${m}m${s}`;
  return m > 0 ? `${sign}${m}m${s}` : `${sign}${s}`;
}
