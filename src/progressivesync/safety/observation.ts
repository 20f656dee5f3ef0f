/**
 * From what the RollingSync machine already reads of a live Application (`../observe.ts`) to what
 * rollout safety reads: the same sync and health codes and revisions, the last operation's phase,
 * and `reconciledAt`. One source of truth for both machines.
 */
import type { ObservedApp } from "../observe.js";
import type { AppObservation } from "./types.js";

/** The rollout safety view of an observed Application. */
export function observationOf(o: ObservedApp): AppObservation {
  return {
    name: o.name,
    syncStatus: o.syncStatus,
    healthStatus: o.healthStatus,
    operationPhase: o.operation?.phase,
    ...(o.operation !== undefined ? { operationStartedAt: o.operation.startedAt } : {}),
    revisions: o.revisions,
    reconciledAt: o.reconciledAt,
  };
}
