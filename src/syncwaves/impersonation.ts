/**
 * Sync impersonation (docs/projects.md#impersonation), as Argo CD's application controller does it
 * when argocd-cm sets `application.sync.impersonation.enabled: "true"`: every write of a sync
 * (applies, prunes, hooks and their deletions, finalizer removals, termination) and of an
 * Application's deletion reaches the destination as the service account the project's
 * `destinationServiceAccounts` names, through a client that sends `Impersonate-User`. Reads for
 * the comparison keep the engine's own identity, as Argo CD's cluster cache does. A sync with no
 * matching entry ends in Error while `application.sync.impersonation.enforced` is on (the default)
 * and runs as the engine otherwise; a deletion with no matching entry runs as the engine either
 * way, as Argo CD's does. The decisions are pure; {@link Impersonator} builds the writing access.
 *
 * I/O boundary: the impersonating clients the destinations build.
 */
import type { AppProject, Application } from "../api/index.js";
import { errorMessage } from "../errors.js";
import type { Logger } from "../log/logger.js";
import {
  impersonationDecision,
  ImpersonationMessage,
  serviceAccountToImpersonate,
  type DestinationCluster,
  type ImpersonationAccount,
  type ImpersonationDecision,
} from "../project/index.js";
import type { ClusterAccess, DestinationResolver } from "./destinations.js";
import { accessFor, type SyncMetrics } from "./metrics.js";

/** What impersonation means for one Application now; absent from a verdict while it is off. */
export interface AppImpersonation {
  /** The project's name, the destination's server and namespace (for the log line of a fallback). */
  readonly project: string;
  readonly server: string;
  readonly namespace: string;
  /** A sync's decision (enforcement applies). */
  readonly sync: ImpersonationDecision;
  /** A deletion's account (no enforcement: no match is the engine's own account). */
  readonly deletion: ImpersonationAccount;
}

/** Works out {@link AppImpersonation} from the project, the Application and its resolved cluster. */
export function appImpersonation(input: {
  readonly project: AppProject;
  readonly app: Application;
  readonly cluster: DestinationCluster;
  readonly enforced: boolean;
}): AppImpersonation {
  const { project, app, cluster } = input;
  return {
    project: project.metadata.name ?? "",
    server: cluster.server,
    namespace: app.spec.destination.namespace ?? "",
    sync: impersonationDecision({ project, app, destinationCluster: cluster, enforced: input.enforced }),
    deletion: serviceAccountToImpersonate(project, app, cluster),
  };
}

/** Who writes: the engine itself (with a line to log when that is a fallback), an account, or nobody. */
export type WriteIdentity =
  | { readonly kind: "engine"; readonly fallback?: string }
  | { readonly kind: "account"; readonly user: string }
  | { readonly kind: "error"; readonly message: string };

const ENGINE: WriteIdentity = { kind: "engine" };

/** Who writes a sync's objects; an error is the message its operation ends with (phase Error). */
export function syncIdentity(imp: AppImpersonation | undefined): WriteIdentity {
  if (imp === undefined) return ENGINE;
  if (imp.sync.operationError !== undefined) return { kind: "error", message: imp.sync.operationError };
  if (imp.sync.user !== undefined) return { kind: "account", user: imp.sync.user };
  return {
    kind: "engine",
    fallback:
      `no matching service account found for impersonation (project: ${imp.project}, server: ${imp.server}, ` +
      `namespace: ${imp.namespace}), falling back to controller service account`,
  };
}

/** Who deletes an Application's objects; an error is the deletion's `DeletionError` message. */
export function deletionIdentity(imp: AppImpersonation | undefined): WriteIdentity {
  if (imp === undefined) return ENGINE;
  if (imp.deletion.error !== undefined) return { kind: "error", message: ImpersonationMessage.deletionFailed(imp.deletion.error) };
  if (imp.deletion.account !== undefined) return { kind: "account", user: imp.deletion.account };
  return ENGINE;
}

/** The access writes go through, or why there is none. */
export type Writer = { readonly access: ClusterAccess } | { readonly error: string };

/** What {@link Impersonator} needs. */
export interface ImpersonatorDeps {
  readonly destinations: DestinationResolver;
  readonly log: Logger;
  readonly metrics?: SyncMetrics | undefined;
}

/** Builds the access an Application's writes go through. */
export class Impersonator {
  constructor(private readonly deps: ImpersonatorDeps) {}

  /**
   * The access for `identity`: `access` (the engine's) for the engine, the destination reached as
   * the account otherwise (counted like the engine's requests), or the error.
   */
  async writer(app: Application, access: ClusterAccess, identity: WriteIdentity): Promise<Writer> {
    switch (identity.kind) {
      case "error":
        return { error: identity.message };
      case "engine":
        if (identity.fallback !== undefined) this.deps.log.info({ app: app.metadata.name }, identity.fallback);
        return { access };
      case "account":
        try {
          const impersonating = await this.deps.destinations.access(app, { impersonate: identity.user });
          return { access: accessFor(impersonating, app, this.deps.metrics) };
        } catch (err) {
          return { error: errorMessage(err) };
        }
    }
  }
}
