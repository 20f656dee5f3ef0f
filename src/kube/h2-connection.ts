/**
 * JSON requests to the apiserver over one HTTP/2 session of Node's own `node:http2`, the connection
 * client-go holds: every request of the pooled connection is a stream on it. undici's HTTP/2 client
 * does the same work with a request object, a handler chain and an async resource per request, and
 * took about a fifth more CPU for it (docs/controller.md#the-apiserver-connection).
 *
 * The session opens on the first request and is dropped when the server ends it (GOAWAY, a reset,
 * an error), when it has been idle for the idle timeout, and by {@link H2Connection.close}; the next
 * request opens a new one. It holds the event loop open only while a request is in flight, as an
 * idle pooled socket does not. A session that cannot be had for a reason other than the network
 * (a server or gateway that does not negotiate HTTP/2, a TLS failure) fails with
 * {@link Http2Unavailable} before anything was sent, so the transport may send the request another
 * way; a network failure (refused, unreachable, the connect timeout) fails as itself.
 */
import { connect, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from "node:http2";
import { isIP } from "node:net";
import { connect as tlsConnect, type SecureContextOptions, type TLSSocket } from "node:tls";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Readable } from "node:stream";
import type { WireResponse } from "./wire.js";

/** TLS options of the session, as the kubeconfig gives them. */
export interface H2TlsOptions {
  readonly ca?: SecureContextOptions["ca"];
  readonly cert?: SecureContextOptions["cert"];
  readonly key?: SecureContextOptions["key"];
  readonly rejectUnauthorized?: boolean;
  readonly servername?: string;
}

/** How the session's socket is kept, in milliseconds. */
export interface H2Settings {
  /** TCP connect plus TLS handshake. */
  readonly connectTimeoutMs: number;
  /** TCP keep-alive initial delay (0: no keep-alive probes). */
  readonly keepAliveMs: number;
  /** How long a session with no stream is kept. */
  readonly idleTimeoutMs: number;
}

/** One request: its method, path with query, header lines (name, value, name, value, ...) and body. */
export interface H2Request {
  readonly method: string;
  readonly path: string;
  readonly headerLines: readonly string[];
  readonly body?: string;
  readonly signal?: AbortSignal;
}

/** No HTTP/2 session could be had for a reason other than the network: nothing was sent. */
export class Http2Unavailable extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "Http2Unavailable";
  }
}

/** A network-level failure of the session or a stream, with a code the kube errors count as a network failure. */
class H2NetworkError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = "H2NetworkError";
  }
}

/** What `ClientHttp2Session.request` throws when the session takes no new stream. */
const NO_NEW_STREAM = new Set(["ERR_HTTP2_INVALID_SESSION", "ERR_HTTP2_GOAWAY_SESSION", "ERR_HTTP2_OUT_OF_STREAMS"]);

/** Failures to reach the server at all: not a reason to try another protocol. */
const NETWORK_CONNECT_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
]);

