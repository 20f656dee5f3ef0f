/**
 * Go's time.Time for the templates: the value (printed as Go prints it), layout formatting
 * (time.Time.Format, "2006-01-02T15:04:05Z07:00") and parsing (time.ParseInLocation for numeric
 * layouts), and zones (UTC, Local = UTC, fixed and IANA zones through Intl).
 */
import { fn, GoFuncError } from "../go/types.js";
import { GoInt, type GoSpecial } from "../go/value.js";

/** A Go time.Time. */
export class GoTime implements GoSpecial {
  readonly goType = "time.Time";
  readonly goKind = "struct";
  constructor(
    readonly ms: number,
    readonly zone: string = "UTC",
    readonly offset: number = 0,
    readonly mono = false,
  ) {}

  goString(): string {
    const s = formatTime(this, "2006-01-02 15:04:05.999999999 -0700 MST");
    return this.mono ? s + " m=+0.000000001" : s;
  }

  toJSONValue(): string {
    return formatTime(this, "2006-01-02T15:04:05.999999999Z07:00");
  }

  method(name: string): ReturnType<typeof fn> | undefined {
    if (name === "Unix") return fn([], () => new GoInt(BigInt(Math.floor(this.ms / 1000)), "int64"));
    if (name === "Year") return fn([], () => new GoInt(BigInt(parts(this).year)));
    if (name === "Format") return fn(["string"], (a) => formatTime(this, a[0] as string));
    if (name === "UTC") return fn([], () => new GoTime(this.ms));
    return undefined;
  }
}

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  min: number;
  sec: number;
  ms: number;
  weekday: number;
  yday: number;
}

function parts(t: GoTime): Parts {
  const d = new Date(t.ms + t.offset * 1000);
  const start = Date.UTC(d.getUTCFullYear(), 0, 1);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    min: d.getUTCMinutes(),
    sec: d.getUTCSeconds(),
    ms: d.getUTCMilliseconds(),
    weekday: d.getUTCDay(),
    yday: Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - start) / 86400000) + 1,
  };
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const TOKENS = [
  "January",
  "Jan",
  "Monday",
  "Mon",
  "MST",
  "2006",
  "-07:00:00",
  "-070000",
  "-07:00",
  "-0700",
  "-07",
  "Z07:00:00",
  "Z070000",
  "Z07:00",
  "Z0700",
  "Z07",
  "002",
  "__2",
  "_2",
  "01",
  "02",
  "03",
  "04",
  "05",
  "06",
  "15",
  "PM",
  "pm",
  "1",
  "2",
  "3",
  "4",
  "5",
];
const FRACTION = /^[.,](0+|9+)(?![0-9])/;

const pad = (n: number, w = 2): string => String(n).padStart(w, "0");

function zoneText(t: GoTime, tok: string): string {
  if (tok.startsWith("Z") && t.offset === 0) return "Z";
  const sign = t.offset < 0 ? "-" : "+";
  const a = Math.abs(t.offset);
  const [h, m, s] = [Math.floor(a / 3600), Math.floor((a % 3600) / 60), a % 60];
  const core = tok.replace(/^Z/, "-");
  switch (core) {
    case "-07":
      return sign + pad(h);
    case "-0700":
      return sign + pad(h) + pad(m);
    case "-07:00":
      return `${sign}${pad(h)}:${pad(m)}`;
    case "-070000":
      return sign + pad(h) + pad(m) + pad(s);
    default:
      return `${sign}${pad(h)}:${pad(m)}:${pad(s)}`;
  }
}

