/**
 * Sync options (docs/sync-engine.md#sync-options): the Application-level list
 * (`operation.sync.syncOptions`, or `spec.syncPolicy.syncOptions`) and the per-resource annotation
 * `argocd.argoproj.io/sync-options`. A resource's own `Key=value` overrides the Application's value
 * for that key. Pure.
 */
import { Annotation } from "../api/index.js";
import type { KubeObject } from "../kube/index.js";
import { parseCsv } from "./hooks.js";
import { annotation } from "./objects.js";

/** The option keys the engine reads. */
export const OptionKey = {
  Prune: "Prune",
  PruneLast: "PruneLast",
  PrunePropagationPolicy: "PrunePropagationPolicy",
  ApplyOutOfSyncOnly: "ApplyOutOfSyncOnly",
  ServerSideApply: "ServerSideApply",
  Replace: "Replace",
  Force: "Force",
  Validate: "Validate",
  SkipDryRunOnMissingResource: "SkipDryRunOnMissingResource",
  CreateNamespace: "CreateNamespace",
  Delete: "Delete",
  FailOnSharedResource: "FailOnSharedResource",
  DisableClientSideApplyMigration: "DisableClientSideApplyMigration",
  RespectIgnoreDifferences: "RespectIgnoreDifferences",
} as const;
export type OptionKey = (typeof OptionKey)[keyof typeof OptionKey];

/** The value of `key` in a list of `Key=value` options (the last occurrence wins), or undefined. */
export function optionValue(options: readonly string[], key: string): string | undefined {
  let found: string | undefined;
  for (const option of options) {
    const eq = option.indexOf("=");
    if (eq > 0 && option.slice(0, eq).trim() === key) found = option.slice(eq + 1).trim();
  }
  return found;
}

/** The options of one resource's `argocd.argoproj.io/sync-options` annotation. */
export function resourceOptions(obj: KubeObject | undefined): string[] {
  return parseCsv(annotation(obj, Annotation.SyncOptions));
}

/**
 * The effective value of `key` for a resource: the first of the given objects (e.g. target, then
 * live) that sets it, else the Application's value.
 */
export function effectiveOption(appOptions: readonly string[], key: OptionKey, ...objects: (KubeObject | undefined)[]): string | undefined {
  for (const obj of objects) {
    const v = optionValue(resourceOptions(obj), key);
    if (v !== undefined) return v;
  }
  return optionValue(appOptions, key);
}

/** True when the effective value of `key` is `value`. */
export function optionIs(appOptions: readonly string[], key: OptionKey, value: string, ...objects: (KubeObject | undefined)[]): boolean {
  return effectiveOption(appOptions, key, ...objects) === value;
}

/** Delete propagation of prunes and hook deletions: `PrunePropagationPolicy`, default foreground. */
export function propagationPolicy(appOptions: readonly string[]): "Foreground" | "Background" | "Orphan" {
  switch (optionValue(appOptions, OptionKey.PrunePropagationPolicy)) {
    case "background":
      return "Background";
    case "orphan":
      return "Orphan";
    default:
      return "Foreground";
  }
}

/** How a prune task is handled. */
export type PruneDisposition =
  { readonly action: "skip"; readonly message: string } | { readonly action: "confirm" } | { readonly action: "delete" };

/** Messages of skipped prunes, verbatim. */
export const PruneMessage = {
  RequiresPruning: "ignored (requires pruning)",
  NoPrune: "ignored (no prune)",
  Pruned: "pruned",
  PrunedDryRun: "pruned (dry run)",
} as const;

/**
 * What to do with a prune task: skipped unless the operation prunes, skipped for `Prune=false`
 * (live annotation, else Application), held for `Prune=confirm` until approved, else deleted.
 */
export function pruneDisposition(live: KubeObject | undefined, appOptions: readonly string[], prune: boolean): PruneDisposition {
  if (!prune) return { action: "skip", message: PruneMessage.RequiresPruning };
  const value = effectiveOption(appOptions, OptionKey.Prune, live);
  if (value === "false") return { action: "skip", message: PruneMessage.NoPrune };
  if (value === "confirm") return { action: "confirm" };
  return { action: "delete" };
}

/** How the executor writes one target. */
export interface ApplyMode {
  readonly serverSide: boolean;
  readonly replace: boolean;
  readonly force: boolean;
  readonly validate: boolean;
}

/**
 * The apply mode of a target: Replace wins over server-side apply; a resource's
 * `ServerSideApply=false` turns off the Application's `ServerSideApply=true`.
 */
export function applyMode(target: KubeObject, live: KubeObject | undefined, appOptions: readonly string[], forceOp: boolean): ApplyMode {
  const replace = optionIs(appOptions, OptionKey.Replace, "true", target, live);
  return {
    replace,
    serverSide: !replace && optionIs(appOptions, OptionKey.ServerSideApply, "true", target),
    force: forceOp || optionIs([], OptionKey.Force, "true", target, live),
    validate: !optionIs(appOptions, OptionKey.Validate, "false", target),
  };
}
