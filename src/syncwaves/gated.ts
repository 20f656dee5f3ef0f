/**
 * A reconcile's reading as the project gate leaves it (docs/projects.md), as pure functions: the
 * comparison with the resources the project's lists refuse marked Unknown, each object's refusal,
 * the sync windows and who writes; and whether the windows hold a running operation.
 */
import { OperationPhase, SyncStatus, type Application, type OperationState, type SyncWindow } from "../api/index.js";
import { blockedOperationMessage, syncWindowPreventsSync } from "../project/sync-windows-gate.js";
import type { SyncWindowApplication } from "../project/sync-windows-match.js";
import type { AppImpersonation } from "./impersonation.js";
import type { Observed } from "./observe.js";
import type { ProjectVerdict } from "./project-gate.js";
import type { ObjectPermission } from "./step-inputs.js";

/** What a reconcile read, with the project's verdict on each object of a sync. */
export type Gated = Observed & {
  readonly permission?: ObjectPermission | undefined;
  /** The project's sync windows; undefined without the project gate. */
  readonly windows?: readonly SyncWindow[] | undefined;
  /** Who the operation writes as (sync impersonation); undefined: the engine itself. */
  readonly impersonation?: AppImpersonation | undefined;
};

/** The comparison with the resources the project's lists refuse marked Unknown (Argo CD's `CompareAppState`). */
function withProjectStatuses(observed: Observed, verdict: ProjectVerdict): Observed {
  const resources = observed.comparison.resources.map((r) => {
    const apiVersion = r.group ? `${r.group}/${r.version ?? ""}` : (r.version ?? "");
    const namespaced = observed.scope.get(`${apiVersion}/${r.kind ?? ""}`) ?? false;
    const permitted = verdict.kindPermitted({ group: r.group ?? "", kind: r.kind ?? "" }, r.name ?? "", namespaced);
    return permitted || r.status === undefined ? r : { ...r, status: SyncStatus.Unknown };
  });
  return { ...observed, comparison: { ...observed.comparison, resources } };
}

/** What a reconcile read, with the project's verdict on its objects, resources and windows. */
export function gatedOf(observed: Observed, verdict: ProjectVerdict | undefined): Gated {
  if (verdict === undefined) return observed;
  return {
    ...withProjectStatuses(observed, verdict),
    permission: verdict.objectError,
    windows: verdict.syncWindows,
    impersonation: verdict.impersonation,
  };
}

/** How often an operation held by a sync window is looked at again. */
export const WINDOW_POLL_MS = 10_000;

/** The destination as sync windows match it. */
export function windowTarget(app: Application): SyncWindowApplication {
  const d = app.spec.destination;
  return { name: app.metadata.name ?? "", namespace: d.namespace, server: d.server, clusterName: d.name };
}

/**
 * The state of a running operation its project's sync windows hold (Argo CD's
 * `syncWindowPreventsSync`): left as it is, with "Sync operation blocked by sync window"; undefined
 * when the windows let it run. A terminate request (phase `Terminating`) is never held, as in Argo
 * CD 3.6: an operation the windows no longer let sync could otherwise never be terminated.
 */
export function windowHold(
  app: Application,
  state: OperationState,
  windows: readonly SyncWindow[] | undefined,
  nowMs: number,
): OperationState | undefined {
  if (windows === undefined || windows.length === 0 || state.phase === OperationPhase.Terminating) return undefined;
  const startedAt = Date.parse(state.startedAt);
  const gate = syncWindowPreventsSync(windows, windowTarget(app), {
    nowMs,
    manual: state.operation.initiatedBy?.automated !== true,
    operationStartedAtMs: Number.isNaN(startedAt) ? undefined : startedAt,
  });
  return gate.blocked ? { ...state, message: blockedOperationMessage(gate.error) } : undefined;
}
