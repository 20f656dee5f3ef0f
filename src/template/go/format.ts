/**
 * Go's fmt package as templates see it: %v of every value shape, Sprint/Sprintln/Sprintf with
 * verbs, flags, width and precision, and Go's error markers (%!d(float64=3), %!v(MISSING), ...).
 */
import { GoInt, isSpecial, sortedKeys, typeName, type GoMap, type GoSlice, type GoSpecial, type GoValue } from "./value.js";

/** Parsed flags of one printf directive. */
interface Spec {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number;
  prec: number;
}

const NO_SPEC: Spec = { plus: false, minus: false, sharp: false, space: false, zero: false, width: -1, prec: -1 };

/** strconv.FormatFloat(x, 'g', -1, 64) with fmt's %v rules. */
export function formatFloatV(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "+Inf" : "-Inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const e = x.toExponential();
  const exp = Number(e.slice(e.indexOf("e") + 1));
  if (exp >= 6 || exp < -4) return goExponent(e);
  return String(x);
}

/** Rewrites JS exponent notation ("1e+21") as Go's ("1e+21", at least two exponent digits). */
function goExponent(e: string): string {
  const i = e.indexOf("e");
  const mant = e.slice(0, i);
  const sign = e[i + 1] === "-" ? "-" : "+";
  const digits = e.slice(i + 2);
  return `${mant}e${sign}${digits.length < 2 ? "0" + digits : digits}`;
}

/** Formats a float with a verb (e, E, f, F, g, G) and precision (-1 = default), as strconv does. */
export function formatFloat(x: number, verb: string, prec: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "+Inf" : "-Inf";
  switch (verb) {
    case "e":
    case "E":
      return formatFloatE(x, verb, prec);
    case "f":
    case "F":
      return toFixedEven(x, prec < 0 ? 6 : prec);
    default:
      return formatFloatG(x, verb, prec);
  }
}

/** %e and %E (precision 6 by default). */
function formatFloatE(x: number, verb: string, prec: number): string {
  const s = goExponent(x.toExponential(Math.min(prec < 0 ? 6 : prec, 100)));
  return verb === "E" ? s.toUpperCase() : s;
}

/** %g and %G: the shortest representation by default, else `prec` significant digits. */
function formatFloatG(x: number, verb: string, prec: number): string {
  const s = prec < 0 ? formatFloatV(x) : formatG(x, prec === 0 ? 1 : prec);
  return verb === "G" ? s.toUpperCase() : s;
}

/** %.Ng: N significant digits, trailing zeros removed, exponent form when exp < -4 || exp >= N. */
function formatG(x: number, prec: number): string {
  if (x === 0) return "0";
  const e = x.toExponential(Math.min(prec - 1, 100));
  const i = e.indexOf("e");
  const exp = Number(e.slice(i + 1));
  let mant = e.slice(0, i);
  if (mant.includes(".")) mant = mant.replace(/\.?0+$/, "");
  const nd = mant.replace(/^-/, "").replace(".", "").length;
  let eprec = prec;
  if (eprec > nd && nd >= exp + 1) eprec = nd;
  if (exp < -4 || exp >= eprec) return goExponent(`${mant}${e.slice(i)}`);
  const decimals = Math.max(nd - (exp + 1), 0);
  return toFixedEven(Number(`${mant}${e.slice(i)}`), decimals);
}

/** toFixed with Go's round-half-even on exact ties. */
function toFixedEven(x: number, prec: number): string {
  if (Math.abs(x) >= 1e21) return BigInt(Math.trunc(x)).toString() + (prec > 0 ? "." + "0".repeat(prec) : "");
  const s = x.toFixed(Math.min(prec, 100));
  if (prec >= 100) return s;
  const exact = x.toFixed(Math.min(100, prec + 60));
  const dot = exact.indexOf(".");
  const tail = exact.slice(dot + 1 + prec);
  if (!/^50*$/.test(tail)) return s;
  // An exact tie: JS rounded away from zero; Go rounds to even.
  const truncated = exact.slice(0, prec === 0 ? dot : dot + 1 + prec);
  const lastDigit = Number(truncated.replace(/[.-]/g, "").slice(-1));
  return lastDigit % 2 === 0 ? truncated : s;
}

