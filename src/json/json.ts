/**
 * JSON helpers of both planners (the ApplicationSet controller's and the sync engine's): Go-like
 * semantic equality (a zero value equals an absent field, as with `omitempty`), the RFC 7386 merge
 * patch that turns one document into another, and JSON-pointer reads and writes. Pure; inputs are
 * never mutated.
 */
import { canonicalEqual } from "../api/go-json.js";

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json | undefined };

/** A JSON object. */
export type JsonObject = { [key: string]: Json | undefined };

/** True for a non-null, non-array object. */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Go's zero value: absent, null, "", false, 0, an empty list, or an object of zero values. */
export function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === "" || v === false || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.values(v).every(isZero);
  return false;
}

/**
 * Deep equality where a zero value and an absent field are the same (Go structs with `omitempty`).
 * Lists compare element by element.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isZero(a) && isZero(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return a === b;
}

/** Exact JSON equality (key order ignored, undefined fields absent). */
export const jsonEqual: (a: unknown, b: unknown) => boolean = canonicalEqual;

/**
 * The RFC 7386 merge patch that turns `from` into `to`: changed keys are set (objects recursively,
 * lists wholesale), keys missing from `to` become null. Undefined values count as missing.
 */
export function createMergePatch(from: JsonObject, to: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const [k, v] of Object.entries(to)) {
    if (v === undefined) continue;
    const old = from[k];
    if (jsonEqual(old, v)) continue;
    patch[k] = isObject(old) && isObject(v) ? createMergePatch(old, v) : v;
  }
  for (const [k, v] of Object.entries(from)) {
    if (v !== undefined && to[k] === undefined) patch[k] = null;
  }
  return patch;
}

/** Drops null values and undefined fields, recursively (the apiserver prunes them from CRs). */
export function dropNulls(v: Json | undefined): Json | undefined {
  if (v === null) return undefined;
  if (Array.isArray(v)) return v.map((x) => dropNulls(x) ?? null);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    const y = dropNulls(x);
    if (y !== undefined) out[k] = y;
  }
  return out;
}

/** Splits a JSON pointer (`/a/b~1c`) into tokens; undefined when it is not a pointer. */
export function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return undefined;
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** The value at `path`, or undefined. */
export function getPath(doc: Json | undefined, path: readonly string[]): Json | undefined {
  let cur: Json | undefined = doc;
  for (const t of path) {
    if (Array.isArray(cur) && /^\d+$/.test(t)) cur = cur[Number(t)];
    else if (isObject(cur)) cur = cur[t];
    else return undefined;
  }
  return cur;
}

/**
 * Sets (or, with `undefined`, removes) the value at `path` in place. Missing parent objects are
 * created when setting; removing below a missing parent does nothing.
 */
export function setPath(doc: JsonObject, path: readonly string[], value: Json | undefined): void {
  let cur: Json | undefined = doc;
  for (const [i, t] of path.entries()) {
    const last = i === path.length - 1;
    if (Array.isArray(cur) && /^\d+$/.test(t)) {
      const idx = Number(t);
      if (last) {
        if (value === undefined) cur.splice(idx, 1);
        else cur[idx] = value;
        return;
      }
      cur = cur[idx];
    } else if (isObject(cur)) {
      if (last) {
        if (value === undefined) delete cur[t];
        else cur[t] = value;
        return;
      }
      if (cur[t] === undefined && value !== undefined) cur[t] = {};
      cur = cur[t];
    } else {
      return;
    }
  }
}
