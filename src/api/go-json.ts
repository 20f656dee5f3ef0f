/**
 * Go's view of a JSON document: what Argo CD's programs see after decoding it into their typed
 * structs, and so what they compare (`equality.Semantic.DeepEqual` on decoded values; see
 * docs/spec-equivalence.md).
 * The rules, per Go kind (the table of kinds is generated from Argo CD's types, `go-types.ts`):
 * - a plain value (string, bool, number, or a struct held by value): its zero (`""`, `false`, `0`,
 *   an all-zero struct) cannot be told from an absent field, so it counts as absent;
 * - a pointer: `null` and absent are nil, anything else is a value, `false`, `0` and `{}` included;
 * - a slice or a map: nil and empty are the same; a map entry is a value whatever it holds;
 * - an opaque value (a type with its own JSON encoding: times, quantities, raw JSON): compared as is;
 * - a field Go's struct does not have is dropped.
 * {@link goCanonical} maps a document to the one JSON form of its Go value, so two documents are
 * equal in Go exactly when their canonical forms are equal JSON. Pure; inputs are never mutated.
 */

/** How Go holds one JSON value; `omitempty` marks a struct field the encoder leaves out when empty. */
export type GoKind = (
  | { readonly k: "scalar" }
  | { readonly k: "raw" }
  | { readonly k: "ptr"; readonly to: GoKind }
  | { readonly k: "struct"; readonly name: string }
  | { readonly k: "slice"; readonly of: GoKind }
  | { readonly k: "map"; readonly of: GoKind }
) & { readonly omitempty?: boolean };

/** Struct name to JSON field name to kind. */
export type GoStructs = Readonly<Record<string, Readonly<Record<string, GoKind>>>>;

type Plain = { [key: string]: unknown };

function isPlainObject(v: unknown): v is Plain {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isScalarZero(v: unknown): boolean {
  return v === undefined || v === null || v === "" || v === false || v === 0;
}

/**
 * The canonical JSON form of `value` held as `kind`, or undefined when Go's value is its zero
 * (nothing to tell it from an absent field). Values of the wrong JSON type are kept as they are, so
 * they still compare unequal to anything else.
 */
export function goCanonical(value: unknown, kind: GoKind, structs: GoStructs): unknown {
  switch (kind.k) {
    case "scalar":
      return wrongType(value);
    case "raw":
      return value === "" ? undefined : (value ?? undefined);
    case "ptr":
      return value === undefined || value === null ? undefined : present(value, kind.to, structs);
    case "struct":
      return canonicalStruct(value, kind.name, structs);
    case "slice":
      return sliceOf(value, kind.of, structs);
    case "map":
      return isPlainObject(value) ? mapOf(value, kind.of, structs) : wrongType(value);
  }
}

/** A value of the wrong JSON type for its Go kind: zero-like is absence, anything else stays itself. */
function wrongType(value: unknown): unknown {
  return isScalarZero(value) ? undefined : value;
}

function sliceOf(value: unknown, of: GoKind, structs: GoStructs): unknown {
  if (!Array.isArray(value)) return wrongType(value);
  return value.length === 0 ? undefined : value.map((x) => present(x, of, structs));
}

/** A value that exists (a pointer's target, a list element, a map entry): its zero is kept. */
function present(value: unknown, kind: GoKind, structs: GoStructs): unknown {
  const c = goCanonical(value, kind, structs);
  if (c !== undefined) return c;
  switch (kind.k) {
    case "struct":
    case "map":
      return {};
    case "slice":
      return [];
    case "ptr":
      return null;
    default:
      return zeroLike(value);
  }
}

function zeroLike(value: unknown): unknown {
  return value === undefined ? null : value;
}

function mapOf(value: Plain, of: GoKind, structs: GoStructs): Plain | undefined {
  const keys = Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .sort();
  if (keys.length === 0) return undefined;
  const out: Plain = {};
  for (const k of keys) out[k] = present(value[k], of, structs);
  return out;
}

function canonicalStruct(value: unknown, name: string, structs: GoStructs): unknown {
  if (!isPlainObject(value)) return wrongType(value);
  const fields = structs[name];
  if (fields === undefined) throw new Error(`go-json: no struct ${name} in the type table`);
  const out: Plain = {};
  for (const key of Object.keys(fields).sort()) {
    const c = goCanonical(value[key], fields[key]!, structs);
    if (c !== undefined) out[key] = c;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** Exact JSON equality of two canonical forms (key order ignored). */
export function canonicalEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => canonicalEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => canonicalEqual(a[k], b[k]));
  }
  return a === b;
}

/** Empty as encoding/json's `omitempty` sees it: false, 0, "", nil, an empty list or map (never a struct, nor a non-nil pointer). */
function emptyForOmit(value: unknown, kind: GoKind): boolean {
  if (value === undefined || value === null) return true;
  switch (kind.k) {
    case "scalar":
      return value === "" || value === false || value === 0;
    case "slice":
      return Array.isArray(value) && value.length === 0;
    case "map":
      return isPlainObject(value) && Object.keys(value).length === 0;
    default:
      // A non-nil pointer or interface is kept whatever it points at; a struct is never empty.
      return false;
  }
}

/**
 * `value` without the fields Go's encoder would leave out (`omitempty` fields holding an empty
 * value), as Argo CD writes what it decoded; everything else, unknown fields included, stays as it
 * is. A copy; the input is not mutated.
 */
export function withoutOmitted(value: unknown, kind: GoKind, structs: GoStructs): unknown {
  switch (kind.k) {
    case "ptr":
      return withoutOmitted(value, kind.to, structs);
    case "slice":
      return Array.isArray(value) ? value.map((v) => withoutOmitted(v, kind.of, structs)) : value;
    case "map":
      return isPlainObject(value)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutOmitted(v, kind.of, structs)]))
        : value;
    case "struct":
      return isPlainObject(value) ? structWithoutOmitted(value, kind.name, structs) : value;
    default:
      return value;
  }
}

/** The fields of one struct value without its empty `omitempty` fields; unknown fields stay. */
function structWithoutOmitted(value: Plain, name: string, structs: GoStructs): Plain {
  const fields = structs[name] ?? {};
  const out: Plain = {};
  for (const [k, v] of Object.entries(value)) {
    const f = fields[k];
    if (f === undefined) out[k] = v;
    else if (!(f.omitempty === true && emptyForOmit(v, f))) out[k] = withoutOmitted(v, f, structs);
  }
  return out;
}
