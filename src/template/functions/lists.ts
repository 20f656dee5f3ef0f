/**
 * Sprig's list functions. Results are `[]interface {}` unless Sprig returns a typed slice; a nil
 * list argument reproduces Go's nil-pointer panic text, a non-list one Sprig's "Cannot ... on type".
 */
import { goInt } from "../go/value.js";
import { fn, GoFuncError, type CallContext, type FuncMap, type GoFunc } from "../go/types.js";
import type { GoInt } from "../go/value.js";
import { compareStrings, kindName, typedSlice, type GoValue } from "../go/value.js";
import { deepEqual, isEmpty } from "./reflect.js";
import { num, strslice, strval, toInt64 } from "./cast.js";

const NIL_DEREF = "runtime error: invalid memory address or nil pointer dereference";

/** reflect.TypeOf(v).Kind() checks shared by Sprig's list functions. */
export function asList(v: GoValue, what: string): GoValue[] {
  if (v === undefined || v === null) throw new GoFuncError(NIL_DEREF);
  if (Array.isArray(v)) return v;
  throw new GoFuncError(what.replace("%s", kindName(v)));
}

function listFn(msg: string, f: (l: GoValue[], rest: GoValue[]) => GoValue, params = ["any"], variadic?: string): GoFunc {
  return fn(params, (a) => f(asList(a[0], msg), a.slice(1)), variadic);
}

function both(
  name: string,
  msg: string,
  f: (l: GoValue[], rest: GoValue[]) => GoValue,
  sig: { params?: string[]; variadic?: string } = {},
): Record<string, GoFunc> {
  const g = listFn(msg, f, sig.params, sig.variadic);
  return { [name]: g, ["must" + name[0]!.toUpperCase() + name.slice(1)]: g };
}

function chunk(size: number, l: GoValue[]): GoValue {
  const cs = Math.floor((l.length - 1) / size) + 1;
  const out: GoValue[] = [];
  for (let i = 0; i < cs; i++) {
    let clen = size;
    if (i === cs - 1) clen = Math.floor(l.length % size) || size;
    const part: GoValue[] = [];
    for (let j = 0; j < clen; j++) {
      const ix = i * size + j;
      if (ix >= l.length || ix < 0) throw new GoFuncError(`reflect: slice index out of range`);
      part.push(l[ix]);
    }
    out.push(part);
  }
  return typedSlice(out, "[][]interface {}");
}

function sliceList(l: GoValue[], idx: GoValue[]): GoValue {
  if (l.length === 0) return null;
  const start = idx.length > 0 ? Number(toInt64(idx[0])) : 0;
  const end = idx.length < 2 ? l.length : Number(toInt64(idx[1]));
  if (start < 0 || end < start || end > l.length) {
    throw new GoFuncError("reflect.Value.Slice: slice index out of bounds");
  }
  const out = l.slice(start, end);
  const t = l as GoValue[] & { [k: symbol]: string };
  return Object.getOwnPropertySymbols(t).length ? typedSlice(out, t[Object.getOwnPropertySymbols(t)[0]!]!) : out;
}

function inList(hay: GoValue[], needle: GoValue): boolean {
  return hay.some((h) => deepEqual(needle, h));
}

/** How many elements `untilStep(start, stop, step)` holds. */
function untilStepLength(start: number, stop: number, step: number): number {
  if (stop < start) return step >= 0 ? 0 : Math.ceil((start - stop) / -step);
  return step <= 0 ? 0 : Math.ceil((stop - start) / step);
}

function untilStep(start: number, stop: number, step: number, ctx: CallContext): GoValue {
  ctx.chargeList(untilStepLength(start, stop, step));
  const v: GoValue[] = [];
  if (stop < start) {
    if (step >= 0) return typedSlice(v, "[]int");
    for (let i = start; i > stop; i += step) v.push(goInt(i));
    return typedSlice(v, "[]int");
  }
  if (step <= 0) return typedSlice(v, "[]int");
  for (let i = start; i < stop; i += step) v.push(goInt(i));
  return typedSlice(v, "[]int");
}

