/**
 * Sprig's date functions over an injected clock, on Go's time.Time (go-time.ts) and Go durations
 * (time.ParseDuration and Duration.String, src/clock/go-duration.ts).
 */
import { formatGoDuration, GoDurationError, parseGoDuration } from "../../clock/index.js";
import { fn, GoFuncError, type CallContext, type FuncMap } from "../go/types.js";
import { GoInt, type GoValue } from "../go/value.js";
import { formatTime, GoTime, inZone, parseTime, RangeErr } from "./go-time.js";

function toTime(v: GoValue, ctx: CallContext): GoTime {
  if (v instanceof GoTime) return v;
  if (v instanceof GoInt && (v.kind === "int" || v.kind === "int64" || v.kind === "int32")) return new GoTime(Number(v.v) * 1000);
  return new GoTime(ctx.now(), "UTC", 0, true);
}

/** time.ParseDuration (nanoseconds), failing with Go's message. */
function parseDuration(text: string): bigint {
  try {
    return parseGoDuration(text);
  } catch (err) {
    if (err instanceof GoDurationError) throw new GoFuncError(err.message);
    throw err;
  }
}

function durationRound(v: GoValue, ctx: CallContext): string {
  let d = 0n;
  if (typeof v === "string") {
    try {
      d = parseDuration(v);
    } catch {
      d = 0n;
    }
  } else if (v instanceof GoInt && v.kind === "int64") d = v.v;
  else if (v instanceof GoTime) d = BigInt(Math.round(ctx.now() - v.ms)) * 1000000n;
  const u = d < 0n ? -d : d;
  const H = 3600000000000n;
  const steps: [bigint, string][] = [
    [H * 24n * 365n, "y"],
    [H * 24n * 30n, "mo"],
    [H * 24n, "d"],
    [H, "h"],
    [60000000000n, "m"],
    [1000000000n, "s"],
  ];
  for (const [size, unit] of steps) if (u > size) return `${u / size}${unit}`;
  return "0s";
}

const S = (v: GoValue): string => v as string;

/** The date functions. */
export const DATE_FUNCS: FuncMap = {
  now: fn([], (_a, ctx) => new GoTime(ctx.now(), "UTC", 0, true)),
  date: fn(["string", "any"], (a, ctx) => formatTime(inZone(toTime(a[1], ctx), "Local"), S(a[0]))),
  dateInZone: fn(["string", "any", "string"], (a, ctx) => formatTime(inZone(toTime(a[1], ctx), S(a[2])), S(a[0]))),
  date_in_zone: fn(["string", "any", "string"], (a, ctx) => formatTime(inZone(toTime(a[1], ctx), S(a[2])), S(a[0]))),
  htmlDate: fn(["any"], (a, ctx) => formatTime(inZone(toTime(a[0], ctx), "Local"), "2006-01-02")),
  htmlDateInZone: fn(["any", "string"], (a, ctx) => formatTime(inZone(toTime(a[0], ctx), S(a[1])), "2006-01-02")),
  dateModify: fn(["string", "time.Time"], (a) => modify(a, false)),
  date_modify: fn(["string", "time.Time"], (a) => modify(a, false)),
  mustDateModify: fn(["string", "time.Time"], (a) => modify(a, true)),
  must_date_modify: fn(["string", "time.Time"], (a) => modify(a, true)),
  unixEpoch: fn(["time.Time"], (a) => String(Math.floor((a[0] as GoTime).ms / 1000))),
  ago: fn(["any"], (a, ctx) => formatGoDuration(BigInt(Math.round((ctx.now() - toTime(a[0], ctx).ms) / 1000)) * 1000000000n)),
  duration: fn(["any"], (a) => {
    const v = a[0];
    let n = 0n;
    if (typeof v === "string") n = /^[+-]?\d+$/.test(v) ? BigInt(v) : 0n;
    else if (v instanceof GoInt && v.kind === "int64") n = v.v;
    return formatGoDuration(BigInt.asIntN(64, n * 1000000000n));
  }),
  durationRound: fn(["any"], (a, ctx) => durationRound(a[0], ctx)),
  toDate: fn(["string", "string"], (a) => parseTimeOrZero(S(a[0]), S(a[1]), false)),
  mustToDate: fn(["string", "string"], (a) => parseTimeOrZero(S(a[0]), S(a[1]), true)),
};

function modify(a: GoValue[], must: boolean): GoValue {
  const t = a[1] as GoTime;
  try {
    const d = parseDuration(S(a[0]));
    return new GoTime(t.ms + Number(d / 1000000n), t.zone, t.offset);
  } catch (e) {
    if (must) throw e;
    return t;
  }
}

function parseTimeOrZero(layout: string, value: string, must: boolean): GoValue {
  try {
    return parseTime(layout, value);
  } catch (e) {
    if (e instanceof RangeErr) {
      if (must) throw new GoFuncError(`parsing time ${JSON.stringify(value)}: ${e.message}`);
      return new GoTime(-62135596800000);
    }
    if (must) throw e;
    return new GoTime(-62135596800000);
  }
}
