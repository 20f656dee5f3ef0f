/**
 * Go's comparison builtins (eq, ne, lt, le, gt, ge) and truthiness (if/with/and/or/not), with Go's
 * kind rules: int and uint compare across kinds, int against float64 is an error.
 */
import { formatArg, formatValue } from "./format.js";
import { GoFuncError } from "./types.js";
import { GoInt, isSpecial, kindName, typeName, type GoValue } from "./value.js";

type Kind = "invalid" | "bool" | "int" | "uint" | "float" | "string";

function basicKind(v: GoValue): Kind {
  if (v === undefined || v === null) return "invalid";
  switch (typeof v) {
    case "boolean":
      return "bool";
    case "number":
      return "float";
    case "string":
      return "string";
  }
  if (v instanceof GoInt) return v.kind.startsWith("u") ? "uint" : "int";
  return "invalid";
}

/** text/template's isTrue (with indirectInterface applied). */
export function truth(v: GoValue): boolean {
  if (v === undefined || v === null) return false;
  switch (typeof v) {
    case "boolean":
      return v;
    case "number":
      return v !== 0;
    case "string":
      return v.length > 0;
  }
  if (v instanceof GoInt) return v.v !== 0n;
  if (Array.isArray(v)) return v.length > 0;
  if (isSpecial(v)) return true;
  for (const k in v) if (Object.hasOwn(v, k)) return true;
  return false;
}

function valid(v: GoValue): boolean {
  return v !== undefined && v !== null;
}

function eqPair(a: GoValue, b: GoValue): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 !== k2) return eqMixedKinds(a, b, k1, k2);
  switch (k1) {
    case "int":
    case "uint":
      return (a as GoInt).v === (b as GoInt).v;
    case "bool":
    case "float":
    case "string":
      return a === b;
  }
  return eqNonBasic(a, b);
}

/** eq of two values of different basic kinds: an int and a uint by value; two valid others are an error. */
function eqMixedKinds(a: GoValue, b: GoValue, k1: Kind, k2: Kind): boolean {
  if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int")) return (a as GoInt).v === (b as GoInt).v;
  if (valid(a) && valid(b)) throw new GoFuncError(`incompatible types for comparison: ${typeName(a)} and ${typeName(b)}`);
  return false;
}

/** eq of two values of the same non-basic kind: nil equals nil; anything else is not comparable. */
function eqNonBasic(a: GoValue, b: GoValue): boolean {
  if (!valid(a) || !valid(b)) return !valid(a) === !valid(b);
  if (kindName(a) !== kindName(b)) {
    throw new GoFuncError(`non-comparable types ${formatArg(a, "s")}: ${typeName(a)}, ${typeName(b)}: ${formatValue(b)}`);
  }
  throw new GoFuncError(`non-comparable type ${formatArg(b, "s")}: ${typeName(b)}`);
}

/** eq arg1 arg2...: true when arg1 equals any of the others. */
export function eq(a: GoValue, rest: GoValue[]): boolean {
  if (rest.length === 0) throw new GoFuncError("missing argument for comparison");
  for (const b of rest) if (eqPair(a, b)) return true;
  return false;
}

/** lt a b. */
export function lt(a: GoValue, b: GoValue): boolean {
  const k1 = basicKind(a);
  if (k1 === "invalid") throw new GoFuncError("invalid type for comparison");
  const k2 = basicKind(b);
  if (k2 === "invalid") throw new GoFuncError("invalid type for comparison");
  if (k1 !== k2) {
    if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int")) return (a as GoInt).v < (b as GoInt).v;
    throw new GoFuncError(`incompatible types for comparison: ${typeName(a)} and ${typeName(b)}`);
  }
  switch (k1) {
    case "bool":
      throw new GoFuncError("invalid type for comparison");
    case "int":
    case "uint":
      return (a as GoInt).v < (b as GoInt).v;
    case "float":
      return (a as number) < (b as number);
    default:
      return Buffer.compare(Buffer.from(a as string), Buffer.from(b as string)) < 0;
  }
}

/** le a b. */
export function le(a: GoValue, b: GoValue): boolean {
  return lt(a, b) || eq(a, [b]);
}
