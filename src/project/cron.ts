/**
 * Cron schedules as Argo CD reads sync window schedules: robfig/cron v3's parser with the five
 * standard fields (minute, hour, day of month, month, day of week) and no descriptors (`@daily`,
 * `@every 1h` are refused), an optional `TZ=Zone ` or `CRON_TZ=Zone ` prefix, and robfig's error
 * messages. Each field is a comma-separated list of `*` or `?`, `N`, `N-M`, with an optional `/step`
 * (`N/step` runs from N to the field's maximum); months and weekdays also take three-letter English
 * names in any case; Sunday is 0 only. Pure.
 */
import { loadGoLocation, UTC_ZONE, type Zone } from "./cron-zone.js";

/** One field of a schedule: the values it allows, and whether it was written as a star (`*`, `?`, `*&#47;1`). */
export interface CronField {
  readonly values: ReadonlySet<number>;
  /** robfig's star bit: set by `*` or `?` with no step above 1; it decides how the two day fields combine. */
  readonly star: boolean;
}

/** A parsed schedule; it fires at second 0 of each minute its fields allow, in `zone`. */
export interface CronSchedule {
  readonly minute: CronField;
  readonly hour: CronField;
  readonly dayOfMonth: CronField;
  readonly month: CronField;
  readonly dayOfWeek: CronField;
  /** The zone of a `TZ=` prefix; UTC without one (robfig's `Local`, which Argo CD evaluates in UTC). */
  readonly zone: Zone;
}

/** A schedule, or robfig's message for a spec it refuses. */
export type CronParse =
  { readonly schedule: CronSchedule; readonly error?: undefined } | { readonly schedule?: undefined; readonly error: string };

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DAYS_OF_MONTH: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = { min: 1, max: 12, names: Object.fromEntries(MONTH_NAMES.map((name, i) => [name, i + 1])) };
const DAYS_OF_WEEK: Bounds = { min: 0, max: 6, names: Object.fromEntries(DAY_NAMES.map((name, i) => [name, i])) };

/** Thrown inside the parser with robfig's message; caught by {@link parseCronSchedule}. */
class CronError extends Error {}

/** Go's `strconv.Quote` for the texts a field can hold (no white space): `"`, `\` and control characters escaped. */
function goStrconvQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

const INT64_MAX = (1n << 63n) - 1n;

/** Go's `strconv.Atoi` on a 64-bit machine: an optional sign and decimal digits, or Go's error. */
function goAtoi(text: string): bigint {
  const syntax = (): CronError => new CronError(`strconv.Atoi: parsing ${goStrconvQuote(text)}: invalid syntax`);
  const negative = text.startsWith("-");
  const digits = negative || text.startsWith("+") ? text.slice(1) : text;
  if (digits === "") throw syntax();
  let value = 0n;
  for (const ch of digits) {
    if (ch < "0" || ch > "9") throw syntax();
    value = value * 10n + BigInt(ch);
    if (value > 2n * INT64_MAX + 1n) break;
  }
  if (value > (negative ? INT64_MAX + 1n : INT64_MAX))
    throw new CronError(`strconv.Atoi: parsing ${goStrconvQuote(text)}: value out of range`);
  return negative ? -value : value;
}

/** robfig's `mustParseInt`: a non-negative integer. */
function parseNumber(text: string): bigint {
  let value: bigint;
  try {
    value = goAtoi(text);
  } catch (error) {
    throw new CronError(`failed to parse int from ${text}: ${(error as Error).message}`);
  }
  if (value < 0n) throw new CronError(`negative number (${String(value)}) not allowed: ${text}`);
  return value;
}

/** robfig's `parseIntOrName`: a name of the field (any case), else a number. */
function parseNumberOrName(text: string, bounds: Bounds): bigint {
  const named = bounds.names?.[text.toLowerCase()];
  return named === undefined ? parseNumber(text) : BigInt(named);
}

interface Range {
  start: bigint;
  end: bigint;
  star: boolean;
}

/** The `low[-high]` part of a range expression; a leading `*` or `?` ignores what follows it. */
function lowAndHigh(text: string, expr: string, bounds: Bounds): Range {
  const ends = text.split("-");
  if (ends[0] === "*" || ends[0] === "?") return { start: BigInt(bounds.min), end: BigInt(bounds.max), star: true };
  const start = parseNumberOrName(ends[0] ?? "", bounds);
  if (ends.length > 2) throw new CronError(`too many hyphens: ${expr}`);
  const end = ends.length === 2 ? parseNumberOrName(ends[1] ?? "", bounds) : start;
  return { start, end, star: false };
}

