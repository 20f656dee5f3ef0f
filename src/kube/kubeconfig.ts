/**
 * The kubeconfig, read and applied to requests without loading all of `@kubernetes/client-node`:
 * its package index (and its `KubeConfig` module) loads every generated API model, about 84 MB of
 * resident memory, though the controller uses none of them (docs/controller.md#memory-at-start). This class
 * keeps client-node's `KubeConfig` semantics for what the controller and the CLI use, on client-node's
 * own small modules: the kubeconfig entries (`config_types`), the exec credential plugin and the
 * rotating token file (the in-cluster service account). A user with a legacy `auth-provider`
 * (azure, gcp, oidc) or a cluster behind `proxy-url` is handed to client-node's full `KubeConfig`,
 * loaded on first use, so those behave exactly as before.
 */
import { accessSync, readFileSync } from "node:fs";
import type { OutgoingHttpHeaders } from "node:http";
import type { RequestOptions } from "node:https";
import { isIPv6 } from "node:net";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { newClusters, newContexts, newUsers, type Cluster, type Context, type User } from "@kubernetes/client-node/dist/config_types.js";
import { ExecAuth } from "@kubernetes/client-node/dist/exec_auth.js";
import { FileAuth } from "@kubernetes/client-node/dist/file_auth.js";
import type { KubeEnvironment } from "../config/index.js";
import { Agent } from "../undici.js";
import type { AuthTarget } from "./request-context.js";
import { yaml } from "../yaml.js";

export type { Cluster, Context, User };

/** What the transport needs of a kubeconfig (client-node's `KubeConfig` has it too). */
export interface KubeAuthConfig {
  getCurrentCluster(): Cluster | null;
  getCurrentUser(): User | null;
  /**
   * Puts the credentials and TLS settings of the current context onto a request. With
   * `connection: false`, a caller that reuses a connection it already has asks for the credentials
   * alone (a kubeconfig that cannot tell them apart, as client-node's, may ignore it).
   */
  applySecurityAuthentication(ctx: AuthTarget, want?: { readonly connection?: boolean }): Promise<void>;
  /** Puts the current context's TLS material and credential headers into Node request options. */
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>;
}

/** The in-cluster service account's files. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** The legacy `auth-provider` names this class applies itself; others go to client-node's `KubeConfig`. */
const OWN_AUTH_PROVIDERS = new Set(["tokenFile", "exec"]);

const exists = (file: string): boolean => {
  try {
    accessSync(file);
    return true;
  } catch {
    return false;
  }
};

/** A kubeconfig's `*-data` (base64) or file, as bytes; undefined when neither is set. */
function material(file: string | undefined, data: string | undefined): Buffer | undefined {
  if (file) return readFileSync(file);
  if (data) return Buffer.from(data, "base64");
  return undefined;
}

const absolute = (root: string, file: string | undefined): string | undefined =>
  file === undefined || file === "" || isAbsolute(file) ? file : join(root, file);

/** The cluster's CA, TLS server name and verification, and the user's client certificate. */
function tlsOptions(opts: RequestOptions, cluster: Cluster | null, user: User): void {
  if (cluster?.skipTLSVerify) opts.rejectUnauthorized = false;
  if (cluster?.tlsServerName) opts.servername = cluster.tlsServerName;
  const ca = cluster === null ? undefined : material(cluster.caFile, cluster.caData);
  const cert = material(user.certFile, user.certData);
  const key = material(user.keyFile, user.keyData);
  if (ca) opts.ca = ca;
  if (cert) opts.cert = cert;
  if (key) opts.key = key;
}

/** The TLS settings among Node request options that a connection needs, the unset ones left out. */
function connectOptions(opts: RequestOptions): Record<string, unknown> {
  const { ca, cert, key, rejectUnauthorized, servername } = opts;
  return Object.fromEntries(Object.entries({ ca, cert, key, rejectUnauthorized, servername }).filter(([, v]) => v !== undefined));
}

/** As client-node: plain `http://` only with `insecure-skip-tls-verify`. */
function refusePlainHttp(cluster: Cluster | null): void {
  if (cluster?.server.startsWith("http:") && !cluster.skipTLSVerify) {
    throw new Error("HTTP protocol is not allowed when skipTLSVerify is not set or false");
  }
}

type Full = Pick<KubeAuthConfig, "applySecurityAuthentication" | "applyToHTTPSOptions">;

