/**
 * What each generated Application should look like, and what it takes to get there from the live
 * one (docs/controller.md#creating-and-updating-applications): the desired object (normalised spec,
 * labels, annotations, finalizers, controller owner reference), the live values kept (preserved
 * annotations and labels, PreDelete/PostDelete finalizers, the operation),
 * `ignoreApplicationDifferences` (ignored fields keep their live values), and the JSON merge patch
 * from live to desired (none when they are semantically equal). Pure: the executor re-runs
 * {@link appChange} on a freshly read live object after a conflict.
 */
import {
  DEFAULT_PRESERVED_ANNOTATIONS,
  emptyApplicationStatus,
  Finalizer,
  GROUP_VERSION,
  Kind,
  type Application,
  type ApplicationSet,
  type IgnoreApplicationDifference,
  type OwnerReference,
} from "../api/index.js";
import type { RenderedApplication } from "../generators/applications.js";
import { goStruct, OBJECT_META_KINDS, withGoStructs } from "../api/equivalence.js";
import { canonicalEqual, goCanonical } from "../api/go-json.js";
import { GO_ROOTS } from "../api/go-types.js";
import { createMergePatch, getPath, isObject, pointerTokens, setPath, type Json, type JsonObject } from "../json/index.js";
import { alreadyOwnedMessage, ignoreDifferencesError } from "./messages.js";
import { deletePath, jqPathTokens, jqSelectPaths, jqSyntaxError } from "../json/index.js";
import { normalizeSpec } from "./normalize.js";
import type { PlanSettings } from "./snapshot.js";

/** A generated Application as the controller wants it, with what to keep from the live one. */
export interface DesiredApp {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly finalizers: readonly string[];
  /** The normalised spec. */
  readonly spec: JsonObject;
  /** Set only when the controller attaches an operation (never cleared otherwise). */
  readonly operation?: JsonObject;
  readonly owner: OwnerReference;
  /** Annotation and label keys whose live values win. */
  readonly preserveAnnotations: readonly string[];
  readonly preserveLabels: readonly string[];
  /** The `ignoreApplicationDifferences` rules that apply to this Application, as JSON paths. */
  readonly ignorePaths: readonly (readonly string[])[];
  /** jq expressions beyond plain paths (pipes, `select`), resolved against each document. */
  readonly ignoreQueries: readonly string[];
  /**
   * Set when a jq expression of any `ignoreApplicationDifferences` rule does not parse: an existing
   * Application is then not updated, as in Argo CD (which compiles every rule before comparing).
   */
  readonly ignoreError?: string;
}

/** What one Application needs. */
export type AppChange =
  | { readonly kind: "none" }
  | { readonly kind: "create"; readonly object: JsonObject }
  | { readonly kind: "update"; readonly patch: JsonObject }
  | { readonly kind: "error"; readonly message: string };

