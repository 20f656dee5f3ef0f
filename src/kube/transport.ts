/**
 * Raw HTTP to the apiserver on client-node's own machinery: a `KubeConfig` (src/kube/kubeconfig.ts)
 * authenticates the request (bearer token, exec/OIDC plugins, client certificates, CA) onto a
 * `RequestContext` (src/kube/request-context.ts). Requests go over one pooled HTTP/2 session of
 * Node's own (src/kube/h2-connection.ts), as client-go holds one; undici's `request` sends what that
 * cannot carry (src/kube/wire.ts): plain HTTP, a cluster behind a proxy, a server that does not
 * negotiate HTTP/2, a request that repeats a header name (fetch would join repeated
 * `Impersonate-Group` lines), and every stream. We go below the generated and
 * `KubernetesObjectApi` clients because they (a) run bodies through `ObjectSerializer`, which turns
 * timestamps into `Date`s and drops unknown fields of known kinds, (b) cannot address the status
 * subresource of an arbitrary kind, and (c) take no `AbortSignal` on streams.
 *
 * `KubeConfig.applySecurityAuthentication` builds a fresh undici Agent on every call, so every
 * request would open a new TLS connection; the transport keeps the first one and reuses it (headers,
 * which may carry a rotating token, are still computed per request, but once a connection is held
 * the kubeconfig is asked for the headers alone, so the CA, certificate and key are not read again).
 * {@link KubeTransport.close} closes both. Streams (watches) are the exception: each gets a connection of its own (see
 * {@link KubeTransport.stream}). When the kubeconfig needs no TLS options at all (plain HTTP),
 * client-node supplies no dispatcher and undici's global one is used for everything.
 */
import type { RequestOptions } from "node:https";
import type { KubeEnvironment } from "../config/index.js";
import { Agent } from "../undici.js";
import { atServer, fromStatus, KubeApiError, KubeReason, toKubeApiError } from "./errors.js";
import { KubeConfig, type KubeAuthConfig } from "./kubeconfig.js";
import { impersonationHeaders, withKubeconfigUser, type Impersonation } from "./overrides.js";
import type { RequestLimiter } from "./rate-limiter.js";
import type { HttpMethod, RequestContext } from "./request-context.js";
import { H2Connection, Http2Unavailable, type H2TlsOptions } from "./h2-connection.js";
import { Deadline } from "./deadline.js";
import { readLines } from "./lines.js";
import { requestContext, requestUrl } from "./request-build.js";
import { headerLines, repeatsAName, sendContext, type WireResponse } from "./wire.js";

/** One request. `body` is JSON-encoded; `contentType` defaults to application/json. */
export interface HttpRequest {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  /** Waited on instead of the transport's {@link TransportOptions.limiter}. */
  limiter?: RequestLimiter;
}

/**
 * How to build the KubeConfig: a file, the in-cluster service account, or the usual defaults; the
 * last two with the environment they read (src/config's `kubeEnvironment`).
 */
export type KubeConfigSource =
  { kind: "file"; path: string; context?: string } | { kind: "cluster"; env: KubeEnvironment } | { kind: "default"; env: KubeEnvironment };

/** Loads a KubeConfig from a {@link KubeConfigSource}. */
export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  const kc = new KubeConfig();
  switch (source.kind) {
    case "file":
      kc.loadFromFile(source.path);
      if (source.context !== undefined) kc.setCurrentContext(source.context);
      break;
    case "cluster":
      kc.loadFromCluster(source.env);
      break;
    case "default":
      kc.loadFromDefault(source.env);
      break;
  }
  return kc;
}

type Dispatcher = ReturnType<RequestContext["getDispatcher"]>;