/** Checks a range against the field's bounds, in robfig's order. */
function checkRange(range: Range, step: bigint, expr: string, bounds: Bounds): void {
  const { start, end } = range;
  if (start < BigInt(bounds.min))
    throw new CronError(`beginning of range (${String(start)}) below minimum (${String(bounds.min)}): ${expr}`);
  if (end > BigInt(bounds.max)) throw new CronError(`end of range (${String(end)}) above maximum (${String(bounds.max)}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${String(start)}) beyond end of range (${String(end)}): ${expr}`);
  if (step === 0n) throw new CronError(`step of range should be a positive number: ${expr}`);
}

/** robfig's `getRange`: the values of one `range[/step]` expression, into `values`; returns its star bit. */
function addRange(expr: string, bounds: Bounds, values: Set<number>): boolean {
  const parts = expr.split("/");
  const range = lowAndHigh(parts[0] ?? "", expr, bounds);
  let step = 1n;
  if (parts.length === 2) {
    step = parseNumber(parts[1] ?? "");
    if (!(parts[0] ?? "").includes("-")) range.end = BigInt(bounds.max);
    if (step > 1n) range.star = false;
  } else if (parts.length > 2) throw new CronError(`too many slashes: ${expr}`);
  checkRange(range, step, expr, bounds);
  for (let value = range.start; value <= range.end; value += step) values.add(Number(value));
  return range.star;
}

/** robfig's `getField`: a comma-separated list of ranges (empty items skipped). */
function parseField(text: string, bounds: Bounds): CronField {
  const values = new Set<number>();
  let star = false;
  for (const expr of text.split(",").filter((item) => item !== "")) star = addRange(expr, bounds, values) || star;
  return { values, star };
}

/** Splits off a `TZ=`/`CRON_TZ=` prefix: the zone and the rest of the spec. */
function zonePrefix(spec: string): { zone: Zone; rest: string } {
  if (!spec.startsWith("TZ=") && !spec.startsWith("CRON_TZ=")) return { zone: UTC_ZONE, rest: spec };
  const space = spec.indexOf(" ");
  // robfig slices up to the first space; without one it panics. We refuse the spec instead.
  if (space < 0) throw new CronError(`provided bad location ${spec.slice(spec.indexOf("=") + 1)}: no space after the time zone`);
  const name = spec.slice(spec.indexOf("=") + 1, space);
  const loaded = loadGoLocation(name);
  if (loaded.error !== undefined) throw new CronError(`provided bad location ${name}: ${loaded.error}`);
  return { zone: loaded.zone, rest: spec.slice(space).trim() };
}

const GO_SPACE = /\p{White_Space}+/u;

/** The five fields of a spec without its prefix, or robfig's error. */
function parseFields(spec: string, zone: Zone): CronSchedule {
  if (spec.startsWith("@")) throw new CronError(`parser does not accept descriptors: ${spec}`);
  const fields = spec.split(GO_SPACE).filter((field) => field !== "");
  if (fields.length !== 5) throw new CronError(`expected exactly 5 fields, found ${String(fields.length)}: [${fields.join(" ")}]`);
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields as [string, string, string, string, string];
  return {
    minute: parseField(minute, MINUTES),
    hour: parseField(hour, HOURS),
    dayOfMonth: parseField(dayOfMonth, DAYS_OF_MONTH),
    month: parseField(month, MONTHS),
    dayOfWeek: parseField(dayOfWeek, DAYS_OF_WEEK),
    zone,
  };
}

/**
 * Parses a schedule as Argo CD does (`cron.NewParser(Minute | Hour | Dom | Month | Dow)`): the
 * schedule, or the parser's error message (`empty spec string`, `expected exactly 5 fields, found
 * 3: [* * *]`, `end of range (60) above maximum (59): 60`, …). One divergence: a `TZ=` prefix not
 * followed by a space, on which robfig panics, is an error here.
 */
export function parseCronSchedule(spec: string): CronParse {
  if (spec === "") return { error: "empty spec string" };
  try {
    const { zone, rest } = zonePrefix(spec);
    return { schedule: parseFields(rest, zone) };
  } catch (error) {
    if (error instanceof CronError) return { error: error.message };
    throw error;
  }
}
