/**
 * Go literal syntax used by templates: strconv.Unquote for "..." / `...` / '.' and the number
 * interpretation rules of text/template's parse.NumberNode.
 */
import type { NumberInfo } from "./ast.js";

const SIMPLE: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\" };

/** strconv.Unquote; null on invalid syntax. */
export function unquote(s: string): string | null {
  if (s.length < 2) return null;
  const q = s[0];
  if (q !== s[s.length - 1]) return null;
  const body = s.slice(1, -1);
  if (q === "`") return body.includes("`") ? null : body.replace(/\r/g, "");
  if (q !== '"' && q !== "'") return null;
  if (body.includes("\n")) return null;
  const out = unescape(body, q);
  if (out === null) return null;
  if (q === "'" && [...out].length !== 1) return null;
  return out;
}

// eslint-disable-next-line complexity
function unescape(body: string, q: string): string | null {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === q) return null;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) return null;
    if (SIMPLE[e] !== undefined) out += SIMPLE[e];
    else if (e === q) out += e;
    else if (e === "x" || e === "u" || e === "U") {
      const n = e === "x" ? 2 : e === "u" ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + n);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) return null;
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff || (e !== "x" && cp >= 0xd800 && cp < 0xe000)) return null;
      out += String.fromCodePoint(cp);
      i += n;
    } else if (e >= "0" && e <= "7") {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct)) return null;
      const v = parseInt(oct, 8);
      if (v > 255) return null;
      out += String.fromCodePoint(v);
      i += 2;
    } else return null;
  }
  return out;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** The digits each base accepts, and the prefix BigInt reads it with. */
const BASE_DIGITS = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ };
const BASE_PREFIX = { 2: "0b", 8: "0o", 10: "", 16: "0x" };
type Base = keyof typeof BASE_DIGITS;

/** strconv.ParseInt/ParseUint with base 0 (prefixes, underscores); null when not an integer. */
function parseBigInt(text: string): bigint | null {
  const neg = text[0] === "-";
  const [base, raw] = baseOf(text[0] === "+" || text[0] === "-" ? text.slice(1) : text);
  if (!underscoreOK(text)) return null;
  const digits = raw.replace(/_/g, "");
  if (!BASE_DIGITS[base].test(digits)) return null;
  const v = BigInt(BASE_PREFIX[base] + digits);
  return neg ? -v : v;
}

/** An unsigned literal's base, from its prefix (`0x`, `0b`, `0o`, or a leading 0), and its digits. */
function baseOf(s: string): [Base, string] {
  const p = s.slice(0, 2).toLowerCase();
  if (p === "0x") return [16, s.slice(2)];
  if (p === "0b") return [2, s.slice(2)];
  if (p === "0o") return [8, s.slice(2)];
  if (s.length > 1 && s[0] === "0") return [8, s.slice(1)];
  return [10, s];
}

/** Go's underscoreOK: underscores only between digits or after a base prefix. */
function underscoreOK(s: string): boolean {
  if (!s.includes("_")) return true;
  const start = underscoreStart(s, s[0] === "+" || s[0] === "-" ? 1 : 0);
  let saw: string | null = start.saw;
  for (let i = start.i; i < s.length; i++) {
    saw = underscoreStep(saw, s[i]!, start.hex);
    if (saw === null) return false;
  }
  return saw !== "_";
}

/**
 * Where underscoreOK's scan starts: after a base prefix (which counts as a digit), else at `i`;
 * `saw` is "0" after a digit, "_" after an underscore, "!" after anything else, "^" at the start.
 */
function underscoreStart(s: string, i: number): { i: number; saw: string; hex: boolean } {
  if (s.length - i >= 2 && s[i] === "0" && "xXbBoO".includes(s[i + 1]!)) return { i: i + 2, saw: "0", hex: "xX".includes(s[i + 1]!) };
  return { i, saw: s[i] === "0" ? "0" : "^", hex: false };
}

/** One character of underscoreOK's scan: what it saw next, or null when the underscores are misplaced. */
function underscoreStep(saw: string, c: string, hex: boolean): string | null {
  if ((c >= "0" && c <= "9") || (hex && /[a-fA-F]/.test(c))) return "0";
  if (c === "_") return saw === "0" ? "_" : null;
  return saw === "_" ? null : "!";
}

/** strconv.ParseFloat for decimal and hex floats; null when invalid. */
function parseGoFloat(text: string): number | null {
  if (!underscoreOK(text)) return null;
  const s = text.replace(/_/g, "");
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return Number(s);
  const m = /^([+-]?)0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)[pP]([+-]?\d+)$/.exec(s);
  if (m && (m[2] || m[3])) {
    const mant = parseInt((m[2] || "0") + (m[3] || ""), 16) / 16 ** (m[3]?.length ?? 0);
    return (m[1] === "-" ? -1 : 1) * mant * 2 ** Number(m[4]);
  }
  return null;
}

function fromFloat(n: NumberInfo, f: number): void {
  n.isFloat = true;
  n.float64 = f;
  if (!n.isInt && Number.isInteger(f) && f >= -(2 ** 63) && f < 2 ** 63) {
    n.isInt = true;
    n.int64 = BigInt(f);
  }
  if (!n.isUint && Number.isInteger(f) && f >= 0 && f < 2 ** 64) {
    n.isUint = true;
    n.uint64 = BigInt(f);
  }
}

/** parse.newNumber: every interpretation of a number literal, or Go's error text. */
export function parseNumber(text: string, isChar: boolean, isComplex: boolean): NumberInfo | string {
  const n: NumberInfo = { isInt: false, isUint: false, isFloat: false, isComplex: false, int64: 0n, uint64: 0n, float64: 0, text };
  if (isChar) return charNumber(n, text);
  if (isComplex || text.endsWith("i")) {
    n.isComplex = true;
    return n;
  }
  const big = parseBigInt(text);
  if (big !== null) fromInteger(n, big);
  const overflow = withFloat(n, text);
  if (overflow !== undefined) return overflow;
  if (!n.isInt && !n.isUint && !n.isFloat) return `illegal number syntax: ${JSON.stringify(text)}`;
  return n;
}

/** A character literal: its code point as an int, a uint and a float. */
function charNumber(n: NumberInfo, text: string): NumberInfo | string {
  const r = unquote(text);
  if (r === null) return "invalid syntax";
  const cp = r.codePointAt(0)!;
  Object.assign(n, { isInt: true, isUint: true, isFloat: true, int64: BigInt(cp), uint64: BigInt(cp), float64: cp });
  return n;
}

/** The integer interpretations of a value that fits 64 bits, signed and unsigned. */
function fromInteger(n: NumberInfo, big: bigint): void {
  if (big >= 0n && big <= UINT64_MAX) Object.assign(n, { isUint: true, uint64: big });
  if (big >= INT64_MIN && big <= INT64_MAX) Object.assign(n, { isInt: true, int64: big });
}

/**
 * The float interpretation: the integer's value, else the literal read as a float; an integer
 * literal too big for 64 bits is the error returned.
 */
function withFloat(n: NumberInfo, text: string): string | undefined {
  if (n.isInt) {
    n.isFloat = true;
    n.float64 = Number(n.int64);
  } else if (n.isUint) {
    n.isFloat = true;
    n.float64 = Number(n.uint64);
  } else {
    const f = parseGoFloat(text);
    if (f === null) return undefined;
    if (!/[.eEpP]/.test(text)) return `integer overflow: ${JSON.stringify(text)}`;
    fromFloat(n, f);
  }
  return undefined;
}
