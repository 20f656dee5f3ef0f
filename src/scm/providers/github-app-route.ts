/**
 * How a Git repository's GitHub App token exchange reaches the GitHub API, as Argo CD sends it
 * (its repository HTTP client for the App's API URL, the one git's own transport settings come
 * from): through the repository's `proxy` with its `noProxy`, else the process's `HTTPS_PROXY` /
 * `HTTP_PROXY` with `NO_PROXY` (Go's `ProxyFromEnvironment`); with the repository's `insecure`,
 * its client certificate, and the CA bundle mounted for the API host in `argocd-tls-certs-cm`.
 * Loopback hosts are never proxied, as in Go. Pure: the CA bundle arrives as text.
 */
import type { ProxySettings } from "../proxy-rules.js";
import type { TlsOptions } from "../transport.js";

/** The HTTP settings of a repository Secret the exchange takes (the Git credentials' fields of the same names). */
export interface RepositoryHttp {
  readonly proxy?: string;
  readonly noProxy?: string;
  readonly insecure?: boolean;
  readonly tlsClientCertData?: string;
  readonly tlsClientCertKey?: string;
}

/** The process's proxy variables ("" when unset). */
export interface EnvironmentProxy {
  readonly httpsProxy: string;
  readonly httpProxy: string;
  readonly noProxy: string;
}

/** The setting named in proxy errors when the repository's own `proxy` key is used. */
export const REPOSITORY_PROXY_SETTING = "the repository Secret's proxy";

/** The proxy of a request to `apiUrl`: the repository's, else the environment's for the URL's scheme. */
export function repositoryProxy(apiUrl: string, repo: RepositoryHttp, env: EnvironmentProxy): ProxySettings {
  if (repo.proxy !== undefined && repo.proxy.trim() !== "") {
    return { url: repo.proxy, noProxy: repo.noProxy ?? "", setting: REPOSITORY_PROXY_SETTING };
  }
  const https = /^https:/i.test(apiUrl);
  return { url: https ? env.httpsProxy : env.httpProxy, noProxy: env.noProxy, setting: https ? "HTTPS_PROXY" : "HTTP_PROXY" };
}

/**
 * The TLS settings of the exchange: no verification when `insecure` (the CA bundle is then not
 * used), else the API host's CA bundle beside the system roots; the client certificate when the
 * repository has both its parts.
 */
export function repositoryTls(repo: RepositoryHttp, caBundle: string | undefined): TlsOptions {
  const insecure = repo.insecure === true;
  const cert = repo.tlsClientCertData;
  const key = repo.tlsClientCertKey;
  return {
    ...(insecure ? { insecure: true } : caBundle === undefined || caBundle.trim() === "" ? {} : { extraCa: [caBundle] }),
    ...(cert !== undefined && key !== undefined ? { clientCert: { cert, key } } : {}),
  };
}
