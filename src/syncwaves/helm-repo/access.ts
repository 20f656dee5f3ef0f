/**
 * What reaching one Helm chart repository takes, from its repository or repo-creds Secret (Argo
 * CD's `HelmCreds`): basic auth (`username`/`password`), a client certificate
 * (`tlsClientCertData`/`tlsClientCertKey`), `insecure` (no TLS verification), the CA bundle named
 * after the repository's host in `argocd-tls-certs-cm`, and the proxy (`proxy`/`noProxy`, else the
 * process's proxy variables). `enableOCI` and scheme-less URLs (OCI registries) are refused.
 */
import { AppSetError } from "../../errors.js";
import type { RepoCredentials } from "../../git/index.js";
import { MANIFEST_ERROR } from "../manifests.js";
import type { HttpAccess } from "../../http-access.js";

/** How one Helm repository is reached. */
export type HelmAccess = HttpAccess;

type Env = Readonly<Record<string, string | undefined>>;

/** The first non-empty value of the variables named, else "". */
function fromEnv(env: Env, ...names: string[]): string {
  for (const n of names) {
    const v = env[n];
    if (v !== undefined && v !== "") return v;
  }
  return "";
}

/** The proxy a request to `repoURL` goes through: the Secret's, else the environment's for its scheme. */
function proxyOf(repoURL: string, creds: RepoCredentials | undefined, env: Env): { proxy: string; noProxy: string } {
  const noProxy = creds?.noProxy ?? fromEnv(env, "NO_PROXY", "no_proxy");
  if (creds?.proxy !== undefined) return { proxy: creds.proxy, noProxy };
  const https = /^https:/i.test(repoURL);
  return { proxy: https ? fromEnv(env, "HTTPS_PROXY", "https_proxy") : fromEnv(env, "HTTP_PROXY", "http_proxy"), noProxy };
}

/** The access of a repository from its credentials, the CA bundle found for its host, and the environment. */
export function helmAccess(repoURL: string, creds: RepoCredentials | undefined, caFile: string | undefined, env: Env): HelmAccess {
  return {
    ...(creds?.username !== undefined ? { username: creds.username } : {}),
    ...(creds?.password !== undefined ? { password: creds.password } : {}),
    ...(caFile !== undefined ? { caFile } : {}),
    ...(creds?.tlsClientCertData !== undefined ? { certData: creds.tlsClientCertData } : {}),
    ...(creds?.tlsClientCertKey !== undefined ? { keyData: creds.tlsClientCertKey } : {}),
    insecure: creds?.insecure === true,
    ...proxyOf(repoURL, creds, env),
  };
}

/**
 * Fails for an OCI registry: `enableOCI` on the repository Secret, or a `repoURL` without a scheme
 * (Argo CD's `IsHelmOciRepo`), or an `oci://` URL.
 */
export function refuseOci(repoURL: string, creds: RepoCredentials | undefined): void {
  const schemeless = !/^[a-z][a-z0-9+.-]*:\/\//i.test(repoURL);
  if (creds?.enableOCI === true || schemeless || /^oci:\/\//i.test(repoURL)) {
    throw new AppSetError(
      MANIFEST_ERROR,
      `Helm OCI registries are not supported (${repoURL}${creds?.enableOCI === true ? ", enableOCI" : ""}); use an HTTP(S) Helm chart repository or Git`,
    );
  }
}
