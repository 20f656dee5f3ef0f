/**
 * The one spec equivalence of the project (docs/spec-equivalence.md): when two Application specs,
 * sources or comparison results are the same for Argo CD. Used by the write path (is an update
 * needed?), the rollout's "spec differs" check and its "reconciled" check (`status.sync.comparedTo`).
 *
 * Two steps, both facts of Argo CD's Go code written our own way:
 * 1. {@link normalizeApplicationSpec}: Argo CD's normalisation before a compare or a write. An empty
 *    project is `default`; a sync policy with no automated, syncOptions, retry or
 *    managedNamespaceMetadata is dropped; a helm, kustomize or directory block that Argo CD's
 *    `IsZero` calls empty is dropped (a directory keeps include/exclude). `IsZero` looks at a fixed
 *    list of fields per block (below), so a block that sets only a field outside the list, such as
 *    `kustomize.forceCommonLabels`, is dropped too, as Argo CD drops it.
 * 2. {@link goCanonical} with the table generated from Argo CD's types: `false`/`0`/`{}` are values
 *    where Go holds a pointer (`automated.enabled`, `revisionHistoryLimit`, `automated: {}`) and a
 *    map entry's `""` is a value, while a plain field's zero is absence (`helm.skipCrds: false`,
 *    `parameters[].forceString: false`). Pure.
 */
import { canonicalEqual, goCanonical, type GoKind, type GoStructs } from "./go-json.js";
import { GO_ROOTS, GO_STRUCTS } from "./go-types.js";

type Plain = { [key: string]: unknown };

