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
  if (!retriesRevision(app, revision, automated.selfHeal === true)) return undefined;
  return automatedSync(app, revision, automated.prune === true);
}

/** The automated sync operation at `revision`, with the Application's sync options and retry. */
function automatedSync(app: Application, revision: string, prune: boolean): Operation {
  return {
    sync: {
      revision,
      prune,
      ...(app.spec.syncPolicy?.syncOptions ? { syncOptions: app.spec.syncPolicy.syncOptions } : {}),
    },
    initiatedBy: { automated: true },
    retry: app.spec.syncPolicy?.retry ?? AUTOMATED_RETRY,
  };
}

/**
 * Whether an automated sync may start at `revision` given the last operation: always at another
 * revision; at the same one only when that attempt did not fail and self-heal is on.
 */
function retriesRevision(app: Application, revision: string, selfHeal: boolean): boolean {
  const last = app.status?.operationState;
  if (last === undefined || last.syncResult?.revision !== revision) return true;
  if (last.phase === OperationPhase.Failed || last.phase === OperationPhase.Error) return false;
  return selfHeal;
}
