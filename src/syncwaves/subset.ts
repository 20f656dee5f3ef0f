/**
 * The field-by-field rule of the comparison (docs/sync-engine.md#comparison-and-status): a live
 * value matches a desired one when every field the desired value sets is equal live. Two
 * normalisations make it agree with what Argo CD's diff reports after the apiserver has stored an
 * object. Pure.
 *
 * - Empty values. A desired `null`, `[]`, `{}`, `""`, `false` or `0` (or an object made only of
 *   such values) matches a field missing live: the apiserver drops `omitempty` fields, and Argo CD
 *   round-trips both sides through the typed object, which drops them too. Deviation: we apply this
 *   to every kind and field, where Argo CD only drops them for built-in types and fields that are
 *   `omitempty` non-pointers (a `*bool` set to `false` stays); a live object that lacks such a
 *   field was normally defaulted, not changed.
 * - Quantities. A value in a quantity field (see {@link isQuantityPath}) matches a live value of
 *   the same quantity: `1` and `"1"`, `0.5` and `"500m"`, `1Gi` and `"1073741824"`, as Argo CD's
 *   normalisation to `resource.Quantity`'s canonical form makes them equal.
 */
import { isZero } from "../json/index.js";
import { quantitiesEqual } from "./quantity.js";

/** Maps whose values are quantities (ResourceList fields of core types). */
const QUANTITY_MAPS = new Set(["requests", "limits", "hard", "capacity", "allocatable", "overhead"]);
/** LimitRange item maps (`spec.limits[].max` …), quantities as well. */
const LIMIT_RANGE_MAPS = new Set(["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"]);
/** Scalar quantity fields. */
const QUANTITY_FIELDS = new Set(["sizeLimit"]);

/**
 * True when the value at `path` is a resource quantity: a value of a ResourceList map
 * (`resources.requests`, `resources.limits`, ResourceQuota `hard`, pod `overhead`, PV `capacity`),
 * of a LimitRange item's `max`/`min`/`default`/`defaultRequest`/`maxLimitRequestRatio`, or an
 * `emptyDir.sizeLimit` (a PVC's `storage` is a `resources.requests` value).
 */
export function isQuantityPath(path: readonly string[]): boolean {
  const parent = path[path.length - 2];
  const key = path[path.length - 1];
  if (key !== undefined && QUANTITY_FIELDS.has(key)) return true;
  if (parent === undefined) return false;
  if (QUANTITY_MAPS.has(parent)) return true;
  return LIMIT_RANGE_MAPS.has(parent) && path[path.length - 4] === "limits";
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** {@link isSubset} of the values at `path` (the path tells quantity fields). */
export function subsetAt(desired: unknown, live: unknown, path: readonly string[]): boolean {
  if (live === undefined || live === null) return isZero(desired);
  if (desired === null || desired === undefined) return false;
  if (Array.isArray(desired)) {
    return Array.isArray(live) && live.length === desired.length && desired.every((d, i) => subsetAt(d, live[i], [...path, String(i)]));
  }
  if (isRecord(desired)) {
    return isRecord(live) && Object.entries(desired).every(([k, v]) => subsetAt(v, live[k], [...path, k]));
  }
  return desired === live || (isQuantityPath(path) && quantitiesEqual(desired, live));
}

/** True when every value `desired` sets is equal in `live` (with the normalisations above). */
export function isSubset(desired: unknown, live: unknown): boolean {
  return subsetAt(desired, live, []);
}
