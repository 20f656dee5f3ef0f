/**
 * The network edge of the SCM clients: one request over node:http or node:https, with the TLS
 * settings a provider asks for (extra root CAs from `--scm-root-ca-path` or a `caRef` ConfigMap,
 * or no verification when `insecure`; a Git repository's client certificate for its GitHub App
 * token exchange), and the connect limit of {@link ScmHttpClient} (the total
 * limit arrives as the request's abort signal). Everything above it is transport-agnostic and is
 * tested against real local servers through this same implementation.
 */
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, RequestOptions } from "node:http";
import { nodeHttp } from "../node-http.js";
import { request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import { rootCertificates, TLSSocket } from "node:tls";
import { ResponseTooLargeError, type SizeLimitDetail } from "../response-limit.js";
import { ScmTimeoutError } from "./timeouts.js";

/** TLS settings of one request. */
export interface TlsOptions {
  /** Extra PEM CA certificates, trusted beside the system roots. */
  readonly extraCa?: readonly string[];
  /** Skip certificate verification (a provider's `insecure: true`). */
  readonly insecure?: boolean;
  /** The client certificate and its key, PEM (a Git repository's `tlsClientCertData`/`tlsClientCertKey`). */
  readonly clientCert?: { readonly cert: string; readonly key: string };
}

/** One HTTP request. Header names are sent as given. */
export interface TransportRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly tls?: TlsOptions;
  /** Aborts the request (the caller's signal, combined with the client's total limit). */
  readonly signal?: AbortSignal;
  /** Longest wait for a new connection (TCP and TLS; through a proxy, the tunnel too); none when absent. */
  readonly connectTimeoutMs?: number;
  /** The largest body accepted: past it the request is destroyed with a {@link ResponseTooLargeError}. */
  readonly bodyLimit?: SizeLimitDetail;
}

/** One HTTP response; header names are lower-case, repeated headers joined with ", ". */
export interface TransportResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Sends one request; rejects only when no complete response arrived (network, TLS, abort, a body
 * cut short, {@link ScmTimeoutError} when the connect limit ran out, or
 * {@link ResponseTooLargeError} when the body passed the request's limit).
 */
export type Transport = (req: TransportRequest) => Promise<TransportResponse>;

function flattenHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

/** node's TLS options for a provider's settings. */
export function tlsSettings(tls: TlsOptions | undefined): { ca?: string[]; rejectUnauthorized?: boolean; cert?: string; key?: string } {
  if (tls === undefined) return {};
  const out: { ca?: string[]; rejectUnauthorized?: boolean; cert?: string; key?: string } = {};
  if (tls.extraCa !== undefined && tls.extraCa.length > 0) out.ca = [...rootCertificates, ...tls.extraCa];
  if (tls.insecure === true) out.rejectUnauthorized = false;
  if (tls.clientCert !== undefined) {
    out.cert = tls.clientCert.cert;
    out.key = tls.clientCert.key;
  }
  return out;
}

/** node's `http.request` or `https.request` (or one bound to a proxy connection). */
export type RequestFn = (options: RequestOptions, onResponse: (res: IncomingMessage) => void) => ClientRequest;

/**
 * Destroys `r` with a connect {@link ScmTimeoutError} unless a new socket is connected (and, for
 * TLS, past its handshake) within `ms`. A reused keep-alive socket is already set up.
 */
function guardConnect(r: ClientRequest, url: string, ms: number | undefined): void {
  if (ms === undefined) return;
  r.once("socket", (socket: Socket) => {
    if (!socket.connecting) return;
    const limit = AbortSignal.timeout(ms);
    const onTimeout = (): void => void r.destroy(new ScmTimeoutError({ phase: "connect", url, limitMs: ms }));
    const disarm = (): void => limit.removeEventListener("abort", onTimeout);
    limit.addEventListener("abort", onTimeout, { once: true });
    socket.once(socket instanceof TLSSocket ? "secureConnect" : "connect", disarm);
    socket.once("close", disarm);
  });
}

/**
 * Sends `req` with `send` and `options` (host, port, path, TLS, agent), and collects the whole
 * answer; `watch` sees the request before it is sent and may fail it (a proxy's connection guard).
 */
export function exchange(
  req: TransportRequest,
  options: RequestOptions,
  send: RequestFn,
  watch?: (r: ClientRequest, reject: (err: Error) => void) => void,
): Promise<TransportResponse> {
  return new Promise<TransportResponse>((resolve, reject) => {
    const headers: Record<string, string> = { ...(options.headers as Record<string, string> | undefined), ...req.headers };
    if (req.body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(req.body));
    const r = send({ ...options, method: req.method, headers, ...(req.signal ? { signal: req.signal } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (req.bodyLimit !== undefined && size > req.bodyLimit.limitBytes) {
          const err = new ResponseTooLargeError(req.bodyLimit);
          reject(err);
          r.destroy(err);
          return;
        }
        chunks.push(c);
      });
      res.on("error", reject);
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: flattenHeaders(res.headers), body: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("close", () => {
        if (!res.complete) reject(new Error(`${req.method} ${req.url}: the connection closed before the response was complete`));
      });
    });
    guardConnect(r, req.url, req.connectTimeoutMs);
    watch?.(r, reject);
    r.on("error", reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

/** A URL's host name as node's request options want it (IPv6 without brackets). */
export function hostnameOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

/** Request options straight to a URL (no proxy). */
export function directOptions(url: URL, tls: TlsOptions | undefined): RequestOptions {
  return {
    protocol: url.protocol,
    hostname: hostnameOf(url),
    port: url.port,
    path: `${url.pathname}${url.search}`,
    ...(url.protocol === "https:" ? tlsSettings(tls) : {}),
  };
}

/** The default transport over node:http and node:https. */
export const nodeTransport: Transport = (req) => {
  const url = new URL(req.url);
  return exchange(req, directOptions(url, req.tls), url.protocol === "https:" ? httpsRequest : nodeHttp.request);
};
