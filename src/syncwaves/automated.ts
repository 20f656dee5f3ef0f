/**
 * Automated sync (docs/sync-engine.md#automated-sync): the operation an Application with
 * `syncPolicy.automated` gets when it is OutOfSync. Pure.
 */
import { OperationPhase, SyncStatus, type Application, type Operation } from "../api/index.js";

/** The default retry of automated syncs when the Application sets none. */
const AUTOMATED_RETRY = { limit: 5 } as const;

/**
 * The operation to start, or undefined. No operation when automated sync is off (absent or
 * `enabled: false`), the Application is Synced, the last automated attempt at this revision failed
 * (no retry of the same revision), or the revision is already deployed and self-heal is off.
 */
export function automatedOperation(app: Application, sync: SyncStatus, revision: string): Operation | undefined {
  const automated = app.spec.syncPolicy?.automated;
  if (automated === undefined || automated.enabled === false || sync !== SyncStatus.OutOfSync) return undefined;
  const last = app.status?.operationState;
  const lastRevision = last?.syncResult?.revision;
  if (last !== undefined && lastRevision === revision) {
    if (last.phase === OperationPhase.Failed || last.phase === OperationPhase.Error) return undefined;
    if (automated.selfHeal !== true) return undefined;
  }
  return {
    sync: {
      revision,
      prune: automated.prune === true,
      ...(app.spec.syncPolicy?.syncOptions ? { syncOptions: app.spec.syncPolicy.syncOptions } : {}),
    },
    initiatedBy: { automated: true },
    retry: app.spec.syncPolicy?.retry ?? AUTOMATED_RETRY,
  };
}
