/**
 * text/template's predefined functions: and, or, not, len, index, slice, print, printf, println,
 * html, js, urlquery, call and the comparisons, with Go's argument rules and error texts.
 */
import { eq, le, lt, truth } from "./compare.js";
import { formatValue, sprint, sprintf, sprintln } from "./format.js";
import { fn, GoFuncError, type FuncMap, type GoFunc } from "./types.js";
import { elemType, GoInt, isMap, mapHas, typeName, zeroOf, type GoValue } from "./value.js";

function ind(v: GoValue): GoValue {
  return v === null ? undefined : v;
}

function length(v: GoValue): GoValue {
  if (v === null) throw new GoFuncError("len of nil pointer");
  if (v === undefined) throw new GoFuncError("reflect: call of reflect.Value.Type on zero Value");
  if (typeof v === "string") return new GoInt(BigInt(Buffer.byteLength(v, "utf8")));
  if (Array.isArray(v)) return new GoInt(BigInt(v.length));
  if (isMap(v)) return new GoInt(BigInt(Object.keys(v).length));
  throw new GoFuncError(`len of type ${typeName(v)}`);
}

function indexArg(index: GoValue, cap: number): number {
  if (index instanceof GoInt) {
    if (index.v < 0n || index.v > BigInt(cap)) throw new GoFuncError(`index out of range: ${index.v}`);
    return Number(index.v);
  }
  if (index === undefined || index === null) throw new GoFuncError("cannot index slice/array with nil");
  throw new GoFuncError(`cannot index slice/array with type ${typeName(index)}`);
}

function indexOne(item: GoValue, index: GoValue): GoValue {
  if (item === null) throw new GoFuncError("index of nil pointer");
  if (typeof item === "string") {
    const bytes = Buffer.from(item, "utf8");
    const x = indexArg(index, bytes.length);
    if (x >= bytes.length) throw new GoFuncError("reflect: string index out of range");
    return new GoInt(BigInt(bytes[x]!), "uint8");
  }
  if (Array.isArray(item)) {
    const x = indexArg(index, item.length);
    if (x >= item.length) throw new GoFuncError("reflect: slice index out of range");
    return item[x];
  }
  if (isMap(item)) {
    if (index === undefined || index === null) throw new GoFuncError("value is nil; should be of type string");
    if (typeof index !== "string") throw new GoFuncError(`value has type ${typeName(index)}; should be string`);
    return mapHas(item, index) ? item[index] : zeroOf(elemType(typeName(item)));
  }
  throw new GoFuncError(`can't index item of type ${typeName(item)}`);
}

function index(args: GoValue[]): GoValue {
  let item = ind(args[0]);
  if (item === undefined) throw new GoFuncError("index of untyped nil");
  for (const i of args.slice(1)) item = indexOne(item, ind(i));
  return item;
}

function goSlice(args: GoValue[]): GoValue {
  const item = ind(args[0]);
  if (item === undefined) throw new GoFuncError("slice of untyped nil");
  const idx = args.slice(1).map(ind);
  if (idx.length > 3) throw new GoFuncError(`too many slice indexes: ${idx.length}`);
  let len: number;
  if (typeof item === "string") {
    if (idx.length === 3) throw new GoFuncError("cannot 3-index slice a string");
    len = Buffer.byteLength(item, "utf8");
  } else if (Array.isArray(item)) len = item.length;
  else throw new GoFuncError(`can't slice item of type ${typeName(item)}`);
  const bounds = [0, len];
  idx.forEach((x, i) => (bounds[i] = indexArg(x, len)));
  if (bounds[0]! > bounds[1]!) throw new GoFuncError(`invalid slice index: ${bounds[0]} > ${bounds[1]}`);
  if (typeof item === "string") return Buffer.from(item, "utf8").subarray(bounds[0], bounds[1]).toString("utf8");
  return Object.assign(item.slice(bounds[0], bounds[1]), Object.getOwnPropertySymbols(item).length ? { ...item } : {});
}

/** evalArgs of html/js/urlquery: a lone string as is, else Sprint with <no value> for nil. */
function evalArgs(args: GoValue[]): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  return sprint(args.map((a) => (a === undefined || a === null ? "<no value>" : a)));
}

/** template.HTMLEscapeString. */
export function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => ({ "\0": "\uFFFD", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]!);
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** template.JSEscapeString. */
export function jsEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const named: Record<string, string> = {
      "\\": "\\\\",
      "'": "\\'",
      '"': '\\"',
      "<": "\\u003C",
      ">": "\\u003E",
      "&": "\\u0026",
      "=": "\\u003D",
    };
    if (named[ch]) out += named[ch];
    else if (c < 0x20) out += "\\u00" + c.toString(16).toUpperCase().padStart(2, "0");
    else if (c < 0x80) out += ch;
    else out += PRINTABLE.test(ch) ? ch : "\\u" + c.toString(16).toUpperCase().padStart(4, "0");
  }
  return out;
}

/** url.QueryEscape. */
export function queryEscape(s: string): string {
  let out = "";
  for (const b of Buffer.from(s, "utf8")) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === " ") out += "+";
    else out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

const call: GoFunc = {
  params: ["value"],
  variadic: "value",
  special: "call",
  call(args) {
    const f = ind(args[1]);
    if (f === undefined) throw new GoFuncError("call of nil");
    throw new GoFuncError(`non-function ${formatValue(args[0])} of type ${typeName(f)}`);
  },
};

/** The builtin function map. */
export const BUILTINS: FuncMap = {
  and: { params: ["value"], variadic: "value", special: "and", call: () => undefined },
  or: { params: ["value"], variadic: "value", special: "or", call: () => undefined },
  call,
  html: fn([], (a) => htmlEscape(evalArgs(a)), "any"),
  index: fn(["value"], index, "value"),
  slice: fn(["value"], goSlice, "value"),
  js: fn([], (a) => jsEscape(evalArgs(a)), "any"),
  len: fn(["value"], (a) => length(a[0])),
  not: fn(["value"], (a) => !truth(a[0])),
  print: fn([], (a) => sprint(a), "any"),
  printf: fn(["string"], (a) => sprintf(a[0] as string, a.slice(1)), "any"),
  println: fn([], (a) => sprintln(a), "any"),
  urlquery: fn([], (a) => queryEscape(evalArgs(a)), "any"),
  eq: fn(["value"], (a) => eq(ind(a[0]), a.slice(1).map(ind)), "value"),
  ne: fn(["value", "value"], (a) => !eq(ind(a[0]), [ind(a[1])])),
  lt: fn(["value", "value"], (a) => lt(ind(a[0]), ind(a[1]))),
  le: fn(["value", "value"], (a) => le(ind(a[0]), ind(a[1]))),
  gt: fn(["value", "value"], (a) => !le(ind(a[0]), ind(a[1]))),
  ge: fn(["value", "value"], (a) => !lt(ind(a[0]), ind(a[1]))),
};
