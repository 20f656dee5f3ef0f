/**
 * What a sync step is given besides its tasks, as pure functions of the Application, its operation
 * and the comparison: the findings each task carries, and how the executor writes.
 */
import { Annotation, type Application, type Operation } from "../api/index.js";
import { DEFAULT_CSA_MANAGER } from "./csa-upgrade.js";
import type { ExecuteOptions } from "./executor.js";
import { keyString, resourceKeyOf } from "./objects.js";
import type { Observed } from "./observe.js";
import { OptionKey, optionIs, propagationPolicy } from "./options.js";
import type { SyncTask } from "./types.js";

/**
 * A task with what the comparison found about its object: a kind the cluster does not know (unless
 * `SkipDryRunOnMissingResource=true`, for the operation or on the object), a diff.
 */
export function withFindings(t: SyncTask, observed: Observed, appOptions: readonly string[]): SyncTask {
  const obj = t.target ?? t.live ?? {};
  const skip = t.target !== undefined && optionIs(appOptions, OptionKey.SkipDryRunOnMissingResource, "true", t.target);
  const invalid = skip ? undefined : observed.invalid.get(`${obj.apiVersion ?? ""}/${obj.kind ?? ""}`);
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
