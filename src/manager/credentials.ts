/**
 * Repository credentials that follow the repository Secrets (`argocd.argoproj.io/secret-type`
 * `repository` or `repo-creds`) of the controller namespace through an informer: a Secret created,
 * changed or deleted is used by the next lookup, with no restart. The lookup table is rebuilt only
 * after the cache changed. Reads the cache only.
 */
import { Label, parseSecret, SecretType, type Secret } from "../api/index.js";
import { credentialsFromSecrets, type CredentialsLookup } from "../git/index.js";
import { resources, type Informer } from "../kube/index.js";
import { parserOf, type InformerSpec } from "./cache.js";

/** The label selector of the Secrets that carry repository credentials. */
export const REPO_SECRET_SELECTOR = `${Label.SecretType} in (${SecretType.Repository},${SecretType.RepoCreds})`;

/** The repository Secrets' informer, as every loop asks the shared cache for it. */
export function repoSecretsSpec(namespace: string): InformerSpec<Secret> {
  return {
    resource: resources.Secrets,
    namespace,
    labelSelector: REPO_SECRET_SELECTOR,
    parse: parserOf(parseSecret),
  };
}

/** Credentials over an informer of repository Secrets. */
export class RepoCredentialsCache {
  private changes = 0;
  private built: { at: number; lookup: CredentialsLookup } | undefined;

  constructor(private readonly informer: Informer<Secret>) {
    const changed = (): void => {
      this.changes++;
    };
    informer.on({ add: changed, update: changed, delete: changed });
  }

  /**
   * Finds the credentials of a repository (see {@link credentialsFromSecrets}); waits for the first
   * list of the Secrets, so an early lookup never mistakes an empty cache for "anonymous".
   */
  readonly lookup: CredentialsLookup = async (repoURL, project) => {
    if (!this.informer.hasSynced()) await this.informer.waitForSync();
    if (this.built?.at !== this.changes) this.built = { at: this.changes, lookup: credentialsFromSecrets(this.informer.list()) };
    return this.built.lookup(repoURL, project);
  };
}
