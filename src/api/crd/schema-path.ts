/** Walking a CRD's OpenAPI schema by a dotted path (used by the CRD tests and checks). */
import type { SchemaNode } from "./openapi.js";

/** Follows a dotted path of property names (`[]` steps into array items) through a schema. */
export function at(schema: SchemaNode, path: string): SchemaNode {
  let node: unknown = schema;
  for (const step of path.split(".")) {
    const n = node as SchemaNode;
    node = step === "[]" ? n["items"] : (n["properties"] as SchemaNode | undefined)?.[step];
    if (node === undefined) throw new Error(`no schema at ${path} (step ${step})`);
  }
  return node as SchemaNode;
}

/** The `openAPIV3Schema` of a CRD's first version. */
export function rootOf(crd: SchemaNode): SchemaNode {
  const spec = crd["spec"] as { versions: Array<{ schema: { openAPIV3Schema: SchemaNode } }> };
  return spec.versions[0]!.schema.openAPIV3Schema;
}

/** A CRD's first version. */
export function versionOf(crd: SchemaNode): SchemaNode {
  return (crd["spec"] as { versions: SchemaNode[] }).versions[0]!;
}
