/**
 * Conversions Sprig relies on: spf13/cast's ToInt64/ToFloat64, Sprig's strval and strslice, and
 * Go's float64-to-int64 conversion (truncation; out of range gives the minimum int64 on amd64).
 */
import { formatValue } from "../go/format.js";
import { GoInt, isSpecial, typedSlice, type GoValue } from "../go/value.js";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's int64(f). */
export function floatToInt64(f: number): bigint {
  if (!Number.isFinite(f) || f >= 2 ** 63 || f < -(2 ** 63)) return INT64_MIN;
  return BigInt(Math.trunc(f));
}

/** cast's trimZeroDecimal: "12.000" → "12". */
function trimZeroDecimal(s: string): string {
  let foundZero = false;
  for (let i = s.length; i > 0; i--) {
    const c = s[i - 1];
    if (c === ".") {
      if (foundZero) return s.slice(0, i - 1);
    } else if (c === "0") foundZero = true;
    else return s;
  }
  return s;
}

/** strconv.ParseInt(s, 0, 64); null on error. */
export function parseIntBase0(s: string): bigint | null {
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[0-7_]*|[1-9][0-9_]*)$/.exec(s);
  if (!m) return null;
  const body = m[2]!.replace(/_/g, "");
  let v: bigint;
  if (/^0[0-7]+$/.test(body)) v = BigInt("0o" + body.slice(1));
  else v = BigInt(body.toLowerCase().startsWith("0") && body.length > 1 && !/^0[xbo]/i.test(body) ? "0o" + body.slice(1) : body);
  if (m[1] === "-") v = -v;
  return v < INT64_MIN || v > INT64_MAX ? null : v;
}

/** strconv.ParseFloat(s, 64); null on error. */
export function parseFloat64(s: string): number | null {
  const t = s.replace(/_/g, "");
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith("-") ? -Infinity : Infinity;
  if (/^nan$/i.test(t)) return NaN;
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  if (/^[+-]?0[xX]/.test(t)) {
    const n = parseIntBase0(t);
    return n === null ? null : Number(n);
  }
  return null;
}

/** cast.ToInt64 (errors become 0). */
export function toInt64(v: GoValue): bigint {
  if (v === undefined || v === null) return 0n;
  if (v instanceof GoInt) return v.v;
  switch (typeof v) {
    case "number":
      return floatToInt64(v);
    case "boolean":
      return v ? 1n : 0n;
    case "string":
      return parseIntBase0(trimZeroDecimal(v)) ?? 0n;
  }
  return 0n;
}

/** cast.ToFloat64 (errors become 0). */
export function toFloat64(v: GoValue): number {
  if (v === undefined || v === null) return 0;
  if (v instanceof GoInt) return Number(v.v);
  switch (typeof v) {
    case "number":
      return v;
    case "boolean":
      return v ? 1 : 0;
    case "string":
      return parseFloat64(v) ?? 0;
  }
  return 0;
}

/** Sprig's strval: strings as is, Stringers by String(), else %v. */
export function strval(v: GoValue): string {
  if (typeof v === "string") return v;
  if (isSpecial(v) && v.goString) return v.goString();
  return formatValue(v);
}

/** Sprig's strslice: a []string from a list (nil elements dropped) or a single value. */
export function strslice(v: GoValue): GoValue[] {
  if (Array.isArray(v)) return typedSlice(v.filter((e) => e !== null && e !== undefined).map(strval), "[]string");
  if (v === undefined || v === null) return typedSlice([], "[]string");
  return typedSlice([strval(v)], "[]string");
}

/** Wraps a bigint as a Go int64. */
export function int64(v: bigint): GoInt {
  return new GoInt(BigInt.asIntN(64, v), "int64");
}

/** Wraps a number as a Go int. */
export function int(v: bigint | number): GoInt {
  return new GoInt(BigInt.asIntN(64, typeof v === "bigint" ? v : BigInt(Math.trunc(v))), "int");
}

/** Reads a Go int argument as a JS number. */
export function num(v: GoValue): number {
  return v instanceof GoInt ? Number(v.v) : Number(v);
}

/** A string's UTF-8 bytes. */
export function bytes(s: string): Buffer {
  return Buffer.from(s, "utf8");
}

/** Decodes bytes as Go's encoding/json would print them (invalid UTF-8 becomes U+FFFD). */
export function str(b: Uint8Array): string {
  return Buffer.from(b).toString("utf8");
}

/** Byte-wise Latin-1 reinterpretation, as goutils does with rune(str[i]). */
export function byteRunes(s: string): string[] {
  return [...bytes(s)].map((b) => String.fromCharCode(b));
}
