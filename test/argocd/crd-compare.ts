/**
 * Compares two CRD `openAPIV3Schema`s: the reference (Argo CD's) against ours, path by path. The
 * walk follows the reference's `properties`, `additionalProperties` and array `items`; at each
 * node it reports what the apiserver would treat differently with our schema:
 *
 * - `field`: a field the reference declares that ours would prune (neither declared nor kept by
 *   `x-kubernetes-preserve-unknown-fields` on our enclosing node), or a node where the reference
 *   keeps unknown fields and ours does not;
 * - `type`: a different `type` or `x-kubernetes-int-or-string`;
 * - `required`: a different `required` list;
 * - `marker`: a different `x-kubernetes-map-type` / `list-type` / `list-map-keys`, checked where
 *   the reference sets one.
 *
 * Pruning is decided node by node (as the apiserver does): a declared child is pruned by its own
 * schema even when its parent keeps unknown fields, so the walk goes on below every node both
 * declare, and stops only where ours has nothing declared below a node that keeps unknown fields.
 * Pure functions over plain JSON.
 */

/** A JSON Schema / OpenAPI node. */
export type SchemaNode = { readonly [key: string]: unknown };

/** What a difference is about (one test per kind). */
export type DifferenceKind = "field" | "type" | "required" | "marker";

/** One difference between the reference schema and ours. */
export interface Difference {
  readonly kind: DifferenceKind;
  /** Dotted path: `.name` for a property, `[]` for array items, `{}` for map values. */
  readonly path: string;
  readonly message: string;
}

const PRESERVE = "x-kubernetes-preserve-unknown-fields";
const INT_OR_STRING = "x-kubernetes-int-or-string";
const MARKERS = ["x-kubernetes-map-type", "x-kubernetes-list-type", "x-kubernetes-list-map-keys"] as const;

