/**
 * The normalised Application spec the controller writes and compares (docs/spec-equivalence.md):
 * Argo CD's normalisation (`normalizeApplicationSpec` in src/api/equivalence.ts) with null values
 * dropped, as the apiserver prunes them, and the empty `omitempty` fields left out, as Argo CD's Go
 * encoder leaves them out of what it writes (`destination.name: ""` is not written). Pure.
 */
import { goStruct, normalizeApplicationSpec } from "../api/equivalence.js";
import { withoutOmitted } from "../api/go-json.js";
import { GO_ROOTS, GO_STRUCTS } from "../api/go-types.js";
import { dropNulls, isObject, type Json, type JsonObject } from "../json/index.js";

const SPEC = goStruct(GO_ROOTS.ApplicationSpec);

/** The normalised copy of an Application spec. */
export function normalizeSpec(spec: Json | undefined): JsonObject {
  const clean = dropNulls(isObject(spec) ? spec : {});
  return withoutOmitted(normalizeApplicationSpec(clean), SPEC, GO_STRUCTS) as JsonObject;
}