/** Options of {@link KubeTransport}. */
export interface TransportOptions {
  /** Bound on every non-streaming request (default 60 s). */
  readonly requestTimeoutMs?: number;
  /** The identity every request impersonates (`--as`, `--as-group`, `--as-uid`). */
  readonly impersonate?: Impersonation;
  /** Ask for uncompressed responses (`--disable-compression`). */
  readonly disableCompression?: boolean;
  /** Told of every request sent, as client-go's `rest_client_requests_total` counts it ("<error>": no response). */
  readonly observe?: (request: { code: string; host: string; method: string }) => void;
  /** The User-Agent of every request (default: client-node's). */
  readonly userAgent?: string;
  /** Waited on before every request and before a watch opens (client-go's rate limiter), unless the request names its own. */
  readonly limiter?: RequestLimiter;
  /** Connection settings of the TLS agent (not applied through a proxy, which has its own). */
  readonly agent?: AgentSettings;
}

/** Argo CD's transport settings of the Kubernetes client, in milliseconds. */
export interface AgentSettings {
  /** TCP connect plus TLS handshake: undici times them as one. */
  readonly connectTimeoutMs: number;
  /** TCP keep-alive initial delay (0: no keep-alive probes). */
  readonly keepAliveMs: number;
  /** How long an idle connection is kept. */
  readonly idleTimeoutMs: number;
}

/** JSON requests and line streams against one apiserver. */
export class KubeTransport {
  private dispatcher: Dispatcher;
  /** The pooled HTTP/2 connection: undefined until the first request decides; null when requests go through undici. */
  private h2: Promise<H2Connection | null> | undefined;

  private readonly requestTimeoutMs: number;
  private readonly headers: ReadonlyArray<readonly [string, string]>;