/** Contexts, clusters and users, as client-node's `KubeConfig` holds them, and how requests use them. */
export class KubeConfig implements KubeAuthConfig {
  contexts: Context[] = [];
  clusters: Cluster[] = [];
  users: User[] = [];
  currentContext = "";
  private readonly exec = new ExecAuth();
  private readonly tokenFile = new FileAuth();
  private full?: Promise<Full>;

  getContexts(): Context[] {
    return this.contexts;
  }
  getClusters(): Cluster[] {
    return this.clusters;
  }
  getUsers(): User[] {
    return this.users;
  }
  getCurrentContext(): string {
    return this.currentContext;
  }
  setCurrentContext(name: string): void {
    this.currentContext = name;
    this.full = undefined;
  }
  getContextObject(name: string): Context | null {
    return this.contexts.find((c) => c.name === name) ?? null;
  }
  getCluster(name: string): Cluster | null {
    return this.clusters.find((c) => c.name === name) ?? null;
  }
  getUser(name: string): User | null {
    return this.users.find((u) => u.name === name) ?? null;
  }
  getCurrentCluster(): Cluster | null {
    const ctx = this.getContextObject(this.currentContext);
    return ctx === null ? null : this.getCluster(ctx.cluster);
  }
  getCurrentUser(): User | null {
    const ctx = this.getContextObject(this.currentContext);
    return ctx === null ? null : this.getUser(ctx.user);
  }

  /** Reads a kubeconfig file; relative certificate, key and CA paths are taken from its folder. */
  loadFromFile(file: string): void {
    this.loadFromString(readFileSync(file, "utf8"));
    const root = dirname(file);
    this.clusters = this.clusters.map((c) => (c.caFile ? { ...c, caFile: absolute(root, c.caFile) } : c));
    this.users = this.users.map((u) => ({
      ...u,
      ...(u.certFile ? { certFile: absolute(root, u.certFile) } : {}),
      ...(u.keyFile ? { keyFile: absolute(root, u.keyFile) } : {}),
    }));
  }

  /** Reads kubeconfig YAML; an invalid entry throws, as client-node's default does. */
  loadFromString(text: string): void {
    const doc = (yaml().parse(text) ?? {}) as Record<string, unknown>;
    this.clusters = newClusters(doc["clusters"]);
    this.contexts = newContexts(doc["contexts"]);
    this.users = newUsers(doc["users"]);
    this.currentContext = typeof doc["current-context"] === "string" ? doc["current-context"] : "";
    this.full = undefined;
  }

  /** Takes the entries as given. */
  loadFromOptions(o: { clusters: Cluster[]; users: User[]; contexts: Context[]; currentContext: string }): void {
    this.clusters = o.clusters;
    this.users = o.users;
    this.contexts = o.contexts;
    this.currentContext = o.currentContext;
    this.full = undefined;
  }

  /** The in-cluster service account: `KUBERNETES_SERVICE_HOST`/`_PORT` of `env`, its CA, its rotating token, its namespace. */
  loadFromCluster(env: KubeEnvironment, root = SERVICE_ACCOUNT_DIR): void {
    const host = env.serviceHost;
    const port = env.servicePort;
    const scheme = port === "80" || port === "8080" || port === "8001" ? "http" : "https";
    const namespaceFile = join(root, "namespace");
    const namespace = exists(namespaceFile) ? readFileSync(namespaceFile, "utf8") : undefined;
    this.loadFromOptions({
      clusters: [
        {
          name: "inCluster",
          caFile: join(root, "ca.crt"),
          server: `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`,
          skipTLSVerify: false,
        },
      ],
      users: [{ name: "inClusterUser", authProvider: { name: "tokenFile", config: { tokenFile: join(root, "token") } } }],
      contexts: [
        { cluster: "inCluster", name: "inClusterContext", user: "inClusterUser", ...(namespace === undefined ? {} : { namespace }) },
      ],
      currentContext: "inClusterContext",
    });
  }

