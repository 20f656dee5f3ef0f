/**
 * Argo CD's additions to the function map: normalize (SanitizeName), slugify (gosimple/slug over
 * SanitizeName), toYaml, fromYaml and fromYamlArray (sigs.k8s.io/yaml: YAML through JSON, so
 * numbers are float64 and keys are sorted).
 */
import { yaml } from "../../yaml.js";
import { goYamlMarshal } from "./yaml.js";
import { fn, GoFuncError, type FuncMap } from "../go/types.js";
import { isMap, typeName, type GoValue } from "../go/value.js";
import { fromJSValue } from "./json.js";
import { num } from "./cast.js";

/** Argo's SanitizeName (the `normalize` function and *Normalized params). */
export function normalize(name: string): string {
  let n = name.toLowerCase().replace(/[^-a-z0-9.]/gu, "-");
  const b = Buffer.from(n, "utf8");
  if (b.length > 253) n = b.subarray(0, 253).toString("utf8");
  return n.replace(/^[-.]+|[-.]+$/g, "");
}

/** gosimple/slug.Make on already-sanitized input, with Argo's MaxLength and smart truncation. */
export function slugMake(s: string, maxLength: number, smart: boolean): string {
  let slug = s.trim().toLowerCase();
  if (!smart && slug.length >= maxLength) slug = slug.slice(0, Math.max(maxLength, 0));
  slug = slug
    .replace(/[^a-zA-Z0-9\-_]/g, "-")
    .replace(/-+/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "");
  if (maxLength > 0 && smart && slug.length > maxLength) {
    const cut = slug.lastIndexOf("-", maxLength);
    slug = cut >= 0 ? slug.slice(0, cut) : slug.slice(0, maxLength);
  }
  return slug;
}

function slugify(args: GoValue[]): string {
  let max = 50;
  let smart = true;
  let name = "";
  args.forEach((a, i) => {
    if (i === args.length - 1) {
      if (typeof a !== "string") throw new GoFuncError(`interface conversion: interface {} is ${typeName(a)}, not string`);
      name = a;
    } else if (i === 0) {
      if (typeName(a) !== "int") throw new GoFuncError(`interface conversion: interface {} is ${a == null ? "nil" : typeName(a)}, not int`);
      max = num(a);
    } else if (i === 1) {
      if (typeof a !== "boolean")
        throw new GoFuncError(`interface conversion: interface {} is ${a == null ? "nil" : typeName(a)}, not bool`);
      smart = a;
    }
  });
  return slugMake(normalize(name), max, smart);
}

/** YAML text to JSON-shaped Go values, as sigs.k8s.io/yaml does. */
export function yamlToValue(str: string): GoValue {
  const doc = yaml().parseDocument(str, { version: "1.1", uniqueKeys: false });
  if (doc.errors.length > 0) throw new GoFuncError(`error converting YAML to JSON: yaml: ${doc.errors[0]!.message.split("\n")[0]}`);
  return fromJSValue(JSON.parse(JSON.stringify(doc.toJS({ maxAliasCount: 10000 }) ?? null)));
}

/** Go values to YAML text, as sigs.k8s.io/yaml Marshal does. */
export function valueToYaml(v: GoValue): string {
  return goYamlMarshal(v);
}

function fromYaml(str: string): GoValue {
  const v = yamlToValue(str);
  if (v === null) return {};
  if (!isMap(v))
    throw new GoFuncError(
      `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(v)} into Go value of type map[string]interface {}`,
    );
  return v;
}

function fromYamlArray(str: string): GoValue {
  const v = yamlToValue(str);
  if (v === null) return [];
  if (!Array.isArray(v))
    throw new GoFuncError(
      `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(v)} into Go value of type []interface {}`,
    );
  return v;
}

function jsonKind(v: GoValue): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  return "object";
}

/** Argo's extra functions. */
export const ARGO_FUNCS: FuncMap = {
  normalize: fn(["string"], (a) => normalize(a[0] as string)),
  slugify: fn([], slugify, "any"),
  toYaml: fn(["any"], (a) => valueToYaml(a[0]).replace(/\n$/, "")),
  fromYaml: fn(["string"], (a) => fromYaml(a[0] as string)),
  fromYamlArray: fn(["string"], (a) => fromYamlArray(a[0] as string)),
};
