/**
 * Converts the JSON Schema zod emits for our resource schemas into a Kubernetes *structural*
 * OpenAPI v3 schema, so the CRDs and the zod schemas cannot drift apart:
 * - objects keep `properties`/`required` and drop `additionalProperties: {}` (loose objects);
 *   records become `additionalProperties: <value schema>`;
 * - `unknown` becomes `x-kubernetes-preserve-unknown-fields: true`;
 * - `integer | string` becomes `x-kubernetes-int-or-string`; `T | null` becomes `T`;
 * - integers get `format: int64`; literals become plain strings; `maxItems` of arrays and
 *   `maxLength` of strings are kept (size limits the apiserver enforces);
 * - a node tagged `x-crd: preserve` also keeps unknown fields, and one tagged `x-crd: template`
 *   is replaced by the caller's template schema (generator override templates);
 * - a property tagged `x-crd-required` is required by the CRD even where zod accepts its absence;
 * - the server-side apply markers (`x-kubernetes-list-type`, `x-kubernetes-map-type`,
 *   `x-kubernetes-list-map-keys`) are copied as they are; descriptions are kept.
 */

/** A JSON Schema or OpenAPI node. */
export type SchemaNode = { [key: string]: unknown };

/** Options of {@link toStructural}. */
export interface StructuralOptions {
  /** The schema substituted for nodes tagged `x-crd: template`. */
  readonly template?: SchemaNode;
}

const PRESERVE = "x-kubernetes-preserve-unknown-fields";
const MARKERS = ["x-kubernetes-list-type", "x-kubernetes-map-type", "x-kubernetes-list-map-keys"] as const;

function isNode(v: unknown): v is SchemaNode {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function typesOf(node: SchemaNode): string[] {
  const t = node["type"];
  if (typeof t === "string") return [t];
  return Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : [];
}

/** Adds the node's description (which wins over one `out` has) and server-side apply markers. */
function withDescription(node: SchemaNode, out: SchemaNode): SchemaNode {
  const markers: SchemaNode = {};
  for (const m of MARKERS) if (node[m] !== undefined) markers[m] = node[m];
  const description = node["description"];
  if (typeof description !== "string") return { ...out, ...markers };
  const { description: _replaced, ...rest } = out;
  return { description, ...rest, ...markers };
}

/** The sorted `required` list: zod's, plus the properties tagged `x-crd-required`. */
function requiredOf(node: SchemaNode, props: SchemaNode): string[] {
  const required = new Set(Array.isArray(node["required"]) ? (node["required"] as string[]) : []);
  for (const [key, child] of Object.entries(props)) if (isNode(child) && child["x-crd-required"] === true) required.add(key);
  return [...required].sort();
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
  const required = requiredOf(node, props);
  if (required.length > 0) out["required"] = required;
  if (preserve) out[PRESERVE] = true;
  return out;
}

function convertScalar(type: string, node: SchemaNode): SchemaNode {
  if (type === "integer") return { type: "integer", format: "int64" };
  if (type === "string" && Array.isArray(node["enum"])) return { type: "string", enum: node["enum"] };
  if (type === "string" && typeof node["maxLength"] === "number") return { type, maxLength: node["maxLength"] };
  return { type };
}

/** Converts one JSON Schema node (as produced by `z.toJSONSchema`) to a structural OpenAPI node. */
export function toStructural(node: SchemaNode, opts: StructuralOptions = {}): SchemaNode {
  if (node["x-crd"] === "template" && opts.template !== undefined) return withDescription(node, opts.template);
  if (Array.isArray(node["anyOf"])) return withDescription(node, convertAnyOf(node["anyOf"].filter(isNode), opts));
  const types = typesOf(node).filter((t) => t !== "null");
  const type = types[0];
  if (type === undefined) return withDescription(node, { [PRESERVE]: true });
  if (types.length > 1) throw new Error(`cannot express type ${JSON.stringify(types)} in a structural schema`);
  if (type === "object") return withDescription(node, convertObject(node, opts));
  if (type === "array") {
    const items = isNode(node["items"]) ? node["items"] : {};
    const max = typeof node["maxItems"] === "number" ? { maxItems: node["maxItems"] } : {};
    return withDescription(node, { type: "array", items: toStructural(items, opts), ...max });
  }
  return withDescription(node, convertScalar(type, node));
}
