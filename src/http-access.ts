/**
 * How one repository server is reached over HTTP(S), from its repository Secret (Argo CD's
 * `HelmCreds` and `OCICreds` alike): basic auth, a client certificate, `insecure` (no TLS
 * verification), the CA bundle found for its host in `argocd-tls-certs-cm`, and the proxy. The
 * Helm chart repositories of the sync engine and the OCI registries both use it.
 *
 * I/O boundary: the CA file read when the connection pool is made.
 */
import { readFile } from "node:fs/promises";
import { Agent, EnvHttpProxyAgent, type Dispatcher } from "./undici.js";

/** How one repository server is reached. */
export interface HttpAccess {
  readonly username?: string;
  readonly password?: string;
  /** The CA bundle that verifies the server (a file); unset: the system's CAs. */
  readonly caFile?: string;
  readonly certData?: string;
  readonly keyData?: string;
  readonly insecure: boolean;
  /** The proxy of HTTP and HTTPS requests ("" none) and the hosts that bypass it. */
  readonly proxy: string;
  readonly noProxy: string;
}

/** The TLS options of the server's connections. */
async function tlsOptions(access: HttpAccess): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { rejectUnauthorized: !access.insecure };
  if (access.caFile !== undefined && !access.insecure) out["ca"] = await readFile(access.caFile, "utf8");
  if (access.certData !== undefined && access.keyData !== undefined) {
    out["cert"] = access.certData;
    out["key"] = access.keyData;
  }
  return out;
}

/** A dispatcher with the server's TLS settings and proxy. */
export async function dispatcherFor(access: HttpAccess): Promise<Dispatcher> {
  const tls = await tlsOptions(access);
  if (access.proxy === "") return new Agent({ connect: tls });
  return new EnvHttpProxyAgent({
    httpProxy: access.proxy,
    httpsProxy: access.proxy,
    noProxy: access.noProxy,
    connect: tls,
    requestTls: tls,
  });
}

/** The basic auth header when the server has a username or password. */
export function basicAuthHeader(access: Pick<HttpAccess, "username" | "password">): Record<string, string> {
  if (access.username === undefined && access.password === undefined) return {};
  const basic = Buffer.from(`${access.username ?? ""}:${access.password ?? ""}`, "utf8").toString("base64");
  return { authorization: `Basic ${basic}` };
}