/** fmt %v of any value (depth > 0 inside containers). */
export function formatValue(v: GoValue): string {
  if (v === undefined || v === null) return "<nil>";
  switch (typeof v) {
    case "string":
      return v;
    case "number":
      return formatFloatV(v);
    case "boolean":
      return v ? "true" : "false";
  }
  if (v instanceof GoInt) return v.v.toString();
  if (Array.isArray(v)) return "[" + v.map(formatValue).join(" ") + "]";
  if (isSpecial(v)) return v.goString ? v.goString() : v.goFormat ? v.goFormat() : `{${v.goType}}`;
  return (
    "map[" +
    sortedKeys(v)
      .map((k) => `${k}:${formatValue(v[k])}`)
      .join(" ") +
    "]"
  );
}

/** fmt.Sprint: spaces between operands when neither side is a string. */
export function sprint(args: GoValue[]): string {
  let out = "";
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (i > 0 && typeof a !== "string" && typeof args[i - 1] !== "string") out += " ";
    out += formatValue(a);
  }
  return out;
}

/** fmt.Sprintln: always spaces, plus a newline. */
export function sprintln(args: GoValue[]): string {
  return args.map(formatValue).join(" ") + "\n";
}

/** strconv.Quote. */
export function goQuote(s: string): string {
  return '"' + quoteBody(s, '"') + '"';
}

/** strconv.QuoteRune. */
export function goQuoteRune(r: number): string {
  return "'" + quoteBody(String.fromCodePoint(r), "'") + "'";
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function quoteBody(s: string, q: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === q || ch === "\\") out += "\\" + ch;
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (c >= 0x80 && PRINTABLE.test(ch) && !(c >= 0xd800 && c < 0xe000)) out += ch;
    else out += escapeRune(c);
  }
  return out;
}