// eslint-disable-next-line complexity
function formatToken(t: GoTime, p: Parts, tok: string): string {
  switch (tok) {
    case "January":
      return MONTHS[p.month - 1]!;
    case "Jan":
      return MONTHS[p.month - 1]!.slice(0, 3);
    case "Monday":
      return DAYS[p.weekday]!;
    case "Mon":
      return DAYS[p.weekday]!.slice(0, 3);
    case "MST":
      return t.zone;
    case "2006":
      return pad(p.year, 4);
    case "06":
      return pad(p.year % 100);
    case "01":
      return pad(p.month);
    case "1":
      return String(p.month);
    case "02":
      return pad(p.day);
    case "2":
      return String(p.day);
    case "_2":
      return String(p.day).padStart(2, " ");
    case "002":
      return pad(p.yday, 3);
    case "__2":
      return String(p.yday).padStart(3, " ");
    case "15":
      return pad(p.hour);
    case "03":
      return pad(p.hour % 12 || 12);
    case "3":
      return String(p.hour % 12 || 12);
    case "04":
      return pad(p.min);
    case "4":
      return String(p.min);
    case "05":
      return pad(p.sec);
    case "5":
      return String(p.sec);
    case "PM":
      return p.hour >= 12 ? "PM" : "AM";
    case "pm":
      return p.hour >= 12 ? "pm" : "am";
    default:
      return zoneText(t, tok);
  }
}

/** time.Time.Format with a Go layout. */
export function formatTime(t: GoTime, layout: string): string {
  const p = parts(t);
  let out = "";
  for (let i = 0; i < layout.length;) {
    const frac = FRACTION.exec(layout.slice(i));
    if (frac && (i === 0 || !/[0-9]/.test(layout[i - 1]!) || true)) {
      const n = frac[1]!.length;
      let digits = pad(p.ms, 3).padEnd(9, "0").slice(0, n);
      if (frac[1]![0] === "9") {
        digits = digits.replace(/0+$/, "");
        out += digits ? layout[i] + digits : "";
      } else out += layout[i] + digits;
      i += frac[0].length;
      continue;
    }
    const tok = TOKENS.find(
      (k) =>
        layout.startsWith(k, i) &&
        !(k === "Jan" && layout.startsWith("January", i)) &&
        !(k === "Mon" && /^Mon(day)?[a-z]/.test(layout.slice(i)) && !layout.startsWith("Monday", i)),
    );
    if (tok) {
      out += formatToken(t, p, tok);
      i += tok.length;
    } else out += layout[i++];
  }
  return out;
}

/** Resolves a zone name to an offset (seconds) and abbreviation at an instant. */
function zoneAt(zone: string, ms: number): [string, number] | null {
  if (zone === "UTC" || zone === "" || zone === "Local") return ["UTC", 0];
  try {
    return [zoneAbbreviation(zone, ms), zoneOffset(zone, ms)];
  } catch {
    return null;
  }
}

/** A zone's offset from UTC (seconds) at an instant; throws on an unknown zone. */
function zoneOffset(zone: string, ms: number): number {
  const f = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "shortOffset" });
  const name = f.formatToParts(new Date(ms)).find((x) => x.type === "timeZoneName")?.value ?? "GMT";
  const m = /GMT([+-])(\d+)(?::(\d+))?/.exec(name);
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60) : 0;
}

/** A zone's abbreviation at an instant, an offset without one as Go writes it (`+05`, `-0330`); throws on an unknown zone. */
function zoneAbbreviation(zone: string, ms: number): string {
  const abbr =
    new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "short" })
      .formatToParts(new Date(ms))
      .find((x) => x.type === "timeZoneName")?.value ?? "UTC";
  return /^GMT[+-]/.test(abbr)
    ? abbr.replace(/^GMT([+-]\d+)(?::(\d+))?$/, (_, h: string, mm?: string) => h.replace(/([+-])(\d)$/, "$10$2") + (mm ?? ""))
    : abbr;
}

/** The same instant in a zone (an unknown zone is UTC). */
export function inZone(t: GoTime, zone: string): GoTime {
  const z = zoneAt(zone, t.ms) ?? ["UTC", 0];
  return new GoTime(t.ms, z[0], z[1]);
}