/** The controller owner reference an ApplicationSet puts on its Applications. */
export function ownerReferenceOf(appSet: ApplicationSet): OwnerReference {
  return {
    apiVersion: GROUP_VERSION,
    kind: Kind.ApplicationSet,
    name: appSet.metadata.name ?? "",
    uid: appSet.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The rules that apply to Application `name` (no name filter, or that name). */
function rulesFor(rules: readonly IgnoreApplicationDifference[], name: string): IgnoreApplicationDifference[] {
  return rules.filter((rule) => rule.name === undefined || rule.name === "" || rule.name === name);
}

/** The paths ignored for Application `name`; paths into name, namespace, operation or TypeMeta are dropped. */
export function ignorePathsFor(rules: readonly IgnoreApplicationDifference[], name: string): string[][] {
  const out: string[][] = [];
  for (const rule of rulesFor(rules, name)) {
    const paths = [...(rule.jsonPointers ?? []).map(pointerTokens), ...(rule.jqPathExpressions ?? []).map(jqPathTokens)];
    for (const p of paths) if (p !== undefined && !protectedPath(p)) out.push(p);
  }
  return out;
}

/** The jq expressions ignored for Application `name` that are more than a plain path. */
export function ignoreQueriesFor(rules: readonly IgnoreApplicationDifference[], name: string): string[] {
  return rulesFor(rules, name).flatMap((rule) => (rule.jqPathExpressions ?? []).filter((q) => jqPathTokens(q) === undefined));
}

function protectedPath(p: readonly string[]): boolean {
  const [a, b] = p;
  return (
    p.length === 0 ||
    a === "apiVersion" ||
    a === "kind" ||
    a === "operation" ||
    (a === "metadata" && (b === undefined || b === "name" || b === "namespace"))
  );
}

/** The labels (or annotations) of an Application that has none: one shared, frozen object. */
const NO_STRINGS: Readonly<Record<string, string>> = Object.freeze({});
/** No ignored paths or queries: one shared, frozen list. */
const NONE: readonly never[] = Object.freeze([]);

function stringMap(v: Json | undefined): Readonly<Record<string, string>> {
  if (!isObject(v)) return NO_STRINGS;
  const entries = Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string");
  return entries.length === 0 ? NO_STRINGS : Object.fromEntries(entries);
}

/**
 * What the desired form of every Application of one ApplicationSet shares: built once per plan, so a
 * fan-out of thousands holds one owner reference and one list of preserved keys, not one each.
 */
export interface DesiredShared {
  readonly owner: OwnerReference;
  readonly preserveAnnotations: readonly string[];
  readonly preserveLabels: readonly string[];
  readonly rules: readonly IgnoreApplicationDifference[];
  readonly ignoreError?: string;
}

/** The {@link DesiredShared} of `appSet`. */
export function desiredShared(
  appSet: ApplicationSet,
  settings: Pick<PlanSettings, "preservedAnnotations" | "preservedLabels">,
): DesiredShared {
  const preserved = appSet.spec.preservedFields;
  const rules = appSet.spec.ignoreApplicationDifferences ?? [];
  return {
    owner: ownerReferenceOf(appSet),
    preserveAnnotations: [...DEFAULT_PRESERVED_ANNOTATIONS, ...settings.preservedAnnotations, ...(preserved?.annotations ?? [])],
    preserveLabels: [...settings.preservedLabels, ...(preserved?.labels ?? [])],
    rules,
    ...ignoreErrorOf(rules),
  };
}

/** The desired form of one valid rendered Application (`shared`: its ApplicationSet's {@link desiredShared}). */
export function desiredFrom(
  app: RenderedApplication,
  appSet: ApplicationSet,
  settings: Pick<PlanSettings, "preservedAnnotations" | "preservedLabels">,
  shared: DesiredShared = desiredShared(appSet, settings),
): DesiredApp {
  const meta = app.metadata as JsonObject;
  const name = app.metadata.name ?? "";
  const finalizers = Array.isArray(meta["finalizers"]) ? meta["finalizers"].filter((f): f is string => typeof f === "string") : [];
  const { rules, ignoreError, ...rest } = shared;
  return {
    name,
    namespace: appSet.metadata.namespace ?? "",
    labels: stringMap(meta["labels"]),
    annotations: stringMap(meta["annotations"]),
    finalizers,
    spec: normalizeSpec(app.spec),
    ...rest,
    ignorePaths: rules.length === 0 ? NONE : ignorePathsFor(rules, name),
    ignoreQueries: rules.length === 0 ? NONE : ignoreQueriesFor(rules, name),
    ...(ignoreError !== undefined ? { ignoreError } : {}),
  };
}

/** The error of the first jq expression of `rules` that does not parse, whichever Application the rule names. */
function ignoreErrorOf(rules: readonly IgnoreApplicationDifference[]): { ignoreError?: string } {
  for (const q of rules.flatMap((r) => r.jqPathExpressions ?? [])) {
    const err = jqSyntaxError(q);
    if (err !== undefined) return { ignoreError: ignoreDifferencesError(err) };
  }
  return {};
}

/** The status of every Application created (Argo CD's empty status), shared and frozen to the leaves. */
const CREATED_STATUS: JsonObject = deepFrozen(emptyApplicationStatus() as JsonObject);

function deepFrozen<T>(v: T): T {
  if (typeof v === "object" && v !== null) for (const x of Object.values(v)) deepFrozen(x);
  return Object.freeze(v);
}

/**
 * The object to create when no Application has the name. Its spec is the desired one itself, not a
 * copy: a fan-out holds every object to create until it is written, and neither the plan nor the
 * generators' output is modified after it is made.
 */
export function newApplication(d: DesiredApp): JsonObject {
  const metadata: JsonObject = { name: d.name, namespace: d.namespace, ownerReferences: [d.owner as unknown as Json] };
  if (Object.keys(d.labels).length > 0) metadata["labels"] = { ...d.labels };
  if (Object.keys(d.annotations).length > 0) metadata["annotations"] = { ...d.annotations };
  if (d.finalizers.length > 0) metadata["finalizers"] = [...d.finalizers];
  return {
    apiVersion: GROUP_VERSION,
    kind: Kind.Application,
    metadata,
    spec: d.spec,
    ...(d.operation ? { operation: d.operation } : {}),
    status: CREATED_STATUS,
  };
}

function withPreserved(
  desired: Readonly<Record<string, string>>,
  live: Readonly<Record<string, string>> | undefined,
  keys: readonly string[],
): Record<string, string> {
  const out = { ...desired };
  for (const k of keys) {
    const v = live?.[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function isKeptFinalizer(f: string): boolean {
  return f.startsWith(Finalizer.PreDelete) || f.startsWith(Finalizer.PostDelete);
}

function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  const group = (v: string): string => v.split("/")[0] ?? "";
  return group(a.apiVersion) === group(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

/** controller-runtime's SetControllerReference: the live references with ours upserted, or an error. */
function withOwner(live: Application, owner: OwnerReference): OwnerReference[] | string {
  const refs = live.metadata.ownerReferences ?? [];
  const other = refs.find((r) => r.controller === true && !sameOwner(r, owner));
  if (other !== undefined) return alreadyOwnedMessage(live.metadata.namespace ?? "", live.metadata.name ?? "", other.kind, other.name);
  const i = refs.findIndex((r) => sameOwner(r, owner));
  return i < 0 ? [...refs, owner] : refs.map((r, j) => (j === i ? owner : r));
}

/** The comparable view of a live Application: the fields the controller manages. */
function liveView(live: Application): JsonObject {
  const m = live.metadata;
  return {
    metadata: {
      labels: m.labels ?? {},
      annotations: m.annotations ?? {},
      finalizers: m.finalizers ?? [],
      ownerReferences: (m.ownerReferences ?? []) as unknown as Json,
    },
    spec: normalizeSpec(live.spec as unknown as Json),
    ...(live.operation ? { operation: live.operation as unknown as Json } : {}),
  };
}

function targetView(d: DesiredApp, live: Application, owners: OwnerReference[]): JsonObject {
  const m = live.metadata;
  const finalizers = [...d.finalizers, ...(m.finalizers ?? []).filter((f) => isKeptFinalizer(f) && !d.finalizers.includes(f))];
  return {
    metadata: {
      labels: withPreserved(d.labels, m.labels, d.preserveLabels),
      annotations: withPreserved(d.annotations, m.annotations, d.preserveAnnotations),
      finalizers,
      ownerReferences: owners as unknown as Json,
    },
    spec: structuredClone(d.spec),
    ...(d.operation ? { operation: d.operation } : live.operation ? { operation: live.operation as unknown as Json } : {}),
  };
}

/** Ignored fields take their live values in the target (Argo CD's ignore normaliser on targets). */
function applyIgnores(target: JsonObject, live: JsonObject, paths: DesiredApp["ignorePaths"]): void {
  for (const p of paths) setPath(target, p, structuredClone(getPath(live, p)));
  if (paths.length > 0) target["spec"] = normalizeSpec(target["spec"]);
}

/**
 * Fields a jq query selects are removed from both sides before they are compared, as Argo CD's
 * normaliser does: an edit of an ignored field alone writes nothing, and a write replaces a list
 * whole, so an item's ignored field goes when another field of the list changes.
 */
function removeQueried(target: JsonObject, live: JsonObject, queries: readonly string[]): void {
  if (queries.length === 0) return;
  for (const q of queries) {
    const paths = [...(jqSelectPaths(q, live) ?? []), ...(jqSelectPaths(q, target) ?? [])].filter((p) => !protectedPath(p));
    for (const p of paths) {
      deletePath(live, p);
      deletePath(target, p);
    }
  }
  live["spec"] = normalizeSpec(live["spec"]);
  target["spec"] = normalizeSpec(target["spec"]);
}

/**
 * The managed part of an Application as Go holds it: Argo CD's spec and operation types, metadata
 * maps (an entry with an empty value is a value) and owner references (`controller` and
 * `blockOwnerDeletion` are pointers).
 */
const VIEW_STRUCTS = withGoStructs({
  "appset.ApplicationView": {
    metadata: goStruct("appset.ViewMetadata"),
    spec: goStruct(GO_ROOTS.ApplicationSpec),
    operation: { k: "ptr", to: goStruct(GO_ROOTS.Operation) },
  },
  "appset.ViewMetadata": {
    ...OBJECT_META_KINDS,
    ownerReferences: { k: "slice", of: goStruct("appset.OwnerReference") },
  },
  "appset.OwnerReference": {
    apiVersion: { k: "scalar" },
    kind: { k: "scalar" },
    name: { k: "scalar" },
    uid: { k: "scalar" },
    controller: { k: "ptr", to: { k: "scalar" } },
    blockOwnerDeletion: { k: "ptr", to: { k: "scalar" } },
  },
});
const VIEW = goStruct("appset.ApplicationView");

/** True when two views hold the same Go values. */
function viewsEqual(a: JsonObject, b: JsonObject): boolean {
  return canonicalEqual(goCanonical(a, VIEW, VIEW_STRUCTS), goCanonical(b, VIEW, VIEW_STRUCTS));
}

/** What it takes to make `live` (undefined: absent) match `d`. */
export function appChange(d: DesiredApp, live: Application | undefined): AppChange {
  if (live === undefined) return { kind: "create", object: newApplication(d) };
  if (d.ignoreError !== undefined) return { kind: "error", message: d.ignoreError };
  const owners = withOwner(live, d.owner);
  if (typeof owners === "string") return { kind: "error", message: owners };
  const from = liveView(live);
  const to = targetView(d, live, owners);
  applyIgnores(to, from, d.ignorePaths);
  removeQueried(to, from, d.ignoreQueries);
  if (viewsEqual(from, to)) return { kind: "none" };
  const patch = createMergePatch(from, to);
  const meta = isObject(patch["metadata"]) ? patch["metadata"] : {};
  patch["metadata"] = { ...meta, resourceVersion: live.metadata.resourceVersion ?? null };
  return { kind: "update", patch };
}