function escapeRune(c: number): string {
  const named: Record<number, string> = { 7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v" };
  if (named[c]) return named[c];
  if (c < 0x20 || c === 0x7f) return "\\x" + c.toString(16).padStart(2, "0");
  if (c >= 0xd800 && c < 0xe000) return "\\ufffd";
  if (c < 0x10000) return "\\u" + c.toString(16).padStart(4, "0");
  return "\\U" + c.toString(16).padStart(8, "0");
}

/** fmt.Sprintf. */
export function sprintf(format: string, args: GoValue[]): string {
  let out = "";
  let argi = 0;
  let i = 0;
  while (i < format.length) {
    const pct = format.indexOf("%", i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    const spec: Spec = { ...NO_SPEC };
    i = parseFlags(format, i, spec);
    [i, argi] = parseWidthPrec(format, i, spec, args, argi);
    if (i >= format.length) {
      out += "%!(NOVERB)";
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (argi >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += formatArg(args[argi++], verb, spec);
  }
  if (argi < args.length) {
    out +=
      "%!(EXTRA " +
      args
        .slice(argi)
        .map((a) => (a == null ? "<nil>" : `${typeName(a)}=${formatValue(a)}`))
        .join(", ") +
      ")";
  }
  return out;
}

function parseFlags(f: string, i: number, spec: Spec): number {
  for (; i < f.length; i++) {
    const c = f[i];
    if (c === "+") spec.plus = true;
    else if (c === "-") spec.minus = true;
    else if (c === "#") spec.sharp = true;
    else if (c === " ") spec.space = true;
    else if (c === "0") spec.zero = true;
    else break;
  }
  return i;
}

// eslint-disable-next-line max-params -- mirrors fmt's argNumber/width/precision state
function parseWidthPrec(f: string, i: number, spec: Spec, args: GoValue[], argi: number): [number, number] {
  [i, spec.width, argi] = parseNum(f, i, args, argi);
  if (spec.width < -1) {
    spec.minus = true;
    spec.width = -spec.width - 2;
  }
  if (f[i] === ".") {
    [i, spec.prec, argi] = parseNum(f, i + 1, args, argi);
    if (spec.prec < 0) spec.prec = spec.prec === -1 ? 0 : -1;
  }
  return [i, argi];
}

/** Reads digits or '*' (taking an int argument); -1 when absent, <-1 for a negative '*' width. */
function parseNum(f: string, i: number, args: GoValue[], argi: number): [number, number, number] {
  if (f[i] === "*") {
    const a = args[argi];
    if (a instanceof GoInt) return [i + 1, Number(a.v) < 0 ? -Number(a.v) - 2 + 0 : Number(a.v), argi + 1];
    return [i + 1, -1, argi + 1];
  }
  const start = i;
  while (i < f.length && f[i]! >= "0" && f[i]! <= "9") i++;
  return [i, i > start ? Number(f.slice(start, i)) : -1, argi];
}

function pad(s: string, spec: Spec, numeric = false): string {
  const n = [...s].length;
  if (spec.width <= n) return s;
  const fill = spec.width - n;
  if (spec.minus) return s + " ".repeat(fill);
  if (spec.zero && numeric) {
    const sign = s[0] === "-" || s[0] === "+" || s[0] === " " ? s[0] : "";
    return sign + "0".repeat(fill) + s.slice(sign.length);
  }
  return (spec.zero && !numeric ? "0" : " ").repeat(fill) + s;
}

function badVerb(v: GoValue, verb: string): string {
  if (v === undefined || v === null) return `%!${verb}(<nil>)`;
  return `%!${verb}(${typeName(v)}=${formatValue(v)})`;
}

/** Formats one argument for one verb. */
export function formatArg(v: GoValue, verb: string, spec: Spec = NO_SPEC): string {
  if (verb === "T") return pad(typeName(v), spec);
  if (v === undefined || v === null) return fmtNil(v, verb, spec);
  if (verb === "v" && spec.sharp) return pad(goSyntax(v), spec);
  switch (typeof v) {
    case "string":
      return fmtString(v, verb, spec);
    case "number":
      return fmtFloatArg(v, verb, spec);
    case "boolean":
      return fmtBool(v, verb, spec);
  }
  if (v instanceof GoInt) return fmtInt(v, verb, spec);
  if (isSpecial(v)) return fmtSpecial(v, verb, spec);
  return fmtComposite(v, verb, spec);
}

function fmtNil(v: null | undefined, verb: string, spec: Spec): string {
  return verb === "v" ? pad("<nil>", spec) : badVerb(v, verb);
}

function fmtBool(v: boolean, verb: string, spec: Spec): string {
  return verb === "v" || verb === "t" ? pad(String(v), spec) : badVerb(v, verb);
}

function fmtSpecial(v: GoSpecial, verb: string, spec: Spec): string {
  if (v.goString && "vsxXq".includes(verb)) return fmtString(v.goString(), verb, spec);
  return verb === "v" ? pad(formatValue(v), spec) : badVerb(v, verb);
}

/** A slice or map: its elements (nil ones as `<nil>`) formatted with the same verb. */
function fmtComposite(v: GoSlice | GoMap, verb: string, spec: Spec): string {
  const inner = (e: GoValue): string => (e === undefined || e === null ? "<nil>" : formatArg(e, verb, spec));
  if (Array.isArray(v)) return "[" + v.map(inner).join(" ") + "]";
  const m = v;
  return (
    "map[" +
    sortedKeys(m)
      .map((k) => `${formatArg(k, verb, spec)}:${inner(m[k])}`)
      .join(" ") +
    "]"
  );
}

/** The string cut to the precision, for the verbs that take one as a length. */
function truncated(s: string, verb: string, spec: Spec): string {
  return spec.prec >= 0 && (verb === "s" || verb === "v" || verb === "q") ? [...s].slice(0, spec.prec).join("") : s;
}

function fmtString(text: string, verb: string, spec: Spec): string {
  const s = truncated(text, verb, spec);
  switch (verb) {
    case "v":
    case "s":
      return pad(s, spec);
    case "q":
      return pad(spec.sharp && !s.includes("`") ? "`" + s + "`" : goQuote(s), spec);
    case "x":
    case "X": {
      const hex = Buffer.from(s, "utf8").toString("hex");
      return pad(verb === "X" ? hex.toUpperCase() : hex, spec);
    }
    default:
      return badVerb(s, verb);
  }
}

function fmtFloatArg(x: number, verb: string, spec: Spec): string {
  if (!"vbgGxXfFeE".includes(verb) || verb === "b" || verb === "x" || verb === "X") {
    return verb === "v" ? pad(formatFloatV(x), spec, true) : badVerb(x, verb);
  }
  const s = floatSign(floatDigits(x, verb, spec), x, spec);
  if (!Number.isFinite(x)) return pad(s, { ...spec, zero: false });
  return pad(s, spec, true);
}

/** A float's digits for a verb, with the point `#` asks for on an integral value. */
function floatDigits(x: number, verb: string, spec: Spec): string {
  const s = verb === "v" ? (spec.prec >= 0 ? formatFloat(x, "g", spec.prec) : formatFloatV(x)) : formatFloat(x, verb, spec.prec);
  return spec.sharp && !s.includes(".") && !s.includes("e") && /^[-+]?\d+$/.test(s) ? s + "." : s;
}

/** The sign `+` or ` ` asks for on a non-negative float. */
function floatSign(s: string, x: number, spec: Spec): string {
  if (spec.plus && x >= 0 && !s.startsWith("+")) return "+" + s;
  if (spec.space && x >= 0) return " " + s;
  return s;
}

/** The radix of each integer verb. */
const INT_RADIX = new Map([
  ["v", 10],
  ["d", 10],
  ["b", 2],
  ["o", 8],
  ["O", 8],
  ["x", 16],
  ["X", 16],
]);

function fmtInt(n: GoInt, verb: string, spec: Spec): string {
  const rune = fmtIntRune(n, verb, spec);
  if (rune !== undefined) return rune;
  const radix = INT_RADIX.get(verb);
  if (radix === undefined) return badVerb(n, verb);
  const neg = n.v < 0n;
  const abs = neg ? -n.v : n.v;
  const digits = abs.toString(radix);
  const text = withPrecision(verb === "X" ? digits.toUpperCase() : digits, abs, spec);
  return pad(intSign(neg, spec) + intPrefix(verb, spec.sharp) + text, spec.prec >= 0 ? { ...spec, zero: false } : spec, true);
}

/** %c, %q and %U of an integer (a rune); undefined for the other verbs. */
function fmtIntRune(n: GoInt, verb: string, spec: Spec): string | undefined {
  switch (verb) {
    case "c":
      return pad(String.fromCodePoint(Number(n.v)), spec);
    case "q":
      return pad(goQuoteRune(Number(n.v)), spec);
    case "U": {
      const u = "U+" + (n.v < 0n ? -n.v : n.v).toString(16).toUpperCase().padStart(4, "0");
      return pad(spec.sharp ? `${u} '${String.fromCodePoint(Number(n.v))}'` : u, spec);
    }
    default:
      return undefined;
  }
}

/** The digits padded with zeros to the precision; none for zero at precision 0. */
function withPrecision(digits: string, abs: bigint, spec: Spec): string {
  if (spec.prec < 0) return digits;
  return spec.prec === 0 && abs === 0n ? "" : digits.padStart(spec.prec, "0");
}

function intSign(neg: boolean, spec: Spec): string {
  return neg ? "-" : spec.plus ? "+" : spec.space ? " " : "";
}

/** The base prefix: always `0o` for %O; with `#`, `0` for %o and `0x` / `0X` for %x / %X. */
function intPrefix(verb: string, sharp: boolean): string {
  if (verb === "O") return "0o";
  if (!sharp) return "";
  return verb === "o" ? "0" : verb === "x" ? "0x" : verb === "X" ? "0X" : "";
}

/** %#v: Go-syntax representation. */
export function goSyntax(v: GoValue): string {
  if (v === undefined || v === null) return "<nil>";
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "number") {
    const s = formatFloatV(v);
    return /^-?\d+$/.test(s) ? s + "" : s;
  }
  if (typeof v === "boolean") return String(v);
  if (v instanceof GoInt) return v.kind === "uint8" ? "0x" + v.v.toString(16) : v.v.toString();
  if (isSpecial(v)) return formatValue(v);
  if (Array.isArray(v)) return `${typeName(v)}{${v.map(goSyntax).join(", ")}}`;
  const m = v;
  return `${typeName(m)}{${sortedKeys(m)
    .map((k) => `${goQuote(k)}:${goSyntax(m[k])}`)
    .join(", ")}}`;
}
