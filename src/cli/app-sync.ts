/**
 * The pure side of `appset sync APP`: the sync operation written onto the Application, shaped as
 * Argo CD's API server shapes the one `argocd app sync` asks for, and how its outcome reads.
 */
import type { Application, Operation, SyncOperation, SyncOperationResource } from "../api/index.js";
import { OperationPhase } from "../api/index.js";
import { isCompletedPhase } from "../syncwaves/operation.js";
import { hasMultipleSources } from "../syncwaves/sources.js";

/** What the flags ask of the sync. */
export interface SyncRequest {
  readonly revision?: string;
  readonly prune: boolean;
  readonly dryRun: boolean;
  readonly force: boolean;
  readonly resources: readonly SyncOperationResource[];
  /** Given: used instead of the Application's `syncPolicy.syncOptions`. */
  readonly syncOptions?: readonly string[];
}

/** Argo CD's refusal when an operation is already on the Application. */
export const IN_PROGRESS = "another operation is already in progress";

/**
 * A `--resource` value, `GROUP:KIND:NAME` or `GROUP:KIND:NAMESPACE/NAME` (the group empty for core
 * kinds), or undefined when it is not one.
 */
export function parseResource(text: string): SyncOperationResource | undefined {
  const parts = text.split(":");
  if (parts.length !== 3) return undefined;
  const [group, kind, full] = parts as [string, string, string];
  const slash = full.indexOf("/");
  const namespace = slash < 0 ? "" : full.slice(0, slash);
  const name = slash < 0 ? full : full.slice(slash + 1);
  if (kind === "" || name === "" || name.includes("/") || (slash >= 0 && namespace === "")) return undefined;
  return { group, kind, name, ...(namespace === "" ? {} : { namespace }) };
}

/** Why the request does not fit the Application, or undefined. */
export function requestProblem(app: Application, req: SyncRequest): string | undefined {
  if (req.revision !== undefined && hasMultipleSources(app))
    return "--revision applies to an Application with one source; this one has spec.sources";
  return undefined;
}

/**
 * The operation: the request's revision, prune, dry run, resources and force; the sync options
 * given, else the Application's; the Application's retry policy; initiated by `username`.
 */
export function syncOperation(app: Application, req: SyncRequest, username: string): Operation {
  const options = req.syncOptions ?? app.spec.syncPolicy?.syncOptions ?? [];
  const sync: SyncOperation = {
    ...(req.revision === undefined ? {} : { revision: req.revision }),
    ...(req.prune ? { prune: true } : {}),
    ...(req.dryRun ? { dryRun: true } : {}),
    ...(req.resources.length > 0 ? { resources: [...req.resources] } : {}),
    ...(options.length > 0 ? { syncOptions: [...options] } : {}),
    ...(req.force ? { syncStrategy: { hook: { force: true } } } : {}),
  };
  const retry = app.spec.syncPolicy?.retry;
  return { sync, initiatedBy: { username }, ...(retry === undefined ? {} : { retry }) };
}

/** Whether an operation is on the Application (what Argo CD refuses a new one for). */
export const operationPending = (app: Application): boolean => app.operation !== undefined;

/** The finished operation's phase and message, once the engine took the operation off and recorded a final phase. */
export function finishedOperation(app: Application): { phase: string; message: string } | undefined {
  const state = app.status?.operationState;
  if (operationPending(app) || state === undefined || !isCompletedPhase(state.phase)) return undefined;
  return { phase: state.phase, message: state.message ?? "" };
}

/** The exit code of a finished operation: 0 when it succeeded. */
export const syncExitCode = (phase: string): number => (phase === OperationPhase.Succeeded ? 0 : 1);
