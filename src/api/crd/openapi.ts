/**
 * Converts the JSON Schema zod emits for our resource schemas into a Kubernetes *structural*
 * OpenAPI v3 schema, so the CRDs and the zod schemas cannot drift apart:
 * - objects keep `properties`/`required` and drop `additionalProperties: {}` (loose objects);
 *   records become `additionalProperties: <value schema>`;
 * - `unknown` becomes `x-kubernetes-preserve-unknown-fields: true`;
 * - `integer | string` becomes `x-kubernetes-int-or-string`; `T | null` becomes `T`;
 * - integers get `format: int64`; literals become plain strings;
 * - a node tagged `x-crd: preserve` also keeps unknown fields, and one tagged `x-crd: template`
 *   is replaced by the caller's template schema (generator override templates).
 */

/** A JSON Schema or OpenAPI node. */
export type SchemaNode = { [key: string]: unknown };

/** Options of {@link toStructural}. */
export interface StructuralOptions {
  /** The schema substituted for nodes tagged `x-crd: template`. */
  readonly template?: SchemaNode;
}

const PRESERVE = "x-kubernetes-preserve-unknown-fields";

function isNode(v: unknown): v is SchemaNode {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function typesOf(node: SchemaNode): string[] {
  const t = node["type"];
  if (typeof t === "string") return [t];
  return Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : [];
}

function withDescription(node: SchemaNode, out: SchemaNode): SchemaNode {
  return typeof node["description"] === "string" ? { description: node["description"], ...out } : out;
}

function convertAnyOf(variants: SchemaNode[], opts: StructuralOptions): SchemaNode {
  const nonNull = variants.filter((v) => !typesOf(v).includes("null"));
  const kinds = nonNull.flatMap(typesOf).sort();
  if (kinds.length === 2 && kinds[0] === "integer" && kinds[1] === "string") {
    return { anyOf: [{ type: "integer" }, { type: "string" }], "x-kubernetes-int-or-string": true };
  }
  const only = nonNull[0];
  if (nonNull.length === 1 && only !== undefined) return toStructural(only, opts);
  throw new Error(`cannot express anyOf of ${JSON.stringify(kinds)} in a structural schema`);
}

function sortedKeys(o: SchemaNode): string[] {
  return Object.keys(o).sort();
}

function convertObject(node: SchemaNode, opts: StructuralOptions): SchemaNode {
  const props = isNode(node["properties"]) ? node["properties"] : undefined;
  const extra = node["additionalProperties"];
  const preserve = node["x-crd"] === "preserve";
  if (props === undefined || Object.keys(props).length === 0) {
    if (isNode(extra) && Object.keys(extra).length > 0 && !preserve) {
      return { type: "object", additionalProperties: toStructural(extra, opts) };
    }
    return { type: "object", [PRESERVE]: true };
  }
  const properties: SchemaNode = {};
  for (const key of sortedKeys(props)) {
    const child = props[key];
    if (isNode(child)) properties[key] = toStructural(child, opts);
  }
  const out: SchemaNode = { type: "object", properties };
  const required = Array.isArray(node["required"]) ? (node["required"] as string[]).slice().sort() : [];
  if (required.length > 0) out["required"] = required;
  if (preserve) out[PRESERVE] = true;
  return out;
}

function convertScalar(type: string, node: SchemaNode): SchemaNode {
  if (type === "integer") return { type: "integer", format: "int64" };
  if (type === "string" && Array.isArray(node["enum"])) return { type: "string", enum: node["enum"] };
  return { type };
}

/** Converts one JSON Schema node (as produced by `z.toJSONSchema`) to a structural OpenAPI node. */
export function toStructural(node: SchemaNode, opts: StructuralOptions = {}): SchemaNode {
  if (node["x-crd"] === "template" && opts.template !== undefined) return opts.template;
  if (Array.isArray(node["anyOf"])) return withDescription(node, convertAnyOf(node["anyOf"].filter(isNode), opts));
  const types = typesOf(node).filter((t) => t !== "null");
  const type = types[0];
  if (type === undefined) return withDescription(node, { [PRESERVE]: true });
  if (types.length > 1) throw new Error(`cannot express type ${JSON.stringify(types)} in a structural schema`);
  if (type === "object") return withDescription(node, convertObject(node, opts));
  if (type === "array") {
    const items = isNode(node["items"]) ? node["items"] : {};
    return withDescription(node, { type: "array", items: toStructural(items, opts) });
  }
  return withDescription(node, convertScalar(type, node));
}
