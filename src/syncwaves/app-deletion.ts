/**
 * Application deletion as a pure decision (docs/sync-engine.md#deleting-an-application; Argo CD's
 * `finalizeApplicationDeletion`): from the Application's finalizers, its PreDelete and PostDelete
 * hooks and its live objects, decide the one next thing to do. The stages run in this order, each
 * guarded by its finalizer:
 *
 * 1. `pre-delete-finalizer.argocd.argoproj.io`: create the PreDelete hooks, wait until every one
 *    completed (no health check counts as done), then drop the finalizer. A failed hook is deleted
 *    (so the next attempt re-creates it) and the deletion reports an error.
 * 2. `resources-finalizer.argocd.argoproj.io` (or its `/foreground`, `/background` variants):
 *    delete the managed objects, highest wave first, one wave per pass, waiting while any is still
 *    being deleted (a hook left with the hook finalizer loses it); CRDs, `Delete=false`,
 *    `helm.sh/resource-policy: keep` and the Application itself are kept, `Delete=confirm` waits for the deletion-approved annotation.
 * 3. `post-delete-finalizer.argocd.argoproj.io`: the PostDelete hooks, as in 1.
 * 4. The `/cleanup` finalizers: delete the hooks of the stage whose delete policy matches the
 *    stage's outcome (HookSucceeded when all succeeded, HookFailed when one failed).
 *
 * Nothing here performs I/O.
 */
import { Annotation, Finalizer, HealthStatus, HookDeletePolicy, HookType, type Application } from "../api/index.js";
import type { KubeObject } from "../kube/index.js";
import { resourceHealth } from "./health/index.js";
import type { ResourceCustomizations } from "./customizations/index.js";
import { hasDeletePolicy, parseCsv } from "./hooks.js";
import { annotation, isCrd, resourceKeyOf, keyString } from "./objects.js";
import { OptionKey, optionIs } from "./options.js";
import { objectWave } from "./waves.js";

/** The finalizers that select cascade deletion, and the propagation each asks for. */
const CASCADE: ReadonlyMap<string, "Foreground" | "Background"> = new Map([
  [Finalizer.Resources, "Foreground"],
  [Finalizer.ResourcesForeground, "Foreground"],
  [Finalizer.ResourcesBackground, "Background"],
]);

/** A deletion hook stage. */
export type HookStage = typeof HookType.PreDelete | typeof HookType.PostDelete;

/** What {@link planAppDeletion} reads. */
export interface AppDeletionInput {
  readonly app: Pick<Application, "metadata" | "apiVersion" | "kind">;
  /** The PreDelete hooks of the manifests, prepared (named, namespaced, tracked). */
  readonly preHooks: readonly KubeObject[];
  readonly postHooks: readonly KubeObject[];
  /** The live objects tracked as the Application's (hooks included). */
  readonly live: readonly KubeObject[];
  /** Application-level sync options (`Delete=false`, `Delete=confirm`). */
  readonly appOptions: readonly string[];
  /** The customizations of `argocd-cm` (custom health checks of the hooks). */
  readonly customizations?: ResourceCustomizations | undefined;
}

/** The next thing deletion does. */
export type AppDeletionStep =
  | { readonly kind: "createHooks"; readonly stage: HookStage; readonly hooks: readonly KubeObject[] }
  | { readonly kind: "hooksFailed"; readonly stage: HookStage; readonly remove: readonly KubeObject[]; readonly message: string }
  | { readonly kind: "delete"; readonly objects: readonly KubeObject[]; readonly propagation: "Foreground" | "Background" }
  | { readonly kind: "deleteHooks"; readonly objects: readonly KubeObject[]; readonly finalizer: string }
  | { readonly kind: "removeFinalizers"; readonly finalizers: readonly string[] }
  | { readonly kind: "wait"; readonly message: string }
  | { readonly kind: "done" };

function describe(obj: KubeObject): string {
  const k = resourceKeyOf(obj);
  return `${k.group}/${k.kind}/${k.name}`;
}

function waitingFor(what: string, objects: readonly KubeObject[]): AppDeletionStep {
  const more = objects.length > 1 ? ` and ${String(objects.length - 1)} more` : "";
  return { kind: "wait", message: `waiting for ${what} ${describe(objects[0] ?? {})}${more}` };
}

/** The outcome of one hook from its live object: done, failed or running. */
export function deletionHookOutcome(live: KubeObject, custom?: ResourceCustomizations): "done" | "failed" | "running" {
  const health = resourceHealth(live, { isHook: true, custom });
  switch (health?.status) {
    case HealthStatus.Degraded:
    case HealthStatus.Unknown:
      return "failed";
    case HealthStatus.Progressing:
    case HealthStatus.Suspended:
      return "running";
    default:
      return "done";
  }
}

function liveOf(live: readonly KubeObject[], hooks: readonly KubeObject[]): Map<KubeObject, KubeObject | undefined> {
  const byKey = new Map(live.map((o) => [keyString(resourceKeyOf(o)), o]));
  return new Map(hooks.map((h) => [h, byKey.get(keyString(resourceKeyOf(h)))]));
}

/** A hook stage: create what is missing, report failures, wait, or drop the stage's finalizer. */
function hookStage(stage: HookStage, finalizer: string, hooks: readonly KubeObject[], input: AppDeletionInput): AppDeletionStep {
  const pairs = liveOf(input.live, hooks);
  const missing = hooks.filter((h) => pairs.get(h) === undefined);
  if (missing.length > 0) return { kind: "createHooks", stage, hooks: missing };
  const lives = hooks.map((h) => pairs.get(h)).filter((o): o is KubeObject => o !== undefined);
  const failed = lives.filter((o) => deletionHookOutcome(o, input.customizations) === "failed");
  if (failed.length > 0) {
    return { kind: "hooksFailed", stage, remove: failed, message: `${stage} hook ${describe(failed[0] ?? {})} failed` };
  }
  const running = lives.filter((o) => deletionHookOutcome(o, input.customizations) === "running");
  if (running.length > 0) return waitingFor(`completion of ${stage} hook`, running);
  return { kind: "removeFinalizers", finalizers: [finalizer] };
}

