/**
 * The Go value model the template engine works on. Parameters arrive JSON-shaped (objects, arrays,
 * strings, numbers, booleans, null); Go sees them as `map[string]interface{}`, `[]interface{}`,
 * `string`, `float64`, `bool` and nil. Values that only functions produce keep their Go type:
 * integers are {@link GoInt} (a bigint plus its kind), typed slices and maps carry a {@link GOTYPE}
 * tag, and other Go structs implement {@link GoSpecial}.
 *
 * `undefined` stands for Go's invalid reflect.Value ("<no value>"), `null` for a nil interface.
 */

/** Integer kinds a Go value can have. */
export type IntKind = "int" | "int64" | "int32" | "int16" | "int8" | "uint" | "uint64" | "uint32" | "uint16" | "uint8";

/** A Go integer of a given kind. */
export class GoInt {
  constructor(
    readonly v: bigint,
    readonly kind: IntKind = "int",
  ) {}
}

/** Builds a Go `int` from a JS number (truncated) or bigint. */
export function goInt(v: number | bigint, kind: IntKind = "int"): GoInt {
  return new GoInt(typeof v === "bigint" ? BigInt.asIntN(64, v) : BigInt(Math.trunc(v)), kind);
}

/** A Go value with its own type name, kind and (optionally) a String method. */
export interface GoSpecial {
  readonly goType: string;
  readonly goKind: string;
  /** fmt.Stringer, when the Go type has one. */
  goString?(): string;
  /** How %v prints the value when it has no String method. */
  goFormat?(): string;
}

/** Symbol carrying the Go type name of a typed slice or map (default: []interface {} / map[string]interface {}). */
export const GOTYPE: unique symbol = Symbol("gotype");

/** A Go map with string keys. */
export type GoMap = { [key: string]: GoValue } & { [GOTYPE]?: string };
/** A Go slice. */
export type GoSlice = GoValue[] & { [GOTYPE]?: string };

/** Any value the engine handles. */
export type GoValue = undefined | null | string | number | boolean | GoInt | GoSlice | GoMap | GoSpecial;

/** The `[]interface {}` type name. */
export const IFACE_SLICE = "[]interface {}";
/** The `map[string]interface {}` type name. */
export const IFACE_MAP = "map[string]interface {}";

/** Tags a slice with its Go type. */
export function typedSlice(items: GoValue[], type: string): GoSlice {
  const s = items as GoSlice;
  s[GOTYPE] = type;
  return s;
}

/** Tags a map with its Go type. */
export function typedMap(m: Record<string, GoValue>, type: string): GoMap {
  const r = m as GoMap;
  r[GOTYPE] = type;
  return r;
}

/** True for a Go slice. */
export function isSlice(v: GoValue): v is GoSlice {
  return Array.isArray(v);
}

/** True for special Go values (time, semver...). */
export function isSpecial(v: GoValue): v is GoSpecial {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof GoInt) && "goType" in v;
}

/** True for a Go map (a plain object). */
export function isMap(v: GoValue): v is GoMap {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof GoInt) && !("goType" in v);
}

/** The element type of a slice or map type name. */
export function elemType(container: string): string {
  if (container.startsWith("[]")) return container.slice(2);
  const close = container.indexOf("]");
  return container.slice(close + 1);
}

/** The name of a basic value (string, JSON number, bool, Go integer): its type and kind alike. */
function basicName(v: string | number | boolean | GoInt): string {
  switch (typeof v) {
    case "string":
      return "string";
    case "number":
      return "float64";
    case "boolean":
      return "bool";
    default:
      return v.kind;
  }
}

/** Go's type name of a value, as %T and reflect print it. */
export function typeName(v: GoValue): string {
  if (v === undefined || v === null) return "<nil>";
  if (typeof v !== "object" || v instanceof GoInt) return basicName(v);
  if (Array.isArray(v)) return v[GOTYPE] ?? IFACE_SLICE;
  if (isSpecial(v)) return v.goType;
  return v[GOTYPE] ?? IFACE_MAP;
}

/** Go's reflect.Kind name of a value. */
export function kindName(v: GoValue): string {
  if (v === undefined || v === null) return "invalid";
  if (typeof v !== "object" || v instanceof GoInt) return basicName(v);
  if (Array.isArray(v)) return "slice";
  if (isSpecial(v)) return v.goKind;
  return "map";
}

/** True when elements of a container of this type are interface-typed (boxed). */
export function elemIsInterface(container: GoSlice | GoMap): boolean {
  const t = container[GOTYPE];
  return t === undefined || t.endsWith("interface {}");
}

/** Own-property lookup on a Go map. */
export function mapGet(m: GoMap, key: string): GoValue {
  return Object.hasOwn(m, key) ? m[key] : undefined;
}

/** Has-key check on a Go map. */
export function mapHas(m: GoMap, key: string): boolean {
  return Object.hasOwn(m, key);
}

/** A map's keys in Go's sorted order (fmtsort: strings ascending by bytes). */
export function sortedKeys(m: GoMap): string[] {
  return Object.keys(m).sort(compareStrings);
}

/** Compares strings by UTF-8 bytes, as Go does. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 order differs from UTF-8 byte order only around surrogates; handle the common case fast.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(i)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    if (ca > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Go's zero value of a type name (for missingkey=zero on typed maps). */
export function zeroOf(type: string): GoValue {
  switch (type) {
    case "string":
      return "";
    case "float64":
      return 0;
    case "bool":
      return false;
    case "int":
    case "int64":
      return new GoInt(0n, type);
    default:
      return null;
  }
}

/** Length of a string in UTF-8 bytes. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** True when a string is pure ASCII (byte offsets equal UTF-16 offsets). */
export function isAscii(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(s);
}
