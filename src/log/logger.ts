/**
 * Logging: a pino logger built once by the composition root (src/cli) from the `--loglevel` and
 * `--logformat` settings and passed down; each reconcile gets a child bound to its identifiers.
 * Lines come out as Argo CD's ApplicationSet controller writes them (logrus, as Argo CD v3.6.2
 * configures it): the same level words, time layout, key order and quoting.
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
   * Go time layout of the `time` field (`log.format.timestamp`), in UTC. Empty or absent: Go's
   * RFC 3339 (`2006-01-02T15:04:05Z07:00`), logrus's default, in both formats.
   */
  timestampLayout?: string;
  /** The clock of the timestamps, in epoch milliseconds (default: the system's). */
  now?: () => number;
}

/** Go's `time.RFC3339`, the layout logrus stamps lines with when none is configured. */
export const RFC3339_LAYOUT = "2006-01-02T15:04:05Z07:00";

/** logrus's `Level.String()` of each pino level: Warn prints as `warning`. */
const LEVEL_WORDS: Readonly<Record<number, string>> = { 10: "trace", 20: "debug", 30: "info", 40: "warning", 50: "error", 60: "fatal" };

/**
 * The keys pino writes a line's own time, level and message under, apart from its fields: a field
 * named `time`, `level` or `msg` is then renamed `fields.time`… as logrus does.
 */
const OWN = { time: "@@time", level: "@@level", msg: "@@msg" } as const;

/** A log line as logrus sees it: its own time, level and message, and its fields. */
export interface LogEntry {
  time: string;
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

/**
 * Builds the process logger. A line's string fields and message are cut to {@link MAX_LOG_FIELD} (a
 * child's bindings, our own identifiers, are not); an Error field is logged as its message, and the
 * field `err` as `error` (logrus's `WithError`).
 */
export function createLogger(opts: LoggerOptions): Logger {
  const destination = opts.destination ?? pino.destination({ fd: 2, sync: false });
  const layout = opts.timestampLayout || RFC3339_LAYOUT;
  const clock = new SystemClock();
  const now = opts.now ?? (() => clock.now());
  const format = opts.format === "json" ? formatJson : formatText;
  return pino(
    {
      level: opts.level,
      base: undefined,
      messageKey: OWN.msg,
      timestamp: () => `,"${OWN.time}":${JSON.stringify(formatTime(new GoTime(now()), layout))}`,
      formatters: { level: (_label, n) => ({ [OWN.level]: n }), log: logFields },
      hooks: { logMethod: boundMessage },
    },
    logrusStream(destination, format),
  );
}

/** A log call's fields: Errors as their messages, `err` as `error`, every string cut to {@link MAX_LOG_FIELD}. */
function logFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(fields)) {
    const value = raw instanceof Error ? raw.message : raw;
    out[key === "err" ? "error" : key] = typeof value === "string" ? boundText(value, MAX_LOG_FIELD) : value;
  }
  return out;
}

/** Cuts a log call's message arguments to {@link MAX_LOG_FIELD}. */
function boundMessage(this: Logger, args: Parameters<LogFn>, method: LogFn): void {
  const cut = args.map((a) => (typeof a === "string" ? boundText(a, MAX_LOG_FIELD) : a)) as Parameters<LogFn>;
  method.apply(this, cut);
}

/** Re-encodes pino's JSON lines with `format`. */
function logrusStream(out: DestinationStream, format: (entry: LogEntry) => string): DestinationStream {
  return { write: (line: string) => out.write(format(entryOf(JSON.parse(line) as Record<string, unknown>))) };
}

/** The entry of one of pino's lines; fields clashing with the entry's own keys get logrus's `fields.` prefix. */
function entryOf(line: Record<string, unknown>): LogEntry {
  const { [OWN.time]: time, [OWN.level]: level, [OWN.msg]: msg, ...rest } = line;
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest))
    fields[key === "time" || key === "level" || key === "msg" ? `fields.${key}` : key] = value;
  return {
    time: typeof time === "string" ? time : "",
    level: LEVEL_WORDS[level as number] ?? "unknown",
    msg: typeof msg === "string" ? msg : "",
    fields,
  };
}

/**
 * logrus's JSONFormatter: one object, keys sorted (Go marshals a map), `<`, `>`, `&`, U+2028 and
 * U+2029 escaped as Go's encoder does. Nested objects keep their order.
 */
export function formatJson(entry: LogEntry): string {
  const all: Record<string, unknown> = { ...entry.fields, level: entry.level, msg: entry.msg, time: entry.time };
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(all).sort(byBytes)) sorted[key] = all[key];
  return JSON.stringify(sorted).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) + "\n";
}

/**
 * logrus's TextFormatter without colours: `time="…" level=… msg=… key=value…`, the fields sorted,
 * the message left out when empty; a value is quoted (Go's `strconv.Quote`) unless it is all of
 * `A-Za-z0-9-._/@^+`, and an empty one is not quoted at all (`key=`).
 */
export function formatText(entry: LogEntry): string {
  const pairs: [string, unknown][] = [
    ["time", entry.time],
    ["level", entry.level],
  ];
  if (entry.msg !== "") pairs.push(["msg", entry.msg]);
  for (const key of Object.keys(entry.fields).sort(byBytes)) pairs.push([key, entry.fields[key]]);
  return pairs.map(([k, v]) => `${k}=${textValue(v)}`).join(" ") + "\n";
}

/** Go's string order (bytes, which for UTF-16 below the surrogates is code unit order). */
function byBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A field's value as logrus's text formatter writes it: strings, numbers and booleans as Go prints
 * them; `null` as `<nil>`; a namespaced name (`{Namespace, Name}`, Go's `types.NamespacedName`) as
 * its `String()`, `namespace/name`; other objects as JSON.
 */
function textValue(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null || value === undefined) return "<nil>";
  if (typeof value === "string") return quoteIfNeeded(value);
  const nn = value as { Namespace?: unknown; Name?: unknown };
  if (Object.keys(value).length === 2 && typeof nn.Namespace === "string" && typeof nn.Name === "string")
    return quoteIfNeeded(`${nn.Namespace}/${nn.Name}`);
  return quoteIfNeeded(JSON.stringify(value));
}

/** logrus's `needsQuoting`: a value of only these characters goes unquoted (the empty one too). */
const SAFE = /^[A-Za-z0-9\-._/@^+]*$/;

function quoteIfNeeded(s: string): string {
  return SAFE.test(s) ? s : goQuote(s);
}

/** Go's `strconv.Quote`: printable characters as they are, the rest escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (PRINTABLE.test(ch)) out += ch;
    else if (GO_ESCAPES[ch] !== undefined) out += GO_ESCAPES[ch];
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += "\\ufffd";
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return out + '"';
}

/** Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const GO_ESCAPES: Readonly<Record<string, string>> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
};

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, "0");
}

/** A logger that discards everything (tests that do not look at logs). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
