/**
 * kubectl's client overrides (client-go's clientcmd `ConfigOverrides`) applied to a loaded
 * KubeConfig: the context, cluster and user they select, and the fields they replace, merged as
 * client-go merges them. A token replaces every other way the user authenticates; a CA or client
 * certificate file replaces the kubeconfig's inline data. Impersonation is not a kubeconfig field here: the transport sends it
 * as headers (see {@link Impersonation}).
 */
import { KubeConfig, type Cluster, type Context, type KubeAuthConfig, type User } from "./kubeconfig.js";
import { KubeApiError, KubeReason } from "./errors.js";

/** The identity every request impersonates (`--as`, `--as-group`, `--as-uid`). */
export interface Impersonation {
  readonly user: string;
  readonly groups: readonly string[];
  readonly uid: string;
}

/** kubectl's overrides; an empty string or `false` leaves the kubeconfig's value. */
export interface KubeOverrides {
  readonly context?: string;
  readonly cluster?: string;
  readonly user?: string;
  readonly server?: string;
  readonly certificateAuthority?: string;
  readonly insecureSkipTlsVerify?: boolean;
  readonly tlsServerName?: string;
  readonly proxyUrl?: string;
  readonly token?: string;
  readonly username?: string;
  readonly password?: string;
  readonly clientCertificate?: string;
  readonly clientKey?: string;
}

const given = (v: string | undefined): v is string => v !== undefined && v !== "";

function overrideError(message: string): KubeApiError {
  return new KubeApiError({ status: 0, reason: KubeReason.Invalid, message });
}

/**
 * The cluster with the overrides merged as client-go merges them: `--certificate-authority` or
 * `--insecure-skip-tls-verify` replaces the kubeconfig's CA and its skip-verify together (a CA over a
 * kubeconfig that skips verification checks the certificate again; skipping drops the kubeconfig's
 * CA), and both at once are refused; `--server` or `--tls-server-name` replaces the kubeconfig's
 * TLS server name (a new server without one is checked against its own host).
 */
function overrideCluster(base: Cluster | null, name: string, o: KubeOverrides): Cluster {
  if (base === null && !given(o.server))
    throw overrideError(`cluster "${name}" does not exist in the kubeconfig and no --server was given`);
  const c: Cluster = { ...(base ?? { name, server: "", skipTLSVerify: false }), name };
  return {
    ...c,
    ...trustOverride(o),
    ...(given(o.server) ? { server: o.server } : {}),
    ...(given(o.server) || given(o.tlsServerName) ? { tlsServerName: given(o.tlsServerName) ? o.tlsServerName : undefined } : {}),
    ...(given(o.proxyUrl) ? { proxyUrl: o.proxyUrl } : {}),
  };
}

/** The CA and skip-verify fields `--certificate-authority` and `--insecure-skip-tls-verify` give, together. */
function trustOverride(o: KubeOverrides): Partial<Cluster> {
  const insecure = o.insecureSkipTlsVerify === true;
  if (insecure && given(o.certificateAuthority))
    throw overrideError("specifying a root certificates file with the insecure flag is not allowed");
  if (!insecure && !given(o.certificateAuthority)) return {};
  return { caFile: given(o.certificateAuthority) ? o.certificateAuthority : undefined, caData: undefined, skipTLSVerify: insecure };
}

function overrideUser(base: User | null, name: string, o: KubeOverrides): User {
  let u: User = { ...(base ?? {}), name };
  if (given(o.token)) u = { name, token: o.token, certFile: u.certFile, certData: u.certData, keyFile: u.keyFile, keyData: u.keyData };
  if (given(o.username)) u = { ...u, username: o.username, password: o.password ?? "" };
  else if (given(o.password)) u = { ...u, password: o.password };
  if (given(o.clientCertificate)) u = { ...u, certFile: o.clientCertificate, certData: undefined };
  if (given(o.clientKey)) u = { ...u, keyFile: o.clientKey, keyData: undefined };
  return u;
}

/** The context the overrides select, and the cluster and user names in it. */
function selection(kc: KubeConfig, o: KubeOverrides): { name: string; ctx: Context | null; clusterName: string; userName: string } {
  const contextName = given(o.context) ? o.context : kc.getCurrentContext();
  const ctx: Context | null = kc.getContextObject(contextName);
  if (given(o.context) && ctx === null) throw overrideError(`context "${o.context}" does not exist in the kubeconfig`);
  return {
    name: contextName === "" ? "context" : contextName,
    ctx,
    clusterName: given(o.cluster) ? o.cluster : (ctx?.cluster ?? "cluster"),
    userName: given(o.user) ? o.user : (ctx?.user ?? "user"),
  };
}

/** A copy of `kc` with the overrides applied to the context they select (the current one by default). */
export function applyKubeOverrides(kc: KubeConfig, o: KubeOverrides): KubeConfig {
  const { name, ctx, clusterName, userName } = selection(kc, o);
  const base = kc.getUser(userName);
  if (given(o.user) && base === null) throw overrideError(`user "${o.user}" does not exist in the kubeconfig`);
  const cluster = overrideCluster(kc.getCluster(clusterName), clusterName, o);
  const user = overrideUser(base, userName, o);
  const context: Context = { name, cluster: clusterName, user: userName, ...(ctx?.namespace ? { namespace: ctx.namespace } : {}) };
  const out = new KubeConfig();
  out.loadFromOptions({
    clusters: [...kc.getClusters().filter((c) => c.name !== clusterName), cluster],
    users: [...kc.getUsers().filter((u) => u.name !== userName), user],
    contexts: [...kc.getContexts().filter((c) => c.name !== name), context],
    currentContext: name,
  });
  return out;
}

/**
 * The impersonation headers (client-go's `Impersonate-*`), one `Impersonate-Group` line per group
 * (the transport sends them as separate lines); empty when nothing is impersonated.
 */
export function impersonationHeaders(i: Impersonation | undefined): Array<[string, string]> {
  if (i === undefined || (i.user === "" && i.groups.length === 0 && i.uid === "")) return [];
  if (i.user === "") throw overrideError("requesting uid or groups for impersonation requires a username (--as)");
  return [
    ["Impersonate-User", i.user],
    ...i.groups.map((g): [string, string] => ["Impersonate-Group", g]),
    ...(i.uid === "" ? [] : ([["Impersonate-Uid", i.uid]] as Array<[string, string]>)),
  ];
}

/**
 * `i` with the kubeconfig user's `as` when `--as` is not given: client-go merges the flags over the
 * kubeconfig's fields, so `--as-group` or `--as-uid` with a kubeconfig `as` impersonates that user.
 */
export function withKubeconfigUser(i: Impersonation | undefined, kc: Pick<KubeAuthConfig, "getCurrentUser">): Impersonation | undefined {
  const fromKubeconfig = kc.getCurrentUser()?.impersonateUser ?? "";
  if (i === undefined || i.user !== "" || fromKubeconfig === "" || (i.groups.length === 0 && i.uid === "")) return i;
  return { ...i, user: fromKubeconfig };
}
