/**
 * Sprig's dict functions (dict, get, set, unset, hasKey, pluck, keys, pick, omit, merge,
 * mergeOverwrite, values, deepCopy, dig). Like Go, set/unset/merge mutate and return their map.
 * keys and values come out in Go's random map order; this engine returns insertion order.
 */
import { fn, GoFuncError, type FuncMap, type GoFunc } from "../go/types.js";
import { isMap, mapHas, typedSlice, typeName, type GoMap, type GoValue } from "../go/value.js";
import { strval } from "./cast.js";
import { isEmpty } from "./reflect.js";

const M = "map[string]interface {}";

function typeAssert(v: GoValue, want: string): never {
  const got = v === undefined || v === null ? "nil" : typeName(v);
  throw new GoFuncError(`interface conversion: interface {} is ${got}, not ${want}`);
}

/** Deep copy of a Go-shaped value (copystructure). */
export function deepCopy(v: GoValue): GoValue {
  if (Array.isArray(v)) return Object.assign(v.map(deepCopy), symbolsOf(v));
  if (isMap(v)) {
    const out: GoMap = {};
    for (const k of Object.keys(v)) out[k] = deepCopy(v[k]);
    return Object.assign(out, symbolsOf(v));
  }
  return v;
}

function symbolsOf(o: object): object {
  const r: Record<symbol, unknown> = {};
  for (const s of Object.getOwnPropertySymbols(o)) r[s] = (o as Record<symbol, unknown>)[s];
  return r;
}

/** mergo.Merge / mergo.Merge(WithOverride) for map[string]interface{}. */
export function mergeInto(dst: GoMap, src: GoMap, override: boolean): void {
  for (const k of Object.keys(src)) {
    const s = src[k];
    const has = mapHas(dst, k);
    const d = has ? dst[k] : undefined;
    if (isMap(s) && has && isMap(d)) mergeInto(d, s, override);
    else if (replaces({ has, d, s, override })) dst[k] = s;
  }
}

/**
 * Whether a source value that is not merged into a map replaces the destination's: nil only with
 * override; a non-empty destination only with override, and then by a map never and by a slice
 * only when it is not empty; otherwise with override or when the destination is absent or empty.
 */
function replaces(o: { has: boolean; d: GoValue; s: GoValue; override: boolean }): boolean {
  if (o.s === null) return o.override;
  if (o.has && !isEmpty(o.d) && (isMap(o.s) || Array.isArray(o.s))) return o.override && Array.isArray(o.s) && !isEmpty(o.s);
  return o.override || !o.has || isEmpty(o.d);
}

function merge(override: boolean): GoFunc {
  return fn(
    [M],
    (a) => {
      const dst = a[0] as GoMap;
      for (const src of a.slice(1)) mergeInto(dst, src as GoMap, override);
      return dst;
    },
    M,
  );
}

function dig(ps: GoValue[]): GoValue {
  if (ps.length < 3) throw new GoFuncError("dig needs at least three arguments");
  let dict: GoValue = ps[ps.length - 1];
  if (!isMap(dict) || typeName(dict) !== M) typeAssert(dict, M);
  const def = ps[ps.length - 2];
  const ks = ps.slice(0, -2).map((k) => (typeof k === "string" ? k : typeAssert(k, "string")));
  for (let i = 0; i < ks.length; i++) {
    const m: GoMap = dict;
    if (!mapHas(m, ks[i]!)) return def;
    const step: GoValue = m[ks[i]!];
    if (i === ks.length - 1) return step;
    if (!isMap(step) || typeName(step) !== M) typeAssert(step, M);
    dict = step;
  }
  return def;
}

/** The dict functions. */
export const DICT_FUNCS: FuncMap = {
  dict: fn(
    [],
    (a) => {
      const d: GoMap = {};
      for (let i = 0; i < a.length; i += 2) d[strval(a[i])] = i + 1 >= a.length ? "" : a[i + 1];
      return d;
    },
    "any",
  ),
  get: fn([M, "string"], (a) => (mapHas(a[0] as GoMap, a[1] as string) ? (a[0] as GoMap)[a[1] as string] : "")),
  set: fn([M, "string", "any"], (a) => {
    (a[0] as GoMap)[a[1] as string] = a[2];
    return a[0];
  }),
  unset: fn([M, "string"], (a) => {
    delete (a[0] as GoMap)[a[1] as string];
    return a[0];
  }),
  hasKey: fn([M, "string"], (a) => mapHas(a[0] as GoMap, a[1] as string)),
  pluck: fn(
    ["string"],
    (a) =>
      a
        .slice(1)
        .filter((d) => mapHas(d as GoMap, a[0] as string))
        .map((d) => (d as GoMap)[a[0] as string]),
    M,
  ),
  keys: fn(
    [],
    (a) =>
      typedSlice(
        a.flatMap((d) => Object.keys(d as GoMap)),
        "[]string",
      ),
    M,
  ),
  pick: fn(
    [M],
    (a) => {
      const src = a[0] as GoMap;
      const out: GoMap = {};
      for (const k of a.slice(1) as string[]) if (mapHas(src, k)) out[k] = src[k];
      return out;
    },
    "string",
  ),
  omit: fn(
    [M],
    (a) => {
      const src = a[0] as GoMap;
      const drop = new Set(a.slice(1) as string[]);
      const out: GoMap = {};
      for (const k of Object.keys(src)) if (!drop.has(k)) out[k] = src[k];
      return out;
    },
    "string",
  ),
  merge: merge(false),
  mustMerge: merge(false),
  mergeOverwrite: merge(true),
  mustMergeOverwrite: merge(true),
  values: fn([M], (a) => Object.values(a[0] as GoMap)),
  deepCopy: fn(["any"], (a) => {
    if (a[0] === null) throw new GoFuncError("deepCopy error: reflect: call of reflect.Value.Type on zero Value");
    return deepCopy(a[0]);
  }),
  mustDeepCopy: fn(["any"], (a) => deepCopy(a[0])),
  dig: fn([], dig, "any"),
};
