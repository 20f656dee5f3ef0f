/**
 * The network edge of the SCM clients: one request over node:http or node:https, with the TLS
 * settings a provider asks for (extra root CAs from `--scm-root-ca-path` or a `caRef` ConfigMap,
 * or no verification when `insecure`). Everything above it is transport-agnostic and is tested
 * against real local servers through this same implementation.
 */
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { rootCertificates } from "node:tls";

/** TLS settings of one request. */
export interface TlsOptions {
  /** Extra PEM CA certificates, trusted beside the system roots. */
  readonly extraCa?: readonly string[];
  /** Skip certificate verification (a provider's `insecure: true`). */
  readonly insecure?: boolean;
}

/** One HTTP request. Header names are sent as given. */
export interface TransportRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly tls?: TlsOptions;
  readonly signal?: AbortSignal;
}

/** One HTTP response; header names are lower-case, repeated headers joined with ", ". */
export interface TransportResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Sends one request; rejects only when no response arrived (network, TLS, abort). */
export type Transport = (req: TransportRequest) => Promise<TransportResponse>;

function flattenHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

/** node's TLS options for a provider's settings. */
export function tlsSettings(tls: TlsOptions | undefined): { ca?: string[]; rejectUnauthorized?: boolean } {
  if (tls === undefined) return {};
  const out: { ca?: string[]; rejectUnauthorized?: boolean } = {};
  if (tls.extraCa !== undefined && tls.extraCa.length > 0) out.ca = [...rootCertificates, ...tls.extraCa];
  if (tls.insecure === true) out.rejectUnauthorized = false;
  return out;
}

/** node's `http.request` or `https.request` (or one bound to a proxy connection). */
export type RequestFn = (options: RequestOptions, onResponse: (res: IncomingMessage) => void) => ClientRequest;

/** Sends `req` with `send` and `options` (host, port, path, TLS), and collects the whole answer. */
export function exchange(req: TransportRequest, options: RequestOptions, send: RequestFn): Promise<TransportResponse> {
  return new Promise<TransportResponse>((resolve, reject) => {
    const headers: Record<string, string> = { ...(options.headers as Record<string, string> | undefined), ...req.headers };
    if (req.body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(req.body));
    const r = send({ ...options, method: req.method, headers, ...(req.signal ? { signal: req.signal } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: flattenHeaders(res.headers), body: Buffer.concat(chunks).toString("utf8") }));
    });
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
  return { protocol: url.protocol, hostname: hostnameOf(url), port: url.port, path: `${url.pathname}${url.search}`, ...(url.protocol === "https:" ? tlsSettings(tls) : {}) };
}

/** The default transport over node:http and node:https. */
export const nodeTransport: Transport = (req) => {
  const url = new URL(req.url);
  return exchange(req, directOptions(url, req.tls), url.protocol === "https:" ? httpsRequest : httpRequest);
};