/** The hooks a cleanup stage deletes: those whose policy matches the stage's outcome. */
function cleanupStage(hooks: readonly KubeObject[], input: AppDeletionInput, finalizer: string): AppDeletionStep {
  const lives = [...liveOf(input.live, hooks).values()].filter((o): o is KubeObject => o !== undefined && !o.metadata?.deletionTimestamp);
  const anyFailed = lives.some((o) => deletionHookOutcome(o, input.customizations) === "failed");
  const policy = anyFailed ? HookDeletePolicy.HookFailed : HookDeletePolicy.HookSucceeded;
  const doomed = lives.filter((o) => hasDeletePolicy(o, policy));
  if (doomed.length > 0) return { kind: "deleteHooks", objects: doomed, finalizer };
  return { kind: "removeFinalizers", finalizers: [finalizer] };
}

/** True when cascade deletion removes the object: not a CRD, the Application itself, `Delete=false` or a kept Helm resource. */
export function deletesOnCascade(obj: KubeObject, app: AppDeletionInput["app"], appOptions: readonly string[]): boolean {
  if (isCrd(obj)) return false;
  if (obj.kind === "Application" && obj.metadata?.name === app.metadata.name && obj.metadata?.namespace === app.metadata.namespace)
    return false;
  if (optionIs(appOptions, OptionKey.Delete, "false", obj)) return false;
  return !parseCsv(annotation(obj, Annotation.HelmResourcePolicy)).includes("keep");
}

function approved(app: AppDeletionInput["app"]): boolean {
  const at = Date.parse(app.metadata.annotations?.[Annotation.DeletionApproved] ?? "");
  const requested = Date.parse(app.metadata.deletionTimestamp ?? "");
  return !Number.isNaN(at) && (Number.isNaN(requested) || at >= requested);
}

/** The cascade: one wave of deletions per pass, highest wave first. */
function cascadeStage(input: AppDeletionInput, finalizers: readonly string[]): AppDeletionStep {
  const doomed = input.live.filter((o) => deletesOnCascade(o, input.app, input.appOptions));
  const deleting = doomed.filter((o) => o.metadata?.deletionTimestamp);
  const held = deleting.filter(hasHookFinalizer);
  if (held.length > 0) return { kind: "delete", objects: held, propagation: propagationOf(finalizers) };
  if (deleting.length > 0) return waitingFor("deletion of", deleting);
  if (doomed.length === 0) return { kind: "removeFinalizers", finalizers: finalizers.filter((f) => CASCADE.has(f)) };
  const top = Math.max(...doomed.map(objectWave));
  const wave = doomed.filter((o) => objectWave(o) === top);
  const confirm = wave.filter((o) => optionIs(input.appOptions, OptionKey.Delete, "confirm", o));
  if (confirm.length > 0 && !approved(input.app)) return waitingFor("deletion confirmation of", confirm);
  return { kind: "delete", objects: wave, propagation: propagationOf(finalizers) };
}

function propagationOf(finalizers: readonly string[]): "Foreground" | "Background" {
  return finalizers.map((f) => CASCADE.get(f)).find((p) => p !== undefined) ?? "Foreground";
}

/** True when a hook left from a sync still carries the hook finalizer (the delete step removes it). */
export function hasHookFinalizer(obj: KubeObject): boolean {
  const f = obj.metadata?.finalizers;
  return Array.isArray(f) && f.includes(Finalizer.Hook);
}

/** Decides the next step of an Application's deletion; `done` when none of its finalizers is ours. */
export function planAppDeletion(input: AppDeletionInput): AppDeletionStep {
  const finalizers = Array.isArray(input.app.metadata.finalizers) ? input.app.metadata.finalizers : [];
  const has = (f: string): boolean => finalizers.includes(f);
  if (has(Finalizer.PreDelete)) return hookStage(HookType.PreDelete, Finalizer.PreDelete, input.preHooks, input);
  if (finalizers.some((f) => CASCADE.has(f))) return cascadeStage(input, finalizers);
  if (has(Finalizer.PostDelete)) return hookStage(HookType.PostDelete, Finalizer.PostDelete, input.postHooks, input);
  if (has(Finalizer.PreDeleteCleanup)) return cleanupStage(input.preHooks, input, Finalizer.PreDeleteCleanup);
  if (has(Finalizer.PostDeleteCleanup)) return cleanupStage(input.postHooks, input, Finalizer.PostDeleteCleanup);
  return { kind: "done" };
}

/**
 * The Application's finalizers with the deletion-hook finalizers it needs: a stage's pair
 * (`…finalizer.argocd.argoproj.io` and `…/cleanup`) is added while its hooks exist in the manifests
 * and removed when they no longer do. Other finalizers are kept in place.
 */
export function hookFinalizers(current: readonly string[], hasPre: boolean, hasPost: boolean): string[] {
  const pairs: [boolean, string[]][] = [
    [hasPre, [Finalizer.PreDelete, Finalizer.PreDeleteCleanup]],
    [hasPost, [Finalizer.PostDelete, Finalizer.PostDeleteCleanup]],
  ];
  let out = [...current];
  for (const [wanted, names] of pairs) {
    out = wanted ? [...out, ...names.filter((n) => !out.includes(n))] : out.filter((f) => !names.includes(f));
  }
  return out;
}