function seq(params: number[], ctx: CallContext): string {
  const join = (a: number[]): string => a.join(" ");
  switch (params.length) {
    case 0:
      return "";
    case 1: {
      const end = params[0]!;
      return join(end > 0 ? range(1, end + 1, 1, ctx) : range(1, end - 1, -1, ctx));
    }
    case 2: {
      const [start, end] = params as [number, number];
      return join(end > start ? range(start, end + 1, 1, ctx) : range(start, end - 1, -1, ctx));
    }
    case 3: {
      const [start, step, end] = params as [number, number, number];
      if (end > start) return step > 0 ? join(range(start, end + 1, step, ctx)) : "";
      return step < 0 ? join(range(start, end - 1, step, ctx)) : "";
    }
    default:
      return "";
  }
}

function range(start: number, stop: number, step: number, ctx: CallContext): number[] {
  const v = untilStep(start, stop, step, ctx) as GoInt[];
  return v.map((x) => Number(x.v));
}

/** The list functions. */
export const LIST_FUNCS: FuncMap = {
  list: fn([], (a) => a.map((x) => (x === undefined ? null : x)), "any"),
  tuple: fn([], (a) => a.map((x) => (x === undefined ? null : x)), "any"),
  ...both("push", "Cannot push on type %s", (l, r) => [...l, r[0]], { params: ["any", "any"] }),
  append: listFn("Cannot push on type %s", (l, r) => [...l, r[0]], ["any", "any"]),
  mustAppend: listFn("Cannot push on type %s", (l, r) => [...l, r[0]], ["any", "any"]),
  ...both("prepend", "Cannot prepend on type %s", (l, r) => [r[0], ...l], { params: ["any", "any"] }),
  chunk: fn(["int", "any"], (a) => chunk(num(a[0]), asList(a[1], "Cannot chunk type %s"))),
  mustChunk: fn(["int", "any"], (a) => chunk(num(a[0]), asList(a[1], "Cannot chunk type %s"))),
  ...both("first", "Cannot find first on type %s", (l) => (l.length ? l[0] : null)),
  ...both("last", "Cannot find last on type %s", (l) => (l.length ? l[l.length - 1] : null)),
  ...both("rest", "Cannot find rest on type %s", (l) => (l.length ? l.slice(1) : [])),
  ...both("initial", "Cannot find initial on type %s", (l) => (l.length ? l.slice(0, -1) : [])),
  ...both("reverse", "Cannot find reverse on type %s", (l) => [...l].reverse()),
  ...both("compact", "Cannot compact on type %s", (l) => l.filter((x) => !isEmpty(x))),
  ...both("uniq", "Cannot find uniq on type %s", (l) => l.reduce<GoValue[]>((d, x) => (inList(d, x) ? d : [...d, x]), [])),
  ...both("without", "Cannot find without on type %s", (l, omit) => l.filter((x) => !inList(omit, x)), {
    params: ["any"],
    variadic: "any",
  }),
  ...both("slice", "list should be type of slice or array but %s", sliceList, { params: ["any"], variadic: "any" }),
  has: fn(["any", "any"], (a) => (a[1] === null ? false : inList(asList(a[1], "Cannot find has on type %s"), a[0]))),
  mustHas: fn(["any", "any"], (a) => (a[1] === null ? false : inList(asList(a[1], "Cannot find has on type %s"), a[0]))),
  concat: fn(
    [],
    (a) => {
      const res: GoValue[] = [];
      for (const l of a) {
        if (l === null) throw new GoFuncError(NIL_DEREF);
        if (!Array.isArray(l)) throw new GoFuncError(`Cannot concat type ${kindName(l)} as list`);
        res.push(...l);
      }
      return res;
    },
    "any",
  ),
  sortAlpha: fn(["any"], (a) => {
    if (Array.isArray(a[0])) return typedSlice([...(strslice(a[0]) as string[])].sort(compareStrings), "[]string");
    return typedSlice([strval(a[0])], "[]string");
  }),
  until: fn(["int"], (a, ctx) => {
    const n = num(a[0]);
    return n < 0 ? untilStep(0, n, -1, ctx) : untilStep(0, n, 1, ctx);
  }),
  untilStep: fn(["int", "int", "int"], (a, ctx) => untilStep(num(a[0]), num(a[1]), num(a[2]), ctx)),
  seq: fn([], (a, ctx) => seq(a.map(num), ctx), "int"),
};
