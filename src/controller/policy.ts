/**
 * Policies (docs/controller.md#policies): which of create, update and delete the controller may do
 * for an ApplicationSet, and whether Applications survive its deletion. Pure.
 */
import { ApplicationsSyncPolicy, type ApplicationSet } from "../api/index.js";
import type { PlanSettings } from "./snapshot.js";

/**
 * The effective policy: the ApplicationSet's `syncPolicy.applicationsSync` when set and override is
 * enabled, else the controller's `--policy`.
 */
export function effectivePolicy(
  appSet: ApplicationSet,
  settings: Pick<PlanSettings, "policy" | "enablePolicyOverride">,
): ApplicationsSyncPolicy {
  const own = appSet.spec.syncPolicy?.applicationsSync;
  return settings.enablePolicyOverride && own !== undefined ? own : settings.policy;
}

/** True when the policy lets the controller update existing Applications (`sync`, `create-update`). */
export function allowsUpdate(policy: ApplicationsSyncPolicy): boolean {
  return policy === ApplicationsSyncPolicy.Sync || policy === ApplicationsSyncPolicy.CreateUpdate;
}

/** True when the policy lets the controller delete Applications (`sync`, `create-delete`). */
export function allowsDelete(policy: ApplicationsSyncPolicy): boolean {
  return policy === ApplicationsSyncPolicy.Sync || policy === ApplicationsSyncPolicy.CreateDelete;
}

/** Resolves `--policy` ("" means `sync`). */
export function resolvePolicy(flag: string): ApplicationsSyncPolicy {
  return flag === "" ? ApplicationsSyncPolicy.Sync : (flag as ApplicationsSyncPolicy);
}
