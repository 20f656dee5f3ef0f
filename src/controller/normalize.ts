/**
 * Argo CD's normalisation of an Application spec before it is compared or written (spec §4.4):
 * an empty project becomes `default`; a sync policy with no automated, syncOptions, retry or
 * managedNamespaceMetadata is dropped; zero helm and kustomize blocks are dropped; a zero directory
 * block is dropped unless it sets include or exclude. Null values are dropped too (the apiserver
 * prunes them). Pure.
 */
import { ApplicationDefaults } from "../api/index.js";
import { dropNulls, isObject, isZero, type Json, type JsonObject } from "./json.js";

const SYNC_POLICY_FIELDS = ["automated", "syncOptions", "retry", "managedNamespaceMetadata"] as const;

function normalizeSource(source: JsonObject): JsonObject {
  const out = { ...source };
  for (const k of ["helm", "kustomize"] as const) if (out[k] !== undefined && isZero(out[k])) delete out[k];
  const dir = out["directory"];
  if (isObject(dir) && dir["recurse"] !== true && isZero(dir["jsonnet"])) {
    const keep: JsonObject = {};
    for (const k of ["include", "exclude"] as const) if (typeof dir[k] === "string" && dir[k] !== "") keep[k] = dir[k];
    if (Object.keys(keep).length === 0) delete out["directory"];
    else out["directory"] = keep;
  }
  return out;
}

/** The normalised copy of an Application spec. */
export function normalizeSpec(spec: Json | undefined): JsonObject {
  const out = (dropNulls(isObject(spec) ? structuredClone(spec) : {}) ?? {}) as JsonObject;
  if (out["project"] === undefined || out["project"] === "") out["project"] = ApplicationDefaults.project;
  const policy = out["syncPolicy"];
  if (policy !== undefined && (!isObject(policy) || SYNC_POLICY_FIELDS.every((k) => policy[k] === undefined || (k === "syncOptions" && isZero(policy[k]))))) {
    delete out["syncPolicy"];
  }
  if (Array.isArray(out["sources"]) && out["sources"].length > 0) {
    out["sources"] = out["sources"].map((s) => (isObject(s) ? normalizeSource(s) : s));
  } else if (isObject(out["source"])) {
    out["source"] = normalizeSource(out["source"]);
  }
  return out;
}
