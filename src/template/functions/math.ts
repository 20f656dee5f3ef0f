/**
 * Sprig's numeric functions: int64 arithmetic with Go's wrap-around and divide-by-zero panics,
 * cast-based conversions, decimal (shopspring) float arithmetic for addf/subf/mulf/divf, and
 * min/max/floor/ceil/round.
 */
import { fn, GoFuncError, type FuncMap, type GoFunc } from "../go/types.js";
import { GoInt, type GoValue } from "../go/value.js";
import { formatValue } from "../go/format.js";
import { floatToInt64, int, int64, num, toFloat64, toInt64 } from "./cast.js";

const DIV_ZERO = "runtime error: integer divide by zero";

/** A decimal number: coefficient × 10^exp. */
interface Dec {
  c: bigint;
  e: number;
}

function decFromFloat(x: number): Dec {
  if (!Number.isFinite(x)) throw new GoFuncError(`Cannot create a Decimal from ${Number.isNaN(x) ? "NaN" : x > 0 ? "+Inf" : "-Inf"}`);
  const s = x.toExponential();
  const [mant, ex] = s.split("e") as [string, string];
  const digits = mant.replace(".", "").replace("-", "");
  const frac = mant.includes(".") ? mant.split(".")[1]!.length : 0;
  const c = BigInt(digits) * (x < 0 ? -1n : 1n);
  return { c, e: Number(ex) - frac };
}

function align(a: Dec, b: Dec): [bigint, bigint, number] {
  const e = Math.min(a.e, b.e);
  return [a.c * 10n ** BigInt(a.e - e), b.c * 10n ** BigInt(b.e - e), e];
}

function decOp(op: string, a: Dec, b: Dec): Dec {
  if (op === "mul") return { c: a.c * b.c, e: a.e + b.e };
  const [x, y, e] = align(a, b);
  if (op === "add") return { c: x + y, e };
  if (op === "sub") return { c: x - y, e };
  if (y === 0n) throw new GoFuncError("decimal division by 0");
  // DivRound(d2, 16): quotient rounded half away from zero at 16 fractional digits.
  const scale = 10n ** 17n;
  let q = (x * scale) / y;
  const neg = q < 0n;
  if (neg) q = -q;
  q = (q + 5n) / 10n;
  return { c: neg ? -q : q, e: -16 };
}

function decToFloat(d: Dec): number {
  return Number(`${d.c}e${d.e}`);
}

function decimalFn(op: string, first: (a: GoValue[]) => [GoValue, GoValue[]], fixed: string[]): GoFunc {
  return fn(
    fixed,
    (a) => {
      const [head, rest] = first(a);
      let acc = decFromFloat(toFloat64(head));
      for (const x of rest) acc = decOp(op, acc, decFromFloat(toFloat64(x)));
      return decToFloat(acc);
    },
    "any",
  );
}

function atoi(s: string): GoValue {
  if (!/^[+-]?\d+$/.test(s)) return int(0);
  const v = BigInt(s);
  return int(v >= -(2n ** 63n) && v < 2n ** 63n ? v : 0n);
}

function toDecimal(v: GoValue): GoValue {
  const s = formatValue(v);
  if (!/^[+-]?[0-7]+$/.test(s)) return int64(0n);
  const n = BigInt((s.startsWith("-") ? "-" : "") + "0o" + s.replace(/^[+-]/, ""));
  return int64(n >= -(2n ** 63n) && n < 2n ** 63n ? n : 0n);
}

function round(a: GoValue[]): number {
  const roundOn = a.length > 2 ? (a[2] as number) : 0.5;
  const val = toFloat64(a[0]);
  const pow = Math.pow(10, num(a[1]));
  const digit = pow * val;
  const frac = digit - Math.trunc(digit);
  return (frac >= roundOn ? Math.ceil(digit) : Math.floor(digit)) / pow;
}

function minMax(a: GoValue[], pick: (x: bigint, y: bigint) => boolean): GoValue {
  let acc = toInt64(a[0]);
  for (const x of a.slice(1)) {
    const v = toInt64(x);
    if (pick(v, acc)) acc = v;
  }
  return int64(acc);
}

function goMax(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  return Math.max(x, y);
}

function goMin(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  return Math.min(x, y);
}

/** The numeric functions. */
export const MATH_FUNCS: FuncMap = {
  atoi: fn(["string"], (a) => atoi(a[0] as string)),
  int64: fn(["any"], (a) => int64(toInt64(a[0]))),
  int: fn(["any"], (a) => int(toInt64(a[0]))),
  float64: fn(["any"], (a) => toFloat64(a[0])),
  toDecimal: fn(["any"], (a) => toDecimal(a[0])),
  add1: fn(["any"], (a) => int64(toInt64(a[0]) + 1n)),
  add: fn([], (a) => int64(a.reduce<bigint>((s, x) => BigInt.asIntN(64, s + toInt64(x)), 0n)), "any"),
  sub: fn(["any", "any"], (a) => int64(toInt64(a[0]) - toInt64(a[1]))),
  div: fn(["any", "any"], (a) => {
    const d = toInt64(a[1]);
    if (d === 0n) throw new GoFuncError(DIV_ZERO);
    return int64(toInt64(a[0]) / d);
  }),
  mod: fn(["any", "any"], (a) => {
    const d = toInt64(a[1]);
    if (d === 0n) throw new GoFuncError(DIV_ZERO);
    return int64(toInt64(a[0]) % d);
  }),
  mul: fn(["any"], (a) => int64(a.slice(1).reduce<bigint>((s, x) => BigInt.asIntN(64, s * toInt64(x)), toInt64(a[0]))), "any"),
  randInt: fn(["int", "int"], (a, ctx) => {
    const n = num(a[1]) - num(a[0]);
    if (n <= 0) throw new GoFuncError("invalid argument to Intn");
    return int(Math.floor(ctx.random() * n) + num(a[0]));
  }),
  add1f: fn(["any"], (a) => decToFloat(decOp("add", decFromFloat(toFloat64(a[0])), decFromFloat(1)))),
  addf: decimalFn("add", (a) => [0, a], []),
  subf: decimalFn("sub", (a) => [a[0], a.slice(1)], ["any"]),
  divf: decimalFn("div", (a) => [a[0], a.slice(1)], ["any"]),
  mulf: decimalFn("mul", (a) => [a[0], a.slice(1)], ["any"]),
  biggest: fn(["any"], (a) => minMax(a, (x, y) => x > y), "any"),
  max: fn(["any"], (a) => minMax(a, (x, y) => x > y), "any"),
  min: fn(["any"], (a) => minMax(a, (x, y) => x < y), "any"),
  maxf: fn(["any"], (a) => a.slice(1).reduce<number>((m, x) => goMax(m, toFloat64(x)), toFloat64(a[0])), "any"),
  minf: fn(["any"], (a) => a.slice(1).reduce<number>((m, x) => goMin(m, toFloat64(x)), toFloat64(a[0])), "any"),
  ceil: fn(["any"], (a) => Math.ceil(toFloat64(a[0]))),
  floor: fn(["any"], (a) => Math.floor(toFloat64(a[0]))),
  round: fn(["any", "int"], round, "float64"),
};

export { floatToInt64, GoInt };
