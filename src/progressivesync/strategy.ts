/**
 * The strategy predicates (docs/progressive-syncs.md#modes): whether an ApplicationSet is
 * RollingSync, whether RollingSync is in force (at least one step), and whether deletion is
 * reversed.
 */
import { DeletionOrder, StrategyType, type ApplicationSet } from "../api/index.js";

/** `strategy.type` is RollingSync and `rollingSync` is set (steps may be empty). */
export function isRollingSync(appSet: ApplicationSet): boolean {
  const s = appSet.spec.strategy;
  return s?.type === StrategyType.RollingSync && s.rollingSync !== undefined;
}

/** RollingSync with at least one step. */
export function rollingSyncEnabled(appSet: ApplicationSet): boolean {
  return isRollingSync(appSet) && (appSet.spec.strategy?.rollingSync?.steps ?? []).length > 0;
}

/** RollingSync with steps and `deletionOrder` equal to "Reverse", ignoring case. */
export function deletionReversed(appSet: ApplicationSet): boolean {
  return rollingSyncEnabled(appSet) && (appSet.spec.strategy?.deletionOrder ?? "").toLowerCase() === DeletionOrder.Reverse.toLowerCase();
}
