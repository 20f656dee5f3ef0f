/**
 * Argument conversion of text/template's evalCall: literal operands converted to a parameter's Go
 * type (evalBool/evalString/evalInteger/evalFloat/idealConstant) and computed values checked for
 * assignability (validateType), with Go's error texts.
 */
import type { ArgNode, NumberInfo } from "./ast.js";
import { nodeString } from "./ast.js";
import type { ParamType } from "./types.js";
import { GoInt, IFACE_MAP, IFACE_SLICE, typedMap, typedSlice, typeName, type GoValue, type IntKind } from "./value.js";

/** Thrown by these helpers; the executor turns it into a positioned ExecError. */
export class ArgError extends Error {}

const INT_KINDS = new Set(["int", "int64", "int32", "int16", "int8", "uint", "uint64", "uint32", "uint16", "uint8"]);

/** idealConstant: a number literal as an untyped Go value (int or float64). */
export function idealConstant(n: NumberInfo): GoValue {
  if (n.isComplex) throw new ArgError(`complex constants are not supported: ${n.text}`);
  const t = n.text;
  const hexInt = t.length > 2 && t[0] === "0" && (t[1] === "x" || t[1] === "X") && !/[pP]/.test(t);
  if (n.isFloat && !hexInt && t[0] !== "'" && /[.eEpP]/.test(t)) return n.float64;
  if (n.isInt) return new GoInt(n.int64, "int");
  if (n.isUint) throw new ArgError(`${t} overflows int`);
  return undefined;
}

/** True for types that accept nil (interfaces, slices, maps, pointers, reflect.Value). */
export function canBeNil(typ: ParamType): boolean {
  return typ === "any" || typ === "value" || typ.startsWith("[]") || typ.startsWith("map[") || typ.startsWith("*");
}

/** The zero value of a nil-able type (nil slices and maps are empty). */
function zeroNil(typ: ParamType): GoValue {
  if (typ.startsWith("[]")) return typ === IFACE_SLICE ? [] : typedSlice([], typ);
  if (typ.startsWith("map[")) return typ === IFACE_MAP ? {} : typedMap({}, typ);
  return typ === "value" ? undefined : null;
}

function displayType(typ: ParamType): string {
  return typ === "any" ? "interface {}" : typ === "value" ? "reflect.Value" : typ;
}

/** validateType: checks a computed value against a parameter type. */
export function validateType(v: GoValue, typ: ParamType | null): GoValue {
  if (typ === null || typ === "value") return v;
  if (v === undefined) {
    if (canBeNil(typ)) return zeroNil(typ);
    throw new ArgError(`invalid value; expected ${displayType(typ)}`);
  }
  if (typ === "any") return v;
  if (v === null) {
    throw new ArgError(`wrong type for value; expected ${displayType(typ)}; got interface {}`);
  }
  const t = typeName(v);
  if (t === typ) return v;
  throw new ArgError(`wrong type for value; expected ${displayType(typ)}; got ${t}`);
}

/** evalArg for literal operands (bool, number, string, nil) against a parameter type. */
export function literalArg(n: ArgNode, typ: ParamType): GoValue {
  if (n.t === "nil") {
    if (canBeNil(typ)) return zeroNil(typ);
    throw new ArgError(`cannot assign nil to ${displayType(typ)}`);
  }
  if (typ === "any" || typ === "value") return emptyInterfaceLiteral(n);
  return typedLiteral(n, typ);
}

/** A literal operand for a parameter of a concrete type: bool, string, float64 or an integer kind. */
function typedLiteral(n: ArgNode, typ: ParamType): GoValue {
  if (typ === "bool") {
    if (n.t === "bool") return n.value;
    throw new ArgError(`expected bool; found ${nodeString(n)}`);
  }
  if (typ === "string") {
    if (n.t === "string") return n.text;
    throw new ArgError(`expected string; found ${nodeString(n)}`);
  }
  if (typ === "float64") {
    if (n.t === "number" && n.num.isFloat) return n.num.float64;
    throw new ArgError(`expected float; found ${nodeString(n)}`);
  }
  if (INT_KINDS.has(typ)) return intLiteral(n, typ as IntKind);
  throw new ArgError(`can't handle ${nodeString(n)} for arg of type ${displayType(typ)}`);
}

function intLiteral(n: ArgNode, typ: IntKind): GoValue {
  if (typ.startsWith("u")) {
    if (n.t === "number" && n.num.isUint) return new GoInt(n.num.uint64, typ);
    throw new ArgError(`expected unsigned integer; found ${nodeString(n)}`);
  }
  if (n.t === "number" && n.num.isInt) return new GoInt(n.num.int64, typ);
  throw new ArgError(`expected integer; found ${nodeString(n)}`);
}

/** evalEmptyInterface for literal operands. */
export function emptyInterfaceLiteral(n: ArgNode): GoValue {
  switch (n.t) {
    case "bool":
      return n.value;
    case "number":
      return idealConstant(n.num);
    case "string":
      return n.text;
    case "nil":
      throw new ArgError("evalEmptyInterface: nil (can't happen)");
    default:
      throw new ArgError(`can't handle assignment of ${nodeString(n)} to empty interface argument`);
  }
}
