/**
 * The normalised Application spec the controller writes and compares (spec §4.4): Argo CD's
 * normalisation (`normalizeApplicationSpec` in src/api/equivalence.ts) with null values dropped, as
 * the apiserver prunes them. Pure.
 */
import { normalizeApplicationSpec } from "../api/equivalence.js";
import { dropNulls, isObject, type Json, type JsonObject } from "./json.js";

/** The normalised copy of an Application spec. */
export function normalizeSpec(spec: Json | undefined): JsonObject {
  const clean = dropNulls(isObject(spec) ? spec : {});
  return normalizeApplicationSpec(clean) as JsonObject;
}