  /**
   * `$KUBECONFIG` of `env` (files joined by the path delimiter, the last current-context named wins,
   * duplicate names refused), else `~/.kube/config` (`$HOME`, else the user's home directory), else
   * the in-cluster service account, else `http://localhost:8080`.
   */
  loadFromDefault(env: KubeEnvironment): void {
    const files = env.kubeconfig.split(delimiter).filter((f) => f !== "");
    if (files.length > 0) {
      this.loadFromFile(files[0]!);
      for (const file of files.slice(1)) this.merge(file);
      return;
    }
    const home = env.home || homedir();
    const config = join(home, ".kube", "config");
    if (home && exists(config)) return this.loadFromFile(config);
    if (exists(join(SERVICE_ACCOUNT_DIR, "token"))) return this.loadFromCluster(env);
    this.loadFromOptions({
      clusters: [{ name: "cluster", server: "http://localhost:8080", skipTLSVerify: false }],
      users: [{ name: "user" }],
      contexts: [{ name: "loaded-context", cluster: "cluster", user: "user" }],
      currentContext: "loaded-context",
    });
  }

  private merge(file: string): void {
    const other = new KubeConfig();
    other.loadFromFile(file);
    // As client-node merges: a later file's current-context, when it names one, is the one used.
    if (other.currentContext !== "") this.currentContext = other.currentContext;
    const add = <T extends { name: string }>(into: T[], items: T[], what: string): void => {
      for (const item of items) {
        if (into.some((x) => x.name === item.name)) throw new Error(`Duplicate ${what}: ${item.name}`);
        into.push(item);
      }
    };
    add(this.clusters, other.clusters, "cluster");
    add(this.users, other.users, "user");
    add(this.contexts, other.contexts, "context");
  }

  /** True when the current context needs client-node's full `KubeConfig` (a legacy auth provider, a proxy). */
  private needsFull(): boolean {
    const provider = (this.getCurrentUser()?.authProvider as { name?: unknown } | undefined)?.name;
    return (typeof provider === "string" && !OWN_AUTH_PROVIDERS.has(provider)) || Boolean(this.getCurrentCluster()?.proxyUrl);
  }

  private fullConfig(): Promise<Full> {
    this.full ??= import("@kubernetes/client-node").then(({ KubeConfig: Full }) => {
      const kc = new Full();
      kc.loadFromOptions({ clusters: this.clusters, users: this.users, contexts: this.contexts, currentContext: this.currentContext });
      return kc;
    });
    return this.full;
  }

  /** TLS material (unless `tls` is false), `Impersonate-User` from the kubeconfig, then the credential headers. */
  private async options(opts: RequestOptions, tls = true): Promise<void> {
    const user = this.getCurrentUser();
    if (user === null) return;
    if (tls) tlsOptions(opts, this.getCurrentCluster(), user);
    const headers: OutgoingHttpHeaders = {};
    opts.headers = headers;
    if (user.impersonateUser != null) headers["Impersonate-User"] = user.impersonateUser;
    if (this.exec.isAuthProvider(user)) await this.exec.applyAuthentication(user, opts);
    else if (this.tokenFile.isAuthProvider(user)) await this.tokenFile.applyAuthentication(user, opts);
    if (user.token) headers["Authorization"] = `Bearer ${user.token}`;
  }

  async applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
    if (this.needsFull()) return (await this.fullConfig()).applyToHTTPSOptions(opts);
    await this.options(opts);
    const user = this.getCurrentUser();
    if (user?.username) opts.auth = `${user.username}:${user.password ?? ""}`;
  }

  /**
   * Headers (basic auth, then the credential headers) and a dispatcher with the TLS options; none
   * when there are no TLS options. Plain `http://` is refused unless `insecure-skip-tls-verify` is set.
   * With `connection: false` only the headers: the CA, certificate and key files are not read and no
   * dispatcher is built, for a request that goes over a connection the caller already holds.
   */
  async applySecurityAuthentication(ctx: AuthTarget, want: { readonly connection?: boolean } = {}): Promise<void> {
    if (this.needsFull()) return (await this.fullConfig()).applySecurityAuthentication(ctx);
    const connection = want.connection ?? true;
    const opts: RequestOptions = {};
    await this.options(opts, connection);
    const user = this.getCurrentUser();
    if (user?.username)
      ctx.setHeaderParam("Authorization", `Basic ${Buffer.from(`${user.username}:${user.password ?? ""}`).toString("base64")}`);
    for (const [k, v] of Object.entries(opts.headers ?? {})) ctx.setHeaderParam(k, String(v));
    refusePlainHttp(this.getCurrentCluster());
    const tls = connectOptions(opts);
    if (!connection || Object.keys(tls).length === 0) return;
    ctx.setDispatcher(new Agent({ connect: { ...tls, keepAlive: true, keepAliveInitialDelay: 30_000 } }));
  }
}