function isNode(v: unknown): v is SchemaNode {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function propertiesOf(node: SchemaNode): Readonly<Record<string, unknown>> {
  return isNode(node["properties"]) ? node["properties"] : {};
}

function preserves(node: SchemaNode): boolean {
  return node[PRESERVE] === true;
}

/** True when ours declares nothing below the node (no properties, map values or items). */
function declaresNothingBelow(node: SchemaNode): boolean {
  return Object.keys(propertiesOf(node)).length === 0 && !isNode(node["additionalProperties"]) && !isNode(node["items"]);
}

function show(v: unknown): string {
  return v === undefined ? "(none)" : JSON.stringify(v);
}

function sortedRequired(node: SchemaNode): string[] {
  const r = node["required"];
  return Array.isArray(r) ? r.map(String).sort() : [];
}

/** Differences of one node's own keywords (not its children). */
function compareNode(theirs: SchemaNode, ours: SchemaNode, path: string, out: Difference[]): void {
  if (theirs["type"] !== ours["type"]) {
    out.push({ kind: "type", path, message: `type: Argo CD ${show(theirs["type"])}, ours ${show(ours["type"])}` });
  }
  if ((theirs[INT_OR_STRING] === true) !== (ours[INT_OR_STRING] === true)) {
    out.push({
      kind: "type",
      path,
      message: `${INT_OR_STRING}: Argo CD ${show(theirs[INT_OR_STRING])}, ours ${show(ours[INT_OR_STRING])}`,
    });
  }
  const [tr, or] = [sortedRequired(theirs), sortedRequired(ours)];
  if (tr.join(",") !== or.join(",")) {
    out.push({ kind: "required", path, message: `required: Argo CD ${show(tr)}, ours ${show(or)}` });
  }
  for (const marker of MARKERS) {
    if (theirs[marker] !== undefined && JSON.stringify(theirs[marker]) !== JSON.stringify(ours[marker])) {
      out.push({ kind: "marker", path, message: `${marker}: Argo CD ${show(theirs[marker])}, ours ${show(ours[marker])}` });
    }
  }
  if (preserves(theirs) && !preserves(ours)) {
    out.push({ kind: "field", path, message: "Argo CD keeps unknown fields here, ours prunes them" });
  }
}

/** A child the reference declares and ours does not: fine only if our node keeps unknown fields. */
function missing(ours: SchemaNode, path: string, what: string, out: Difference[]): void {
  if (!preserves(ours)) out.push({ kind: "field", path, message: `${what} not declared by ours (would be pruned)` });
}

function compareChildren(theirs: SchemaNode, ours: SchemaNode, path: string, out: Difference[]): void {
  const ourProps = propertiesOf(ours);
  const ourValues = isNode(ours["additionalProperties"]) ? ours["additionalProperties"] : undefined;
  for (const [key, child] of Object.entries(propertiesOf(theirs))) {
    if (!isNode(child)) continue;
    const mine = ourProps[key] ?? ourValues;
    const childPath = path === "" ? key : `${path}.${key}`;
    if (isNode(mine)) walk(child, mine, childPath, out);
    else missing(ours, childPath, "field", out);
  }
  const theirValues = theirs["additionalProperties"];
  if (isNode(theirValues)) {
    if (ourValues !== undefined) walk(theirValues, ourValues, `${path}{}`, out);
    else missing(ours, `${path}{}`, "map values (any key)", out);
  }
  const theirItems = theirs["items"];
  if (isNode(theirItems)) {
    const ourItems = ours["items"];
    if (isNode(ourItems)) walk(theirItems, ourItems, `${path}[]`, out);
    else missing(ours, `${path}[]`, "array items", out);
  }
}

function walk(theirs: SchemaNode, ours: SchemaNode, path: string, out: Difference[]): void {
  compareNode(theirs, ours, path, out);
  // Below a node that keeps unknown fields and declares nothing, anything goes.
  if (preserves(ours) && declaresNothingBelow(ours)) return;
  compareChildren(theirs, ours, path, out);
}

/** Every difference between the reference `openAPIV3Schema` and ours, in walk order. */
export function compareSchemas(theirs: SchemaNode, ours: SchemaNode): Difference[] {
  const out: Difference[] = [];
  walk(theirs, ours, "", out);
  return out;
}

/** One difference as a line: `path: message` (`(root)` for the root). */
export function formatDifference(d: Difference): string {
  return `${d.path === "" ? "(root)" : d.path}: ${d.message}`;
}

/** The facts of a CRD outside its schema that clients rely on. */
export interface CrdFacts {
  readonly group: unknown;
  readonly scope: unknown;
  readonly names: Readonly<Record<string, unknown>>;
  /** Per version name: served, storage, and whether `/status` is a subresource. */
  readonly versions: Readonly<Record<string, { served: unknown; storage: unknown; status: boolean }>>;
}

/** Reads the {@link CrdFacts} of a CRD object. */
export function crdFacts(crd: SchemaNode): CrdFacts {
  const spec = isNode(crd["spec"]) ? crd["spec"] : {};
  const names = isNode(spec["names"]) ? spec["names"] : {};
  const versions: Record<string, { served: unknown; storage: unknown; status: boolean }> = {};
  for (const v of Array.isArray(spec["versions"]) ? spec["versions"].filter(isNode) : []) {
    const sub = isNode(v["subresources"]) ? v["subresources"] : {};
    versions[String(v["name"])] = { served: v["served"], storage: v["storage"], status: isNode(sub["status"]) };
  }
  return { group: spec["group"], scope: spec["scope"], names, versions };
}

/** The differences of the {@link CrdFacts} of two CRDs, one line each. */
export function compareFacts(theirs: CrdFacts, ours: CrdFacts): string[] {
  const out: string[] = [];
  const same = (what: string, a: unknown, b: unknown): void => {
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${what}: Argo CD ${show(a)}, ours ${show(b)}`);
  };
  same("group", theirs.group, ours.group);
  same("scope", theirs.scope, ours.scope);
  for (const key of ["kind", "listKind", "plural", "singular", "shortNames"]) {
    same(`names.${key}`, theirs.names[key], ours.names[key]);
  }
  same("versions", Object.keys(theirs.versions).sort(), Object.keys(ours.versions).sort());
  for (const [name, t] of Object.entries(theirs.versions)) {
    const o = ours.versions[name];
    if (o === undefined) continue;
    same(`versions.${name}.served`, t.served, o.served);
    same(`versions.${name}.storage`, t.storage, o.storage);
    if (t.status) same(`versions.${name}.subresources.status`, true, o.status);
  }
  return out;
}

/** The `openAPIV3Schema` of a CRD's version (the first one when `name` is not given). */
export function openApiSchemaOf(crd: SchemaNode, name?: string): SchemaNode {
  const spec = isNode(crd["spec"]) ? crd["spec"] : {};
  const versions = Array.isArray(spec["versions"]) ? spec["versions"].filter(isNode) : [];
  const version = name === undefined ? versions[0] : versions.find((v) => v["name"] === name);
  const schema = version !== undefined && isNode(version["schema"]) ? version["schema"]["openAPIV3Schema"] : undefined;
  if (!isNode(schema)) throw new Error(`the CRD has no openAPIV3Schema${name === undefined ? "" : ` for ${name}`}`);
  return schema;
}