/** time.ParseInLocation(layout, value, time.Local) for numeric layouts. */
export function parseTime(layout: string, value: string): GoTime {
  const f = { year: 1, month: 1, day: 1, hour: 0, min: 0, sec: 0, ms: 0, pm: -1, offset: null as number | null };
  let v = value;
  const fail = (elem: string): never => {
    throw new GoFuncError(
      `parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(v)} as ${JSON.stringify(elem)}`,
    );
  };
  for (let i = 0; i < layout.length;) {
    const tok = TOKENS.find((k) => layout.startsWith(k, i));
    if (!tok) {
      if (v[0] !== layout[i]) fail(layout.slice(i));
      v = v.slice(1);
      i++;
      continue;
    }
    v = takeToken(tok, v, f, fail);
    i += tok.length;
  }
  if (v !== "") throw new GoFuncError(`parsing time ${JSON.stringify(value)}: extra text: ${JSON.stringify(v)}`);
  if (f.pm === 1 && f.hour < 12) f.hour += 12;
  if (f.pm === 0 && f.hour === 12) f.hour = 0;
  const ms = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.min, f.sec, f.ms) - (f.offset ?? 0) * 1000;
  return f.offset === null || f.offset === 0 ? new GoTime(ms) : new GoTime(ms, "", f.offset);
}

/** A field out of its range (`month out of range`); Go reports it without the layout. */
export class RangeErr extends Error {}

type Fields = {
  year: number;
  month: number;
  day: number;
  hour: number;
  min: number;
  sec: number;
  ms: number;
  pm: number;
  offset: number | null;
};

// eslint-disable-next-line complexity
function takeToken(tok: string, v: string, f: Fields, fail: (e: string) => never): string {
  const num = (re: RegExp): [number, string] => {
    const m = re.exec(v);
    if (!m) fail(tok);
    return [Number(m[0]), v.slice(m[0].length)];
  };
  let n: number;
  switch (tok) {
    case "2006":
      [f.year, v] = num(/^\d{4}/);
      return v;
    case "06":
      [n, v] = num(/^\d{2}/);
      f.year = n >= 69 ? 1900 + n : 2000 + n;
      return v;
    case "01":
    case "1":
      [f.month, v] = num(tok === "01" ? /^\d{2}/ : /^\d{1,2}/);
      if (f.month < 1 || f.month > 12) throw new RangeErr("month out of range");
      return v;
    case "02":
    case "2":
    case "_2":
      [f.day, v] = num(tok === "02" ? /^\d{2}/ : /^ ?\d{1,2}/);
      return v;
    case "15":
      [f.hour, v] = num(/^\d{2}/);
      return v;
    case "03":
    case "3":
      [f.hour, v] = num(tok === "03" ? /^\d{2}/ : /^\d{1,2}/);
      return v;
    case "04":
    case "4":
      [f.min, v] = num(tok === "04" ? /^\d{2}/ : /^\d{1,2}/);
      return v;
    case "05":
    case "5": {
      [f.sec, v] = num(tok === "05" ? /^\d{2}/ : /^\d{1,2}/);
      const fr = /^[.,](\d+)/.exec(v);
      if (fr) {
        f.ms = Math.floor(Number("0." + fr[1]) * 1000);
        v = v.slice(fr[0].length);
      }
      return v;
    }
    case "PM":
    case "pm": {
      const m = /^(AM|PM|am|pm)/.exec(v);
      if (!m) fail(tok);
      f.pm = m[1]!.toUpperCase() === "PM" ? 1 : 0;
      return v.slice(2);
    }
    case "January":
    case "Jan": {
      const i = MONTHS.findIndex((mn) => v.startsWith(tok === "Jan" ? mn.slice(0, 3) : mn));
      if (i < 0) fail(tok);
      f.month = i + 1;
      return v.slice(tok === "Jan" ? 3 : MONTHS[i]!.length);
    }
    case "Monday":
    case "Mon": {
      const i = DAYS.findIndex((d) => v.startsWith(tok === "Mon" ? d.slice(0, 3) : d));
      if (i < 0) fail(tok);
      return v.slice(tok === "Mon" ? 3 : DAYS[i]!.length);
    }
    case "MST": {
      const m = /^[A-Z]{3,5}/.exec(v);
      if (!m) fail(tok);
      return v.slice(m[0].length);
    }
    default: {
      if (tok.startsWith("Z") && v[0] === "Z") {
        f.offset = 0;
        return v.slice(1);
      }
      const m = /^([+-])(\d{2}):?(\d{2})?(?::?(\d{2}))?/.exec(v);
      if (!m) fail(tok);
      f.offset = (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0));
      return v.slice(m[0].length);
    }
  }
}
