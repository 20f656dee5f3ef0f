/**
 * The network edge of the SCM clients: one request over node:http or node:https, with the TLS
 * settings a provider asks for (extra root CAs from `--scm-root-ca-path` or a `caRef` ConfigMap,
 * or no verification when `insecure`). Everything above it is transport-agnostic and is tested
 * against real local servers through this same implementation.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
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

function tlsSettings(tls: TlsOptions | undefined): { ca?: string[]; rejectUnauthorized?: boolean } {
  if (tls === undefined) return {};
  const out: { ca?: string[]; rejectUnauthorized?: boolean } = {};
  if (tls.extraCa !== undefined && tls.extraCa.length > 0) out.ca = [...rootCertificates, ...tls.extraCa];
  if (tls.insecure === true) out.rejectUnauthorized = false;
  return out;
}

/** The default transport over node:http and node:https. */
export const nodeTransport: Transport = (req) =>
  new Promise<TransportResponse>((resolve, reject) => {
    const url = new URL(req.url);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(req.body));
    const r = send(url, { method: req.method, headers, ...(url.protocol === "https:" ? tlsSettings(req.tls) : {}), ...(req.signal ? { signal: req.signal } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: flattenHeaders(res.headers), body: Buffer.concat(chunks).toString("utf8") }));
    });
    r.on("error", reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
