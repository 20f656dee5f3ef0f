/**
 * What reaching one Helm chart repository takes, from its repository or repo-creds Secret (Argo
 * CD's `HelmCreds`): basic auth (`username`/`password`), a client certificate
 * (`tlsClientCertData`/`tlsClientCertKey`), `insecure` (no TLS verification), the CA bundle named
 * after the repository's host in `argocd-tls-certs-cm`, and the proxy (`proxy`/`noProxy`, else the
 * process's proxy variables). An OCI registry is told apart as Argo CD tells it ({@link isHelmOci}).
 */
import type { RepoCredentials } from "../../git/index.js";
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
 * Whether a repository URL is an OCI registry by its form (Argo CD's `IsHelmOciRepo`): no scheme
 * (`registry.example.com/charts`, `10.0.0.1:5000`), yet a host once one is put before it.
 */
export function isHelmOciRepo(repoURL: string): boolean {
  if (repoURL === "" || repoURL.includes("://")) return false;
  try {
    return new URL(`dummy://${repoURL}`).host !== "";
  } catch {
    return false;
  }
}

/** Whether a `chart` source's repository is an OCI registry: `enableOCI` on its Secret, or its URL's form. */
export function isHelmOci(repoURL: string, creds: RepoCredentials | undefined): boolean {
  return creds?.enableOCI === true || isHelmOciRepo(repoURL);
}
