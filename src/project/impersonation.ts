/**
 * Which service account a sync impersonates when impersonation is on: the first entry of the
 * project's `destinationServiceAccounts` whose `server` glob matches the destination cluster's
 * server and whose `namespace` glob matches the Application's destination namespace. Its
 * `defaultServiceAccount` is used as `system:serviceaccount:<namespace>:<name>`, the namespace
 * being the destination namespace (or the Application's own when that is empty) unless the account
 * is written `namespace:name`. A pattern that does not compile, or a blank account or one holding
 * any of `!*[]{}\/`, is an error; no matching entry gives no account, and then the sync fails only
 * when impersonation is enforced. Pure core: facts from Argo CD v3.6.2
 * (`DeriveServiceAccountToImpersonate` in util/settings, its use in controller/sync.go).
 */
import type { Application } from "../api/application.js";
import type { AppProject } from "../api/appproject.js";
import { globMatch } from "../glob/index.js";
import type { DestinationCluster } from "./destinations.js";
import { globSyntaxError } from "./glob-errors.js";
import { ImpersonationMessage } from "./messages.js";

/** The characters a `defaultServiceAccount` may not hold. */
const DISALLOWED = /[!*[\]{}\\/]/;

/** The account chosen (a `system:serviceaccount:…` user), the error met, or neither when no entry matches. */
export interface ImpersonationAccount {
  /** The user to impersonate (`system:serviceaccount:<namespace>:<name>`). */
  readonly account?: string;
  /** Why no account could be derived. */
  readonly error?: string;
}

type Entry = NonNullable<AppProject["spec"]["destinationServiceAccounts"]>[number];

/** Whether one entry matches, or the error its patterns raise. */
function entryMatches(entry: Entry, server: string, namespace: string): boolean | { error: string } {
  const serverError = globSyntaxError(entry.server);
  if (serverError !== undefined) return { error: ImpersonationMessage.invalidServerGlob(serverError) };
  const serverMatched = globMatch(entry.server, server);
  const namespacePattern = entry.namespace ?? "";
  const namespaceError = globSyntaxError(namespacePattern);
  if (namespaceError !== undefined) return { error: ImpersonationMessage.invalidNamespaceGlob(namespaceError) };
  return serverMatched && globMatch(namespacePattern, namespace);
}

/** The user of a matching entry's account, or its error. */
function accountOf(account: string, namespace: string): ImpersonationAccount {
  if (account.replace(/^ +| +$/g, "") === "" || DISALLOWED.test(account)) return { error: ImpersonationMessage.invalidAccount(account) };
  if (account.includes(":")) return { account: `system:serviceaccount:${account}` };
  return { account: `system:serviceaccount:${namespace}:${account}` };
}

/**
 * The service account a sync of `app` to `destinationCluster` impersonates (Argo CD's
 * `DeriveServiceAccountToImpersonate`): `{account}` from the first matching entry, `{error}` for a
 * malformed pattern met before a match or a malformed account, `{}` when no entry matches.
 */
export function serviceAccountToImpersonate(
  project: Pick<AppProject, "spec">,
  app: Pick<Application, "metadata" | "spec">,
  destinationCluster: Pick<DestinationCluster, "server">,
): ImpersonationAccount {
  const destNamespace = app.spec.destination.namespace ?? "";
  const accountNamespace = destNamespace === "" ? (app.metadata.namespace ?? "") : destNamespace;
  for (const entry of project.spec.destinationServiceAccounts ?? []) {
    const matched = entryMatches(entry, destinationCluster.server, destNamespace);
    if (typeof matched === "object") return { error: matched.error };
    if (matched) return accountOf(entry.defaultServiceAccount, accountNamespace);
  }
  return {};
}

/**
 * What a sync does about impersonation: the user to impersonate, the operation error that ends it,
 * or neither (the sync goes on as the controller itself).
 */
export interface ImpersonationDecision {
  /** The user the sync impersonates. */
  readonly user?: string;
  /** The message the operation ends with (phase Error). */
  readonly operationError?: string;
}

/**
 * The impersonation step of a sync when impersonation is enabled: impersonate the derived account;
 * end the operation with Argo CD's message when it cannot be derived, or when none matches and
 * `enforced` (argocd-cm `application.sync.impersonation.enforced` is not "false", the default) is set;
 * otherwise go on as the controller.
 */
export function impersonationDecision(input: {
  readonly project: Pick<AppProject, "spec">;
  readonly app: Pick<Application, "metadata" | "spec">;
  readonly destinationCluster: Pick<DestinationCluster, "server">;
  readonly enforced: boolean;
}): ImpersonationDecision {
  const derived = serviceAccountToImpersonate(input.project, input.app, input.destinationCluster);
  if (derived.error !== undefined) return { operationError: ImpersonationMessage.deriveFailed(derived.error) };
  if (derived.account !== undefined) return { user: derived.account };
  if (!input.enforced) return {};
  return { operationError: ImpersonationMessage.noMatch(input.destinationCluster.server, input.app.spec.destination.namespace ?? "") };
}
