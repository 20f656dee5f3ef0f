/**
 * Credentials and CA certificates of SCM providers, read from the ApplicationSet's namespace
 * (docs/controller.md#namespaces): `tokenRef`, `passwordRef`, `appPasswordRef`, `accessTokenRef` Secrets and
 * `caRef` ConfigMaps. In strict mode (`--token-ref-strict-mode`) a referenced Secret must carry
 * `argocd.argoproj.io/secret-type: scm-creds`. A missing reference means an empty token, which
 * falls back to `GITHUB_TOKEN` / `GITLAB_TOKEN` / `GITEA_TOKEN` for those providers.
 */
import { Label, SecretType, secretValue, type ConfigMapKeyRef, type Secret, type SecretRef } from "../api/index.js";
import { errorMessage } from "../errors.js";

/** Reads Secrets and ConfigMaps of any namespace (the ApplicationSet's). */
export interface NamespacedObjects {
  /** The Secret, or undefined when it does not exist; rejects on other failures. */
  getSecret(namespace: string, name: string, signal?: AbortSignal): Promise<Secret | undefined>;
  /** The ConfigMap's data, or undefined when it does not exist; rejects on other failures. */
  getConfigMapData(namespace: string, name: string, signal?: AbortSignal): Promise<Readonly<Record<string, string>> | undefined>;
}

/** Where credentials are read, and how strictly. */
export interface CredentialSource {
  readonly objects: NamespacedObjects | undefined;
  readonly namespace: string;
  readonly strict: boolean;
  readonly signal?: AbortSignal;
}

/** The value a Secret reference points to; "" for no reference. */
export async function secretRefValue(src: CredentialSource, ref: SecretRef | undefined): Promise<string> {
  if (ref === undefined) return "";
  const where = `${src.namespace}/${ref.secretName}`;
  let secret: Secret | undefined;
  try {
    if (src.objects === undefined) throw new Error("no Secret reader configured");
    secret = await src.objects.getSecret(src.namespace, ref.secretName, src.signal);
  } catch (err) {
    throw new Error(`error fetching secret ${where}: ${errorMessage(err)}`, { cause: err });
  }
  if (secret === undefined) throw new Error(`error fetching secret ${where}: secrets "${ref.secretName}" not found`);
  if (src.strict && secret.metadata.labels?.[Label.SecretType] !== SecretType.ScmCreds) {
    throw new Error(
      `secret ${where} is not a valid SCM creds secret: secret must have label "${Label.SecretType}"="${SecretType.ScmCreds}"`,
    );
  }
  const value = secretValue(secret, ref.key);
  if (value === undefined) throw new Error(`key ${JSON.stringify(ref.key)} in secret ${where} not found`);
  return value;
}

/** The PEM text a `caRef` points to (wrapped by callers as "error fetching CA certificates from ConfigMap"). */
export async function caRefValue(src: CredentialSource, ref: ConfigMapKeyRef | undefined): Promise<string | undefined> {
  if (ref === undefined) return undefined;
  if (src.objects === undefined) throw new Error("no ConfigMap reader configured");
  const data = await src.objects.getConfigMapData(src.namespace, ref.configMapName, src.signal);
  if (data === undefined) throw new Error(`configmaps "${ref.configMapName}" not found`);
  const value = data[ref.key];
  if (value === undefined) throw new Error(`key ${ref.key} not found in ConfigMap ${ref.configMapName}`);
  return value;
}

/** Runs `fn`, prefixing a failure's message (Argo CD's `fmt.Errorf(prefix + ": %w")`). */
export async function prefixed<T>(prefix: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new Error(`${prefix}: ${errorMessage(err)}`, { cause: err });
  }
}