  constructor(
    private readonly kc: KubeAuthConfig,
    private readonly options: TransportOptions = {},
  ) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.headers = [
      ...impersonationHeaders(withKubeconfigUser(options.impersonate, kc)),
      ...(options.disableCompression === true ? [["Accept-Encoding", "identity"] as const] : []),
      ...(options.userAgent === undefined ? [] : [["User-Agent", options.userAgent] as const]),
    ];
  }

  /** The apiserver URL of the current context. */
  get server(): string {
    const cluster = this.kc.getCurrentCluster();
    if (cluster === null) throw new KubeApiError({ status: 0, reason: KubeReason.Unknown, message: "kubeconfig has no current cluster" });
    return cluster.server.replace(/\/+$/, "");
  }

  /**
   * Sends a request and returns the parsed JSON body; throws a `KubeApiError` on any failure. A
   * request unanswered within `requestTimeoutMs` fails with Timeout and drops the pooled connection,
   * which may be dead, so the next request opens a fresh one.
   */
  async request(req: HttpRequest): Promise<unknown> {
    try {
      return await this.requestJson(req);
    } catch (err) {
      throw atServer(err, this.host);
    }
  }

  /**
   * The `host:port` of the apiserver, which every error of this transport names
   * (`KubeApiError.server`), so a caller reaching several clusters can tell which one failed.
   */
  get host(): string {
    try {
      return new URL(this.server).host;
    } catch {
      return "";
    }
  }

  private async requestJson(req: HttpRequest): Promise<unknown> {
    const deadline = new Deadline(this.requestTimeoutMs, req.signal);
    const signal = deadline.signal;
    let res: WireResponse;
    let text: string;
    try {
      await (req.limiter ?? this.options.limiter)?.wait(signal);
      res = await this.send({ ...req, signal });
      text = await readText(res);
    } catch (err) {
      if (!deadline.timedOut) throw err;
      await this.close();
      throw new KubeApiError({
        status: 0,
        reason: KubeReason.Timeout,
        message: `no answer within ${this.requestTimeoutMs} ms: ${req.method} ${req.path}`,
        cause: err,
      });
    } finally {
      deadline.clear();
    }
    if (res.status < 200 || res.status > 299) throw fromStatus(res.status, text);
    if (text === "") return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new KubeApiError({ status: res.status, reason: KubeReason.Unknown, message: "response is not JSON", cause: err });
    }
  }

  /**
   * Sends a request whose response is a stream of newline-delimited JSON and calls `onLine` for each
   * line. Resolves when the server ends the stream; rejects on an HTTP error, a network failure or
   * an abort of `req.signal`.
   *
   * A stream gets a connection of its own, destroyed when the stream ends however it ends. undici
   * does not drop a connection when a request on it is aborted mid-body, and it queues the next
   * request onto that same socket: a watch aborted because its connection went silent would be
   * reopened on the dead connection forever.
   */
  async stream(req: HttpRequest, onLine: (line: string) => void): Promise<void> {
    await (req.limiter ?? this.options.limiter)?.wait(req.signal);
    const { res, dispatcher } = await this.sendOn(req, "dedicated").catch((err: unknown) => {
      throw atServer(err, this.host);
    });
    try {
      if (res.status !== 200) throw fromStatus(res.status, await readText(res));
      await readLines(res.stream(), onLine);
    } catch (err) {
      throw atServer(err, this.host);
    } finally {
      await dispatcher?.destroy().catch(() => undefined);
    }
  }

  /** Drops the pooled connection (in-flight requests on it fail); later requests open a new one. */
  async close(): Promise<void> {
    const d = this.dispatcher;
    this.dispatcher = undefined;
    await d?.destroy().catch(() => undefined);
    await (await this.h2?.catch(() => null))?.close();
  }

  private async send(req: HttpRequest): Promise<WireResponse> {
    return (await this.sendOn(req, "pooled")).res;
  }

  /**
   * Sends on the pooled connection, or on a dedicated one returned for the caller to destroy. The
   * pooled connection is an HTTP/2 session of Node's own (src/kube/h2-connection.ts) where one can be
   * had; undici's otherwise, and for a request that repeats a header name (undici sends those over
   * HTTP/1.1, each line kept: src/kube/wire.ts).
   */
  private async sendOn(req: HttpRequest, connection: "pooled" | "dedicated"): Promise<{ res: WireResponse; dispatcher: Dispatcher }> {
    const url = requestUrl(this.server, req);
    const ctx = requestContext(req, url);
    let dedicated: Dispatcher;
    try {
      const h2 = connection === "pooled" ? await this.http2() : null;
      const reuse = connection === "pooled" && (h2 !== null || this.dispatcher !== undefined);
      await this.kc.applySecurityAuthentication(ctx, { connection: !reuse });
      let res = h2 === null ? undefined : await this.sendH2(h2, ctx, url);
      if (res === undefined) {
        dedicated = await this.undiciConnection(ctx, connection, h2 !== null);
        res = await sendContext(ctx, this.headers).catch((err: unknown) => {
          this.options.observe?.({ code: "<error>", host: url.host, method: req.method });
          throw err;
        });
      }
      this.options.observe?.({ code: String(res.status), host: url.host, method: req.method });
      return { res, dispatcher: dedicated };
    } catch (err) {
      await dedicated?.destroy().catch(() => undefined);
      throw toKubeApiError(err);
    }
  }

  /**
   * Puts an undici connection on `ctx`: the pooled one, or a dedicated one returned for the caller to
   * destroy. `authedForH2`: `ctx` was authenticated for the HTTP/2 session, headers alone, so the
   * TLS options are added when no undici connection is held yet.
   */
  private async undiciConnection(ctx: RequestContext, connection: "pooled" | "dedicated", authedForH2: boolean): Promise<Dispatcher> {
    if (connection === "dedicated") return this.useDispatcher(ctx, await this.dispatcherFor(ctx));
    if (authedForH2 && this.dispatcher === undefined) await this.kc.applySecurityAuthentication(ctx, { connection: true });
    await this.reuseDispatcher(ctx);
    return undefined;
  }

  /**
   * Sends `ctx` on the HTTP/2 session; undefined when it must go through undici instead: it repeats a
   * header name, or no HTTP/2 session could be had (then no later request tries again).
   */
  private async sendH2(h2: H2Connection, ctx: RequestContext, url: URL): Promise<WireResponse | undefined> {
    const lines = headerLines(ctx, this.headers);
    if (repeatsAName(lines)) return undefined;
    const body = ctx.getBody();
    const signal = ctx.getSignal();
    try {
      return await h2.send({ method: ctx.getHttpMethod(), path: url.pathname + url.search, headerLines: lines, body, signal });
    } catch (err) {
      if (!(err instanceof Http2Unavailable)) {
        this.options.observe?.({ code: "<error>", host: url.host, method: ctx.getHttpMethod() });
        throw err;
      }
      this.h2 = Promise.resolve(null);
      await h2.close();
      return undefined;
    }
  }

  /** The kubeconfig's TLS settings of a new connection (those it sets). */
  private async tlsOptions(): Promise<H2TlsOptions> {
    const tls: RequestOptions = {};
    await this.kc.applyToHTTPSOptions(tls);
    const { ca, cert, key, rejectUnauthorized, servername } = tls;
    return Object.fromEntries(Object.entries({ ca, cert, key, rejectUnauthorized, servername }).filter(([, v]) => v !== undefined));
  }

  /** The pooled HTTP/2 connection, made on first use: none for plain HTTP or a cluster behind a proxy. */
  private http2(): Promise<H2Connection | null> {
    this.h2 ??= this.makeH2();
    return this.h2;
  }

  private async makeH2(): Promise<H2Connection | null> {
    const cluster = this.kc.getCurrentCluster();
    if (cluster === null || !cluster.server.startsWith("https:") || cluster.proxyUrl) return null;
    const agent = this.options.agent;
    return new H2Connection(new URL(this.server).origin, await this.tlsOptions(), {
      connectTimeoutMs: agent?.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      keepAliveMs: agent?.keepAliveMs ?? 0,
      idleTimeoutMs: agent?.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    });
  }

  /**
   * Puts the pooled connection on the request: the one held, or the request's own when none is held
   * yet. A kubeconfig that ignores `connection: false` still hands a fresh one, closed here unused. No
   * dispatcher at all means plain HTTP on undici's global one.
   */
  private async reuseDispatcher(ctx: RequestContext): Promise<void> {
    if (this.dispatcher !== undefined) {
      void ctx.getDispatcher()?.close();
      this.useDispatcher(ctx, this.dispatcher);
      return;
    }
    if (ctx.getDispatcher() === undefined) return;
    this.dispatcher = await this.dispatcherFor(ctx);
    this.useDispatcher(ctx, this.dispatcher);
  }

  private useDispatcher(ctx: RequestContext, d: Dispatcher): Dispatcher {
    if (d !== undefined) ctx.setDispatcher(d);
    return d;
  }

  /**
   * The dispatcher for a new connection: client-node's, or, with {@link AgentSettings} and no proxy,
   * an undici Agent with the same TLS options and Argo CD's timeouts.
   */
  private async dispatcherFor(ctx: RequestContext): Promise<Dispatcher> {
    const fresh = ctx.getDispatcher();
    const agent = this.options.agent;
    if (fresh === undefined || agent === undefined || this.kc.getCurrentCluster()?.proxyUrl) return fresh;
    void fresh.close();
    const { ca, cert, key, rejectUnauthorized, servername } = await this.tlsOptions();
    return new Agent({
      connect: {
        ca,
        cert,
        key,
        rejectUnauthorized,
        servername,
        timeout: agent.connectTimeoutMs,
        keepAlive: agent.keepAliveMs > 0,
        keepAliveInitialDelay: agent.keepAliveMs,
      },
      keepAliveTimeout: agent.idleTimeoutMs,
      keepAliveMaxTimeout: agent.idleTimeoutMs,
    });
  }
}

/** Without {@link AgentSettings}: undici's connect timeout, and its keep-alive timeout for an idle connection. */
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_IDLE_TIMEOUT_MS = 4_000;

async function readText(res: WireResponse): Promise<string> {
  try {
    return await res.text();
  } catch (err) {
    throw toKubeApiError(err);
  }
}
