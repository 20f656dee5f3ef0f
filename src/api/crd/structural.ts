/**
 * Checks of a CRD `openAPIV3Schema` against the rules the apiserver enforces for structural
 * schemas (apiextensions.k8s.io/v1), plus {@link undeclaredPaths}, which lists the fields of an
 * object that a schema would prune. Pure functions over plain JSON, used by the CRD tests.
 */
import type { SchemaNode } from "./openapi.js";

const PRESERVE = "x-kubernetes-preserve-unknown-fields";
const INT_OR_STRING = "x-kubernetes-int-or-string";
const ALLOWED_KEYS = new Set([
  "type",
  "description",
  "properties",
  "required",
  "items",
  "additionalProperties",
  "enum",
  "format",
  "anyOf",
  "pattern",
  "minimum",
  "maximum",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  PRESERVE,
  INT_OR_STRING,
  "x-kubernetes-list-type",
  "x-kubernetes-map-type",
  "x-kubernetes-list-map-keys",
]);
/** Root fields the apiserver handles itself (never pruned by the schema). */
const ROOT_FIELDS = new Set(["apiVersion", "kind", "metadata"]);
const JUNCTORS = ["allOf", "anyOf", "oneOf", "not"];
const FORBIDDEN_IN_JUNCTOR = ["description", "type", "default", "additionalProperties", "nullable"];

function isNode(v: unknown): v is SchemaNode {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkJunctors(node: SchemaNode, path: string, out: string[]): void {
  for (const j of JUNCTORS) {
    const variants = node[j];
    if (variants === undefined) continue;
    if (j !== "anyOf" || node[INT_OR_STRING] !== true) {
      out.push(`${path}: ${j} is only used here for int-or-string`);
      continue;
    }
    for (const v of Array.isArray(variants) ? variants.filter(isNode) : []) {
      const bad = FORBIDDEN_IN_JUNCTOR.filter((k) => k !== "type" && k in v);
      if (bad.length > 0 || "properties" in v || "items" in v) out.push(`${path}: ${j} variant sets ${bad.join(",")}`);
    }
  }
}

/** Node-local rules: each returns the violation message, or undefined. */
const NODE_RULES: ReadonlyArray<(node: SchemaNode) => string | undefined> = [
  (n) => {
    const bad = Object.keys(n).filter((k) => !ALLOWED_KEYS.has(k));
    return bad.length > 0 ? `unexpected keyword ${bad.join(",")}` : undefined;
  },
  (n) => {
    const typed = typeof n["type"] === "string" && n["type"] !== "";
    return typed || n[PRESERVE] === true || n[INT_OR_STRING] === true ? undefined : "no type";
  },
  (n) => (n[PRESERVE] !== undefined && n[PRESERVE] !== true ? `${PRESERVE} must be true` : undefined),
  (n) => (n[INT_OR_STRING] === true && "type" in n ? "int-or-string must not set type" : undefined),
  (n) => ("properties" in n && "additionalProperties" in n ? "properties and additionalProperties are mutually exclusive" : undefined),
  (n) => (n["additionalProperties"] === false ? "additionalProperties: false is not allowed" : undefined),
  (n) => (Array.isArray(n["items"]) ? "items must be a single schema" : undefined),
  (n) => (n["type"] === "array" && !isNode(n["items"]) ? "array without items" : undefined),
  (n) => {
    const props = isNode(n["properties"]) ? n["properties"] : {};
    const required = Array.isArray(n["required"]) ? (n["required"] as unknown[]) : [];
    const missing = required.filter((r) => typeof r !== "string" || !(r in props));
    return missing.length > 0 ? `required ${missing.map(String).join(",")} not among the properties` : undefined;
  },
];

function checkNode(node: SchemaNode, path: string, out: string[]): void {
  for (const rule of NODE_RULES) {
    const msg = rule(node);
    if (msg !== undefined) out.push(`${path}: ${msg}`);
  }
  checkJunctors(node, path, out);
  const props = isNode(node["properties"]) ? node["properties"] : {};
  for (const [k, child] of Object.entries(props)) if (isNode(child)) checkNode(child, `${path}.${k}`, out);
  if (isNode(node["items"])) checkNode(node["items"], `${path}[]`, out);
  if (isNode(node["additionalProperties"])) checkNode(node["additionalProperties"], `${path}{}`, out);
}

/** Lists every structural-schema violation of a CRD's `openAPIV3Schema` (empty = structural). */
export function structuralViolations(root: SchemaNode): string[] {
  const out: string[] = [];
  if (root["type"] !== "object") out.push("root: type must be object");
  const props = isNode(root["properties"]) ? root["properties"] : {};
  const meta = props["metadata"];
  if (isNode(meta) && Object.keys(meta).some((k) => k !== "type" && k !== "description")) {
    out.push("metadata: only `type: object` is allowed at the root metadata");
  }
  checkNode({ ...root, properties: { ...props, metadata: { type: "object" } } }, "root", out);
  return out;
}

/**
 * Paths of `value` that `schema` does not declare and would therefore be pruned by the apiserver
 * (fields under `x-kubernetes-preserve-unknown-fields` are kept).
 */
export function undeclaredPaths(schema: SchemaNode, value: unknown, path = ""): string[] {
  if (schema[PRESERVE] === true && !isNode(schema["properties"])) return [];
  if (Array.isArray(value)) {
    const items = isNode(schema["items"]) ? schema["items"] : undefined;
    return items === undefined ? [] : value.flatMap((v, i) => undeclaredPaths(items, v, `${path}[${String(i)}]`));
  }
  return isNode(value) ? undeclaredFields(schema, value, path) : [];
}

function undeclaredFields(schema: SchemaNode, value: SchemaNode, path: string): string[] {
  const props = isNode(schema["properties"]) ? schema["properties"] : {};
  const extra = isNode(schema["additionalProperties"]) ? schema["additionalProperties"] : undefined;
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (path === "" && ROOT_FIELDS.has(k)) continue;
    const child = props[k] ?? extra;
    const childPath = path === "" ? k : `${path}.${k}`;
    if (isNode(child)) out.push(...undeclaredPaths(child, v, childPath));
    else if (schema[PRESERVE] !== true) out.push(childPath);
  }
  return out;
}
