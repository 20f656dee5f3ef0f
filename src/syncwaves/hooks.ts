/**
 * Hook parsing (docs/sync-engine.md#hooks): which objects are hooks, of which types, with
 * which delete policies, and the names generated for `generateName` hooks. Argo CD's annotations
 * win per object; Helm's are the fallback. Pure.
 */
import { Annotation, HELM_DELETE_POLICIES, HELM_HOOK_TYPES, HookDeletePolicy, HookType, SyncPhase } from "../api/index.js";
import type { KubeObject } from "../kube/index.js";
import { annotation } from "./objects.js";

/** Helm's CRD-install hook value: not a hook for Argo CD. */
const HELM_CRD_INSTALL = "crd-install";

/** The sync-time hook types (PreDelete/PostDelete run only on Application deletion). */
const SYNC_HOOK_TYPES: ReadonlySet<string> = new Set([
  HookType.PreSync,
  HookType.Sync,
  HookType.PostSync,
  HookType.SyncFail,
  HookType.Skip,
  HookType.PreDelete,
  HookType.PostDelete,
]);

/**
 * Splits a comma-separated annotation value: trims spaces, drops empty items, removes duplicates
 * (first occurrence wins). Matching is case-sensitive.
 */
export function parseCsv(value: string | undefined): string[] {
  if (value === undefined) return [];
  const out: string[] = [];
  for (const raw of value.split(",")) {
    const item = raw.trim();
    if (item !== "" && !out.includes(item)) out.push(item);
  }
  return out;
}

/** The valid Argo CD hook types named by `argocd.argoproj.io/hook`. */
function argoTypes(obj: KubeObject): HookType[] {
  return parseCsv(annotation(obj, Annotation.Hook)).filter((t): t is HookType => SYNC_HOOK_TYPES.has(t));
}

/** Helm hook values mapped to Argo CD types; unmapped values (test, rollbacks, …) yield nothing. */
function helmTypes(obj: KubeObject): HookType[] {
  const out: HookType[] = [];
  for (const value of parseCsv(annotation(obj, Annotation.HelmHook))) {
    const mapped = HELM_HOOK_TYPES[value];
    if (mapped !== undefined && !out.includes(mapped)) out.push(mapped);
  }
  return out;
}

/**
 * The hook types of an object: its valid Argo CD types, or only when it has none, its Helm types
 * mapped to Argo CD's (`pre-install,pre-upgrade` → one PreSync).
 */
export function hookTypes(obj: KubeObject): HookType[] {
  const argo = argoTypes(obj);
  return argo.length > 0 ? argo : helmTypes(obj);
}

/** True when the object carries a hook annotation (Argo CD's, or Helm's other than `crd-install`). */
function hasHookAnnotation(obj: KubeObject): boolean {
  if (annotation(obj, Annotation.Hook) !== undefined) return true;
  const helm = annotation(obj, Annotation.HelmHook);
  return helm !== undefined && helm !== HELM_CRD_INSTALL;
}

/** True when `Skip` is the object's only hook type: the object is neither applied nor pruned. */
export function isSkip(obj: KubeObject): boolean {
  const types = hookTypes(obj);
  return types.length === 1 && types[0] === HookType.Skip;
}

/** True when the object is a hook (a Skip-only object is not). */
export function isHook(obj: KubeObject): boolean {
  return hasHookAnnotation(obj) && !isSkip(obj);
}

/**
 * True for a "garbage" hook: it has a hook annotation but no valid type (e.g. `Foo`, Helm `test`).
 * Such objects are dropped from the desired set entirely.
 */
export function isGarbageHook(obj: KubeObject): boolean {
  return hasHookAnnotation(obj) && hookTypes(obj).length === 0;
}

/** The sync phases a hook runs in, in phase order (PreDelete/PostDelete/Skip excluded). */
export function hookPhases(obj: KubeObject): SyncPhase[] {
  const types = new Set<string>(hookTypes(obj));
  return Object.values(SyncPhase).filter((p) => types.has(p));
}

/** True when the object is a PreDelete hook. */
export function isPreDeleteHook(obj: KubeObject): boolean {
  return hookTypes(obj).includes(HookType.PreDelete);
}

/** True when the object is a PostDelete hook. */
export function isPostDeleteHook(obj: KubeObject): boolean {
  return hookTypes(obj).includes(HookType.PostDelete);
}

/**
 * True when a hook takes part only in Application deletion: it names PreDelete or PostDelete and no
 * sync phase. Such objects are not sync targets.
 */
export function isDeletionOnlyHook(obj: KubeObject): boolean {
  return (isPreDeleteHook(obj) || isPostDeleteHook(obj)) && hookPhases(obj).length === 0;
}

/**
 * The delete policies of a hook, Argo CD's and Helm's merged (`before-hook-creation`,
 * `hook-succeeded`, `hook-failed`). Default when none: BeforeHookCreation.
 */
export function deletePolicies(obj: KubeObject): HookDeletePolicy[] {
  const valid = new Set<string>(Object.values(HookDeletePolicy));
  const out: HookDeletePolicy[] = [];
  for (const p of parseCsv(annotation(obj, Annotation.HookDeletePolicy))) {
    if (valid.has(p) && !out.includes(p as HookDeletePolicy)) out.push(p as HookDeletePolicy);
  }
  for (const p of parseCsv(annotation(obj, Annotation.HelmHookDeletePolicy))) {
    const mapped = HELM_DELETE_POLICIES[p];
    if (mapped !== undefined && !out.includes(mapped)) out.push(mapped);
  }
  return out.length > 0 ? out : [HookDeletePolicy.BeforeHookCreation];
}

/** True when the hook has the given delete policy (defaults applied). */
export function hasDeletePolicy(obj: KubeObject, policy: HookDeletePolicy): boolean {
  return deletePolicies(obj).includes(policy);
}

/** What a generated hook name is built from. */
export interface HookNameInput {
  /** The resolved revision of the operation. */
  readonly revision: string;
  /** The sync phase, or PreDelete/PostDelete for deletion hooks. */
  readonly phase: string;
  /** The operation's `startedAt`, in milliseconds since the epoch. */
  readonly startedAtMs: number;
}

/**
 * The name of a hook that has only `generateName`: `generateName` + lowercase
 * `<rev7>-<phase>-<startedAt unix seconds>`, where rev7 is the revision's first 7 characters when it
 * has 8 or more. Stable for the whole operation, so retries reuse the names. Returns the object's
 * own name when it has one.
 */
export function hookName(obj: KubeObject, input: HookNameInput): string | undefined {
  const meta = obj.metadata ?? {};
  if (meta.name !== undefined && meta.name !== "") return meta.name;
  if (meta.generateName === undefined || meta.generateName === "") return undefined;
  const rev = input.revision.length >= 8 ? input.revision.slice(0, 7) : input.revision;
  const seconds = Math.floor(input.startedAtMs / 1000);
  return meta.generateName + `${rev}-${input.phase}-${String(seconds)}`.toLowerCase();
}