function connectFailure(err: unknown, origin: string): Error {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && NETWORK_CONNECT_CODES.has(code)) return err as Error;
  return new Http2Unavailable(`no HTTP/2 session with ${origin}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

/** Header names HTTP/2 forbids (RFC 9113 §8.2.2); the pseudo-headers carry what they said. */
const CONNECTION_HEADERS = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"]);

/** The HTTP/2 header block of `req`: pseudo-headers, then its lines with names in lower case. */
export function h2Headers(req: H2Request): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = { ":method": req.method, ":path": req.path };
  for (let i = 0; i + 1 < req.headerLines.length; i += 2) {
    const name = req.headerLines[i]!.toLowerCase();
    if (CONNECTION_HEADERS.has(name) || name.startsWith(":")) continue;
    const value = req.headerLines[i + 1]!;
    const had = out[name];
    out[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  return out;
}

/** The decoded body of a response with `content-encoding` `encoding` (unknown ones as sent). */
function decoded(stream: Readable, encoding: string | undefined): Readable {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return stream.pipe(createGunzip());
    case "deflate":
      return stream.pipe(createInflate());
    case "br":
      return stream.pipe(createBrotliDecompress());
    default:
      return stream;
  }
}

/** A response whose body is read once, as text or as bytes; a read after an abort rejects. */
function wireResponse(headers: IncomingHttpHeaders, stream: ClientHttp2Stream): WireResponse {
  const encoding: string | string[] | undefined = headers["content-encoding"];
  const body = decoded(stream, typeof encoding === "string" ? encoding : encoding?.[0]);
  if (body !== stream) stream.on("error", (err: Error) => body.destroy(err));
  return {
    status: Number(headers[":status"]),
    text: () =>
      new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        let ended = false;
        body.on("data", (chunk: Buffer) => chunks.push(chunk));
        body.once("end", () => {
          ended = true;
          resolve(Buffer.concat(chunks).toString("utf8"));
        });
        body.once("error", reject);
        body.once("close", () => {
          if (!ended) reject(new H2NetworkError("the HTTP/2 response body ended early", "ERR_HTTP2_STREAM_ERROR"));
        });
      }),
    stream: () => body,
  };
}

/** The pooled HTTP/2 connection of one transport. */
export class H2Connection {
  private session: Promise<ClientHttp2Session> | undefined;
  /** The session {@link session} resolved to, once it has. */
  private current: ClientHttp2Session | undefined;
  /** Streams in flight per session: a session holds the event loop open only while it has some. */
  private readonly inFlight = new WeakMap<ClientHttp2Session, number>();

  constructor(
    private readonly origin: string,
    private readonly tls: H2TlsOptions,
    private readonly settings: H2Settings,
  ) {}

  /** Sends `req` on the session (opened first when there is none) and resolves with its response's head. */
  async send(req: H2Request): Promise<WireResponse> {
    const [session, stream] = await this.openStream(req);
    stream.once("close", () => this.ended(session));
    if (req.body !== undefined) stream.end(req.body);
    return new Promise<WireResponse>((resolve, reject) => {
      let answered = false;
      stream.once("response", (headers) => {
        answered = true;
        resolve(wireResponse(headers, stream));
      });
      stream.once("error", reject);
      stream.once("close", () => {
        if (answered) return;
        reject(new H2NetworkError(`the HTTP/2 stream closed before a response (code ${String(stream.rstCode)})`, "ERR_HTTP2_STREAM_ERROR"));
      });
    });
  }

  /**
   * A stream for `req` on the session. A session that can take no new stream (it was closed, sent
   * or got GOAWAY, or used up its stream identifiers) is dropped and the stream opened on a new one.
   */
  private async openStream(req: H2Request, attempt = 1): Promise<[ClientHttp2Session, ClientHttp2Stream]> {
    req.signal?.throwIfAborted();
    const held = this.current;
    const session = held !== undefined && !held.closed && !held.destroyed ? held : await abortable(this.open(), req.signal);
    this.began(session);
    try {
      const options = { endStream: req.body === undefined, ...(req.signal ? { signal: req.signal } : {}) };
      return [session, session.request(h2Headers(req), options)];
    } catch (err) {
      this.ended(session);
      const code = (err as { code?: unknown }).code;
      if (attempt > 1 || typeof code !== "string" || !NO_NEW_STREAM.has(code)) throw err;
      this.forget(session);
      return this.openStream(req, attempt + 1);
    }
  }

  /** Ends the session: streams in flight fail; the next request opens a new one. */
  async close(): Promise<void> {
    const s = this.session;
    this.session = undefined;
    this.current = undefined;
    const session = await s?.catch(() => undefined);
    session?.destroy();
  }

  private open(): Promise<ClientHttp2Session> {
    this.session ??= this.connect();
    const pending = this.session;
    // A session that failed to open is not kept: the next request tries again.
    pending.catch(() => {
      if (this.session === pending) this.session = undefined;
    });
    return pending;
  }

  private connect(): Promise<ClientHttp2Session> {
    return new Promise((resolve, reject) => {
      const session = connect(this.origin, { createConnection: (authority: URL) => this.socketTo(authority) });
      const timer = setTimeout(() => {
        session.destroy(new H2NetworkError(`no connection to ${this.origin} within ${this.settings.connectTimeoutMs} ms`, "ETIMEDOUT"));
      }, this.settings.connectTimeoutMs);
      const failed = (err: Error): void => {
        clearTimeout(timer);
        reject(connectFailure(err, this.origin));
      };
      session.once("error", failed);
      session.once("connect", () => {
        clearTimeout(timer);
        session.off("error", failed);
        const socket = session.socket as { alpnProtocol?: string | false };
        if (socket.alpnProtocol !== "h2") {
          session.destroy();
          reject(new Http2Unavailable(`${this.origin} did not negotiate HTTP/2 (ALPN: ${String(socket.alpnProtocol)})`));
          return;
        }
        this.keep(session);
        this.current = session;
        resolve(session);
      });
    });
  }

  /** The TLS socket of a session: HTTP/2 by ALPN, SNI unless the host is an address, TCP keep-alive as set. */
  private socketTo(authority: URL): TLSSocket {
    const host = authority.hostname.replace(/^\[|\]$/g, "");
    const socket = tlsConnect({
      ...this.tls,
      host,
      port: Number(authority.port || 443),
      ALPNProtocols: ["h2"],
      servername: this.tls.servername ?? (isIP(host) === 0 ? host : undefined),
    });
    if (this.settings.keepAliveMs > 0) socket.setKeepAlive(true, this.settings.keepAliveMs);
    return socket;
  }

  /** Drops `session` from the pool when it is the one held: the next request opens a new one. */
  private forget(session: ClientHttp2Session): void {
    if (this.current !== session) return;
    this.current = undefined;
    this.session = undefined;
  }

  /** Drops `session` from the pool when the server or the network ends it, or it idles. */
  private keep(session: ClientHttp2Session): void {
    const drop = (): void => this.forget(session);
    session.on("error", drop);
    session.on("goaway", drop);
    session.on("close", drop);
    if (this.settings.idleTimeoutMs > 0) {
      session.setTimeout(this.settings.idleTimeoutMs, () => {
        if (!this.idle(session)) return;
        drop();
        session.close();
      });
    }
    session.unref();
  }

  private began(session: ClientHttp2Session): void {
    const n = this.inFlight.get(session) ?? 0;
    this.inFlight.set(session, n + 1);
    if (n === 0) session.ref();
  }

  private ended(session: ClientHttp2Session): void {
    const n = (this.inFlight.get(session) ?? 1) - 1;
    this.inFlight.set(session, n);
    if (n === 0 && !session.destroyed) session.unref();
  }

  private idle(session: ClientHttp2Session): boolean {
    return (this.inFlight.get(session) ?? 0) === 0;
  }
}

/** `p`, or a rejection with the signal's reason as soon as `signal` aborts. */
function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