function isPlain(v: unknown): v is Plain {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const empty = (v: unknown): boolean => v === undefined || v === null || v === "" || v === false || v === 0;
const noItems = (v: unknown): boolean => !(Array.isArray(v) && v.length > 0) && !(isPlain(v) && Object.keys(v).length > 0);

/** The fields Argo CD's `IsZero` of a helm block reads, besides the values. */
const HELM_SCALARS = [
  "version",
  "releaseName",
  "passCredentials",
  "ignoreMissingValueFiles",
  "skipCrds",
  "skipTests",
  "skipSchemaValidation",
  "kubeVersion",
  "namespace",
];
const HELM_LISTS = ["valueFiles", "parameters", "fileParameters", "apiVersions"];
/** The fields Argo CD's `IsZero` of a kustomize block reads. */
const KUSTOMIZE_SCALARS = ["namePrefix", "nameSuffix", "version", "namespace", "kubeVersion", "ignoreMissingComponents"];
const KUSTOMIZE_LISTS = ["images", "replicas", "commonLabels", "commonAnnotations", "patches", "components", "apiVersions"];
const JSONNET_LISTS = ["extVars", "tlas", "libs"];
const SYNC_POLICY_POINTERS = ["automated", "retry", "managedNamespaceMetadata"];

function blockIsZero(block: Plain, scalars: readonly string[], lists: readonly string[]): boolean {
  return scalars.every((k) => empty(block[k])) && lists.every((k) => noItems(block[k]));
}

/** Helm values are empty when `valuesObject` is absent or null and `values` is empty. */
function helmValuesEmpty(helm: Plain): boolean {
  const obj = helm["valuesObject"];
  return obj === undefined || obj === null ? empty(helm["values"]) : false;
}

function helmIsZero(helm: Plain): boolean {
  return blockIsZero(helm, HELM_SCALARS, HELM_LISTS) && helmValuesEmpty(helm);
}

function directoryIsZero(dir: Plain): boolean {
  const jsonnet = isPlain(dir["jsonnet"]) ? dir["jsonnet"] : {};
  return empty(dir["recurse"]) && empty(dir["disableExtensionFilter"]) && blockIsZero(jsonnet, [], JSONNET_LISTS);
}

/** A zero directory block keeps only its include and exclude globs, or goes. */
function normalizedDirectory(dir: Plain): Plain | undefined {
  if (!directoryIsZero(dir)) return dir;
  const keep: Plain = {};
  for (const k of ["exclude", "include"]) if (typeof dir[k] === "string" && dir[k] !== "") keep[k] = dir[k];
  return Object.keys(keep).length === 0 ? undefined : keep;
}

function normalizeSource(source: Plain): Plain {
  const out = { ...source };
  if (isPlain(out["kustomize"]) && blockIsZero(out["kustomize"], KUSTOMIZE_SCALARS, KUSTOMIZE_LISTS)) delete out["kustomize"];
  if (isPlain(out["helm"]) && helmIsZero(out["helm"])) delete out["helm"];
  if (isPlain(out["directory"])) out["directory"] = normalizedDirectory(out["directory"]);
  for (const k of ["kustomize", "helm", "directory"]) if (out[k] === null || out[k] === undefined) delete out[k];
  return out;
}

function syncPolicyIsZero(policy: unknown): boolean {
  if (!isPlain(policy)) return true;
  return SYNC_POLICY_POINTERS.every((k) => policy[k] === undefined || policy[k] === null) && noItems(policy["syncOptions"]);
}

/**
 * Argo CD's normalisation of an Application spec (see the module comment): a new object; `spec` is
 * left as it was, and the values the normalisation does not change are shared with it (strings
 * included: a fan-out of thousands holds one copy of a repository URL, not one per Application).
 */
export function normalizeApplicationSpec(spec: unknown): Plain {
  const out: Plain = isPlain(spec) ? { ...spec } : {};
  if (empty(out["project"])) out["project"] = "default";
  if (out["syncPolicy"] !== undefined && syncPolicyIsZero(out["syncPolicy"])) delete out["syncPolicy"];
  const sources = out["sources"];
  if (Array.isArray(sources) && sources.length > 0)
    out["sources"] = (sources as unknown[]).map((s) => (isPlain(s) ? normalizeSource(s) : s));
  else if (isPlain(out["source"])) out["source"] = normalizeSource(out["source"]);
  return out;
}

/** The kind of a named Argo CD struct. */
export function goStruct(name: string): GoKind {
  return { k: "struct", name };
}

const SPEC = goStruct(GO_ROOTS.ApplicationSpec);
const SOURCE: GoKind = { k: "ptr", to: goStruct("v1alpha1.ApplicationSource") };
const SOURCES: GoKind = { k: "slice", of: goStruct("v1alpha1.ApplicationSource") };

/** The canonical Go form of a spec after Argo CD's normalisation. */
export function canonicalSpec(spec: unknown): unknown {
  return goCanonical(normalizeApplicationSpec(spec), SPEC, GO_STRUCTS);
}

/** True when two Application specs are the same for Argo CD (normalised, then compared as Go values). */
export function specsEquivalent(desired: unknown, live: unknown): boolean {
  return canonicalEqual(canonicalSpec(desired), canonicalSpec(live));
}

/** True when two sources (`spec.source` and `comparedTo.source`) are the same Go value. */
export function sourceEquivalent(a: unknown, b: unknown): boolean {
  return canonicalEqual(goCanonical(a, SOURCE, GO_STRUCTS), goCanonical(b, SOURCE, GO_STRUCTS));
}

/** True when two source lists are the same Go value. */
export function sourcesEquivalent(a: unknown, b: unknown): boolean {
  return canonicalEqual(goCanonical(a, SOURCES, GO_STRUCTS), goCanonical(b, SOURCES, GO_STRUCTS));
}

/** How Go holds an object's labels, annotations and finalizers: nil equals empty, a `""` value is a value. */
export const OBJECT_META_KINDS: Readonly<Record<"labels" | "annotations" | "finalizers", GoKind>> = {
  labels: { k: "map", of: { k: "scalar" } },
  annotations: { k: "map", of: { k: "scalar" } },
  finalizers: { k: "slice", of: { k: "scalar" } },
};

/**
 * Argo CD's struct table with structs of the caller's own added (their fields may name Argo CD's
 * structs). Build it once and pass it to {@link goCanonical}.
 */
export function withGoStructs(extra: GoStructs): GoStructs {
  return { ...GO_STRUCTS, ...extra };
}
