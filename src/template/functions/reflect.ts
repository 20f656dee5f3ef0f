/**
 * Sprig's reflection and emptiness helpers: typeOf/kindOf (Go's %T and reflect.Kind names),
 * reflect.DeepEqual, and Sprig's `empty` rules shared by default, coalesce, compact, all, any.
 */
import { fn, type FuncMap } from "../go/types.js";
import { GoInt, isSpecial, kindName, typeName, type GoValue } from "../go/value.js";

/** Sprig's empty(). */
export function isEmpty(v: GoValue): boolean {
  if (v === undefined || v === null) return true;
  switch (typeof v) {
    case "string":
      return v.length === 0;
    case "number":
      return v === 0;
    case "boolean":
      return !v;
  }
  if (v instanceof GoInt) return v.v === 0n;
  if (Array.isArray(v)) return v.length === 0;
  if (isSpecial(v)) return v.goKind === "ptr" ? false : false;
  for (const k in v) if (Object.hasOwn(v, k)) return false;
  return true;
}

/** reflect.DeepEqual over Go-shaped values. */
export function deepEqual(a: GoValue, b: GoValue): boolean {
  if (a === b) return true;
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null);
  if (typeName(a) !== typeName(b)) return false;
  if (a instanceof GoInt) return a.v === (b as GoInt).v;
  if (typeof a !== "object") return a === b;
  return deepEqualObjects(a, b);
}

/** reflect.DeepEqual of two non-nil objects of the same Go type: slices, specials and maps. */
function deepEqualObjects(a: NonNullable<GoValue>, b: GoValue): boolean {
  if (Array.isArray(a)) {
    const bb = b as GoValue[];
    return a.length === bb.length && a.every((x: GoValue, i) => deepEqual(x, bb[i]));
  }
  if (isSpecial(a)) return a.goString?.() === (b as typeof a).goString?.();
  const bm = b as Record<string, GoValue>;
  const ka = Object.keys(a);
  return (
    ka.length === Object.keys(bm).length && ka.every((k) => Object.hasOwn(bm, k) && deepEqual((a as Record<string, GoValue>)[k], bm[k]))
  );
}

const typeOf = (v: GoValue): string => typeName(v);

/** The reflection functions. */
export const REFLECT_FUNCS: FuncMap = {
  typeOf: fn(["any"], (a) => typeOf(a[0])),
  typeIs: fn(["string", "any"], (a) => a[0] === typeOf(a[1])),
  typeIsLike: fn(["string", "any"], (a) => a[0] === typeOf(a[1]) || "*" + (a[0] as string) === typeOf(a[1])),
  kindOf: fn(["any"], (a) => kindName(a[0])),
  kindIs: fn(["string", "any"], (a) => a[0] === kindName(a[1])),
  deepEqual: fn(["any", "any"], (a) => deepEqual(a[0], a[1])),
};
