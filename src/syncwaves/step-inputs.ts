/**
 * What a sync step is given besides its tasks, as pure functions of the Application, its operation
 * and the comparison: the findings each task carries, and how the executor writes.
 */
import { Annotation, type Application, type Operation, type OperationState } from "../api/index.js";
import type { BuildInput } from "./build.js";
import { DEFAULT_CSA_MANAGER } from "./csa-upgrade.js";
import { systemIgnoreRules } from "./customizations/index.js";
import type { ExecuteOptions } from "./executor.js";
import { keyString, resourceKeyOf } from "./objects.js";
import type { Observed } from "./observe.js";
import { OptionKey, optionIs, propagationPolicy } from "./options.js";
import type { SyncTask } from "./types.js";
import type { KubeObject } from "../kube/index.js";

const kindOf = (obj: KubeObject): string => `${obj.apiVersion ?? ""}/${obj.kind ?? ""}`;

/** Why the task's kind cannot be used (unknown to the cluster), unless the dry-run is skipped for it. */
function unknownKind(t: SyncTask, observed: Observed, appOptions: readonly string[]): string | undefined {
  if (t.target !== undefined && optionIs(appOptions, OptionKey.SkipDryRunOnMissingResource, "true", t.target)) return undefined;
  return observed.invalid.get(kindOf(t.target ?? t.live ?? {}));
}

/**
 * Why the project refuses the object; a kind not served yet (its CRD comes with the sync) is
 * namespaced when the object has a namespace.
 */
function refusal(obj: KubeObject, observed: Observed, permission: ObjectPermission | undefined): string | undefined {
  if (permission === undefined) return undefined;
  return permission(obj, observed.scope.get(kindOf(obj)) ?? Boolean(obj.metadata?.namespace));
}

/** Why the project refuses an object of a sync, given whether its kind is namespaced. */
export type ObjectPermission = (obj: KubeObject, namespaced: boolean | undefined) => string | undefined;

/**
 * A task with what the comparison found about its object: a kind the cluster does not know (unless
 * `SkipDryRunOnMissingResource=true`, for the operation or on the object), then a kind, name or
 * namespace its project does not permit (every task: hooks, prunes, the namespace to create), a diff.
 */
export function withFindings(t: SyncTask, observed: Observed, appOptions: readonly string[], permission?: ObjectPermission): SyncTask {
  const obj = t.target ?? t.live ?? {};
  const invalid = unknownKind(t, observed, appOptions) ?? refusal(obj, observed, permission);
  const modified = observed.comparison.modified.get(keyString(resourceKeyOf(obj)));
  return { ...t, ...(invalid !== undefined ? { invalid } : {}), ...(modified !== undefined ? { modified } : {}) };
}

/**
 * How the executor writes for an operation: dry run, propagation, its sync options, strategy force,
 * and the client-side manager whose fields move to ours (the Application's
 * `argocd.argoproj.io/client-side-apply-migration-manager`, else `kubectl-client-side-apply`; none
 * with `DisableClientSideApplyMigration=true`).
 */
export function executeOptions(app: Application, sync: NonNullable<Operation["sync"]>, appOptions: readonly string[]): ExecuteOptions {
  const disabled = optionIs(appOptions, OptionKey.DisableClientSideApplyMigration, "true");
  const manager = app.metadata.annotations?.[Annotation.ClientSideApplyMigrationManager] || DEFAULT_CSA_MANAGER;
  return {
    dryRun: sync.dryRun === true,
    propagation: propagationPolicy(appOptions),
    appOptions,
    force: sync.syncStrategy?.hook?.force === true || sync.syncStrategy?.apply?.force === true,
    ...(disabled ? {} : { csaManager: manager }),
  };
}

/** The operation's sync options, else the Application's. */
const operationOptions = (app: Application, sync: NonNullable<Operation["sync"]>): readonly string[] =>
  sync.syncOptions ?? app.spec.syncPolicy?.syncOptions ?? [];

/** What the tasks of an operation are built from: the comparison's objects and the operation's options. */
export function taskInput(app: Application, state: OperationState, observed: Observed, trackingName: string): BuildInput {
  const sync = state.operation.sync ?? {};
  const selective = (sync.resources?.length ?? 0) > 0;
  return {
    targets: observed.targets,
    live: observed.live,
    appName: trackingName,
    destinationNamespace: app.spec.destination.namespace ?? "",
    revision: observed.revision,
    startedAtMs: Date.parse(state.startedAt),
    skipHooks: sync.syncStrategy?.apply !== undefined || selective,
    appOptions: operationOptions(app, sync),
    ...(sync.resources ? { selected: sync.resources } : {}),
    isNamespaced: (o) => observed.scope.get(`${o.apiVersion ?? ""}/${o.kind ?? ""}`),
    namespaceExists: observed.namespaceExists ?? true,
    ignoreDifferences: [...(app.spec.ignoreDifferences ?? []), ...systemIgnoreRules(observed.customizations)],
    managedNamespaceMetadata: app.spec.syncPolicy?.managedNamespaceMetadata,
  };
}
