/**
 * Parameter-set helpers shared by every generator (docs/generators.md): Go `%v` formatting,
 * flattening to dotted keys, the path parameters of the Git generator, templated `values`, and
 * the two ways child parameter sets combine (deep merge in goTemplate mode, string maps in
 * fasttemplate mode).
 */
import { isRecord } from "../api/index.js";
import { normalize } from "../template/index.js";
import { formatValue } from "../template/go/format.js";
import type { GoValue } from "../template/go/value.js";
import { duplicateKeyMessage, GeneratorError, wrapError, GeneratorWrap } from "./errors.js";
import type { ParamSet, StringRenderer, TemplateMode } from "./types.js";
import { trimTrailingSlashes } from "../trim.js";

export { normalize };

/** Go's `fmt.Sprintf("%v", v)` of a JSON value. */
export function formatV(v: unknown): string {
  return formatValue(v as GoValue);
}

/**
 * Flattens nested objects to dotted keys and arrays to `a.0`, `a.1` (jeremywohl/flatten's DotStyle),
 * formatting every leaf with `%v`. Empty objects and arrays keep their key with their `%v` text.
 */
export function flattenParams(params: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (prefix: string, v: unknown): void => {
    const entries = isRecord(v) ? Object.entries(v) : Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : undefined;
    if (entries === undefined || (entries.length === 0 && prefix !== "")) {
      out[prefix] = formatV(v);
      return;
    }
    for (const [k, x] of entries) walk(prefix === "" ? k : `${prefix}.${k}`, x);
  };
  walk("", params);
  return out;
}

/** Every value of a parameter set formatted with `%v` (Argo's string-map conversion). */
export function stringifyParams(params: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) out[k] = formatV(v);
  return out;
}

/**
 * Renders each `values` entry with the generator's own params and adds the results: as
 * `values.<k>` keys (fasttemplate) or as one `values` map replacing any existing one (goTemplate).
 * Values may not reference each other. A template error fails the generator.
 */
export function appendValues(
  params: ParamSet,
  values: Readonly<Record<string, string>> | undefined,
  mode: TemplateMode,
  renderer: StringRenderer,
): ParamSet {
  if (values === undefined || Object.keys(values).length === 0) return params;
  const rendered: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    try {
      rendered[k] = renderer.replace(v, params, mode.goTemplate, mode.options);
    } catch (err) {
      throw wrapError(GeneratorWrap.Values, err);
    }
  }
  if (mode.goTemplate) return { ...params, values: rendered };
  const out = { ...params };
  for (const [k, v] of Object.entries(rendered)) out[`values.${k}`] = v;
  return out;
}

/** Deep copy of JSON data. */
export function cloneJson<T>(v: T): T {
  return structuredClone(v);
}

/**
 * Merges `src` into a copy of `dst`: nested objects merge key by key, anything else in `src`
 * replaces the value in `dst` (even a falsy one), as mergo.Merge with WithOverride does on maps.
 */
export function deepMergeOverride(dst: Readonly<ParamSet>, src: Readonly<ParamSet>): ParamSet {
  const out: ParamSet = { ...dst };
  for (const [k, v] of Object.entries(src)) {
    const cur = out[k];
    out[k] = isRecord(cur) && isRecord(v) && Object.keys(cur).length > 0 ? deepMergeOverride(cur, v) : cloneJson(v);
  }
  return out;
}

/**
 * Argo's CombineStringMaps: both sets stringified with `%v`; a key present in both with different
 * values is an error, equal values are kept once.
 */
export function combineStringMaps(a: Readonly<ParamSet>, b: Readonly<ParamSet>): ParamSet {
  const sa = stringifyParams(a);
  const out: ParamSet = { ...sa };
  for (const [k, v] of Object.entries(stringifyParams(b))) {
    const existing = sa[k];
    if (existing !== undefined && existing !== v) throw new GeneratorError(duplicateKeyMessage(k, existing, v));
    out[k] = v;
  }
  return out;
}

/** Argo's CombineStringMapsAllowDuplicates: stringified, `b` wins. */
export function combineStringMapsAllowDuplicates(a: Readonly<ParamSet>, b: Readonly<ParamSet>): ParamSet {
  return { ...stringifyParams(a), ...stringifyParams(b) };
}

/** `dirname` of a repository path ("." at the root). */
export function dirname(p: string): string {
  const i = p.lastIndexOf("/");
  return i < 0 ? "." : p.slice(0, i);
}

/** Go's path.Base. */
export function basename(p: string): string {
  if (p === "") return ".";
  const trimmed = trimTrailingSlashes(p);
  if (trimmed === "") return "/";
  const i = trimmed.lastIndexOf("/");
  return i < 0 ? trimmed : trimmed.slice(i + 1);
}

/** Where the path parameters of one Git result go, and what they hold. */
export interface PathInfo {
  /** The directory (for files: the file's directory). */
  readonly path: string;
  /** For files: the file name. */
  readonly filename?: string;
  /** `pathParamPrefix`, "" for none. */
  readonly prefix: string;
}

function segmentsOf(path: string): string[] {
  return path === "" ? [] : path.split("/");
}

/** The `path` parameters of a Git directory or file, in the mode's shape (docs/generators.md#git-directories). */
export function pathParams(info: PathInfo, goTemplate: boolean): ParamSet {
  const base = basename(info.path);
  const fields: Record<string, unknown> = { path: info.path, basename: base, basenameNormalized: normalize(base) };
  if (info.filename !== undefined) {
    fields["filename"] = info.filename;
    fields["filenameNormalized"] = normalize(info.filename);
  }
  if (goTemplate) {
    fields["segments"] = segmentsOf(info.path);
    return info.prefix === "" ? { path: fields } : { [info.prefix]: { path: fields } };
  }
  const name = info.prefix === "" ? "path" : `${info.prefix}.path`;
  const out: ParamSet = { [name]: info.path };
  for (const [k, v] of Object.entries(fields)) if (k !== "path") out[`${name}.${k}`] = v;
  segmentsOf(info.path).forEach((seg, i) => {
    if (seg !== "") out[`${name}[${String(i)}]`] = seg;
  });
  return out;
}

/** A generator's requeue (ms): `requeueAfterSeconds` when set (0 = none), else the default. */
export function requeueFrom(requeueAfterSeconds: number | undefined, defaultMs: number): number {
  return requeueAfterSeconds === undefined ? defaultMs : Math.max(0, requeueAfterSeconds) * 1000;
}
