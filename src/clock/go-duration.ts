/**
 * Go's `time.Duration` text, read and written exactly as Go does: `time.ParseDuration` (a signed
 * sequence of decimal numbers, each with a unit `ns`, `us`, `µs`, `ms`, `s`, `m`, `h`; a bare `0`)
 * and `Duration.String` (`1h2m3.5s`, `250ms`, `0s`). Values are nanoseconds as a bigint, the int64
 * Go holds; the error messages are Go's. Pure.
 */

/** A text that is not a Go duration; the message is Go's (`time: invalid duration "x"`). */
export class GoDurationError extends Error {
  override readonly name = "GoDurationError";
}

const SECOND = 1_000_000_000n;
const MINUTE = 60n * SECOND;
const HOUR = 60n * MINUTE;

const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  "\u00b5s": 1_000n,
  "\u03bcs": 1_000n,
  ms: 1_000_000n,
  s: SECOND,
  m: MINUTE,
  h: HOUR,
};

const MAX_MAGNITUDE = 1n << 63n;
const MAX_FRACTION = (MAX_MAGNITUDE - 1n) / 10n;

/** Go's `time.quote`: ASCII printables as they are (`"` and `\` escaped), other bytes as `\xNN`. */
function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0x80 || code < 0x20) {
      for (const byte of Buffer.from(ch, "utf8")) out += `\\x${byte.toString(16).padStart(2, "0")}`;
    } else out += ch === '"' || ch === "\\" ? `\\${ch}` : ch;
  }
  return `${out}"`;
}

const invalid = (orig: string): GoDurationError => new GoDurationError(`time: invalid duration ${goQuote(orig)}`);

/** One `number unit` term of a duration, as Go reads it. */
interface Term {
  /** The digits before the point (may be empty). */
  readonly whole: string;
  /** The digits after the point, or undefined without a point. */
  readonly fraction: string | undefined;
  readonly unit: string;
  /** The text after the term. */
  readonly rest: string;
}

/** Splits off the next term; the unit is every character up to the next digit or point. */
function nextTerm(text: string, orig: string): Term {
  const number = /^(\d*)(?:\.(\d*))?/.exec(text);
  const whole = number?.[1] ?? "";
  const fraction = number?.[2];
  if (whole === "" && (fraction === undefined || fraction === "")) throw invalid(orig);
  const after = text.slice(number?.[0].length ?? 0);
  const unit = /^[^\d.]*/.exec(after)?.[0] ?? "";
  if (unit === "") throw new GoDurationError(`time: missing unit in duration ${goQuote(orig)}`);
  return { whole, fraction, unit, rest: after.slice(unit.length) };
}

/** Go's `leadingFraction`: the digits it keeps (stopping before they overflow) and their scale. */
function fractionValue(digits: string): { value: bigint; scale: number } {
  let value = 0n;
  let scale = 1;
  for (const digit of digits) {
    if (value > MAX_FRACTION) break;
    value = value * 10n + BigInt(digit);
    scale *= 10;
  }
  return { value, scale };
}

/** A term's magnitude in nanoseconds; the fraction is scaled in float64 and truncated, as in Go. */
function termNanos(term: Term, orig: string): bigint {
  const unit = UNIT_NS[term.unit];
  if (unit === undefined) throw new GoDurationError(`time: unknown unit ${goQuote(term.unit)} in duration ${goQuote(orig)}`);
  const whole = term.whole === "" ? 0n : BigInt(term.whole);
  if (whole > MAX_MAGNITUDE / unit) throw invalid(orig);
  let nanos = whole * unit;
  const { value, scale } = fractionValue(term.fraction ?? "");
  if (value > 0n) nanos += BigInt(Math.trunc(Number(value) * (Number(unit) / scale)));
  if (nanos > MAX_MAGNITUDE) throw invalid(orig);
  return nanos;
}

/** Go's `time.ParseDuration`: nanoseconds, or a {@link GoDurationError} with Go's message. */
export function parseGoDuration(text: string): bigint {
  const negative = text.startsWith("-");
  let rest = negative || text.startsWith("+") ? text.slice(1) : text;
  if (rest === "0") return 0n;
  if (rest === "") throw invalid(text);
  let total = 0n;
  while (rest !== "") {
    const term = nextTerm(rest, text);
    total += termNanos(term, text);
    if (total > MAX_MAGNITUDE) throw invalid(text);
    rest = term.rest;
  }
  if (negative) return -total;
  if (total === MAX_MAGNITUDE) throw invalid(text);
  return total;
}

/** `whole.fraction` of `value / divisor`, without trailing zeros. */
function decimal(value: bigint, divisor: bigint): string {
  const whole = value / divisor;
  const remainder = value % divisor;
  if (remainder === 0n) return String(whole);
  const digits = String(divisor).length - 1;
  return `${String(whole)}.${String(remainder).padStart(digits, "0").replace(/0+$/, "")}`;
}

/** The text of a magnitude below one second: `ns`, `µs` or `ms`. */
function subSecond(nanos: bigint): string {
  if (nanos < 1_000n) return `${String(nanos)}ns`;
  if (nanos < 1_000_000n) return `${decimal(nanos, 1_000n)}µs`;
  return `${decimal(nanos, 1_000_000n)}ms`;
}

/** Go's `Duration.String` of nanoseconds: `72h3m0.5s`, `1.5s`, `250ms`, `0s`. */
export function formatGoDuration(nanos: bigint): string {
  if (nanos === 0n) return "0s";
  const sign = nanos < 0n ? "-" : "";
  let rest = nanos < 0n ? -nanos : nanos;
  if (rest < SECOND) return sign + subSecond(rest);
  const hours = rest / HOUR;
  rest -= hours * HOUR;
  const minutes = rest / MINUTE;
  rest -= minutes * MINUTE;
  const h = hours > 0n ? `${String(hours)}h` : "";
  const m = hours > 0n || minutes > 0n ? `${String(minutes)}m` : "";
  return `${sign}${h}${m}${decimal(rest, SECOND)}s`;
}
