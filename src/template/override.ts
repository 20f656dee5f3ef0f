/**
 * The generator template override (docs/templates.md#rendering-around-the-template): the effective
 * template is the generator's own template with every zero-valued field ("" / null / false / 0 /
 * empty map or list) filled in from spec.template; maps merge key by key with the generator's keys
 * winning; objects merge recursively. An override therefore cannot reset a field to an empty or
 * zero value.
 */
import type { Json } from "./render.js";

function isZero(v: Json | undefined): boolean {
  if (v === undefined || v === null || v === "" || v === false || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && Object.keys(v).length === 0;
}

function isObject(v: Json | undefined): v is { [key: string]: Json } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Merges `base` (spec.template) under `override` (the generator's template). */
export function mergeTemplate(override: Json | undefined, base: Json | undefined): Json {
  if (isObject(override) && isObject(base)) {
    const out: { [key: string]: Json } = { ...structuredClone(base) };
    for (const [k, v] of Object.entries(override)) out[k] = mergeTemplate(v, base[k]);
    return out;
  }
  if (isZero(override)) return structuredClone(base ?? override ?? null);
  return structuredClone(override!);
}
