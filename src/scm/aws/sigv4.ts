/**
 * AWS Signature Version 4 for header-signed requests (the only form the SCM clients send). Pure:
 * the signing time is an argument. Canonical request: method, URI-encoded path, sorted query,
 * lower-cased sorted headers with trimmed and space-collapsed values, signed header list, SHA-256
 * of the body; string to sign: algorithm, time, scope, hash of the canonical request; the key is
 * derived from the secret, day, region and service. Checked against AWS's published test suite.
 */
import { createHash, createHmac } from "node:crypto";

/** Long-term or temporary AWS credentials. */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Present for temporary credentials (STS); sent and signed as `X-Amz-Security-Token`. */
  readonly sessionToken?: string;
}

/** A request to sign. Header names may have any case; `Host` is taken from the URL when absent. */
export interface SignableRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Where the request is signed for, and when. */
export interface SigningScope {
  readonly region: string;
  readonly service: string;
  /** Signing time, ms since the epoch. */
  readonly nowMs: number;
}

/** The pieces of one signature (the intermediate strings help diagnose a mismatch). */
export interface Signature {
  /** The headers to add: `X-Amz-Date`, `Authorization` and, with a session token, `X-Amz-Security-Token`. */
  readonly headers: Record<string, string>;
  readonly canonicalRequest: string;
  readonly stringToSign: string;
  readonly signature: string;
}

const ALGORITHM = "AWS4-HMAC-SHA256";

/** Hex SHA-256 of a UTF-8 string. */
export function sha256Hex(s: string): string {
  return createHash("sha256").update(s, "utf8").digest("hex");
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac("sha256", key).update(data, "utf8").digest();
}

/** `20150830T123600Z` for a time in ms. */
export function amzDate(nowMs: number): string {
  return new Date(nowMs)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

/** RFC 3986 encoding: everything but unreserved characters, upper-case hex. */
function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalPath(pathname: string): string {
  const path = pathname === "" ? "/" : pathname;
  return path
    .split("/")
    .map((seg) => uriEncode(decodeURIComponent(seg)))
    .join("/");
}

function canonicalQuery(search: string): string {
  const pairs = search
    .replace(/^\?/, "")
    .split("&")
    .filter((p) => p !== "")
    .map((p) => {
      const i = p.indexOf("=");
      const [k, v] = i < 0 ? [p, ""] : [p.slice(0, i), p.slice(i + 1)];
      const dec = (x: string): string => decodeURIComponent(x.replace(/\+/g, " "));
      return [uriEncode(dec(k)), uriEncode(dec(v))] as const;
    });
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join("&");
}

/** The headers that are signed, lower-cased and sorted, with canonical values. */
function canonicalHeaders(headers: Readonly<Record<string, string>>): Array<[string, string]> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(headers)) {
    const name = k.toLowerCase();
    const value = v.trim().replace(/\s+/g, " ");
    out.set(name, out.has(name) ? `${out.get(name) ?? ""},${value}` : value);
  }
  return [...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The signing key of a day, region and service. */
function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), "aws4_request");
}

/**
 * Signs `req` with every header it carries (plus `Host`, `X-Amz-Date` and the session token).
 * Send exactly the returned headers beside the request's own; headers added later (User-Agent,
 * Content-Length) are not signed and may change freely.
 */
export function signV4(req: SignableRequest, creds: AwsCredentials, scope: SigningScope): Signature {
  const url = new URL(req.url);
  const date = amzDate(scope.nowMs);
  const day = date.slice(0, 8);
  const added: Record<string, string> = {
    "X-Amz-Date": date,
    ...(creds.sessionToken ? { "X-Amz-Security-Token": creds.sessionToken } : {}),
  };
  const hasHost = Object.keys(req.headers).some((k) => k.toLowerCase() === "host");
  const headers = canonicalHeaders({ ...(hasHost ? {} : { host: url.host }), ...req.headers, ...added });
  const signedHeaders = headers.map(([k]) => k).join(";");
  const canonicalRequest = [
    req.method.toUpperCase(),
    canonicalPath(url.pathname),
    canonicalQuery(url.search),
    headers.map(([k, v]) => `${k}:${v}\n`).join(""),
    signedHeaders,
    sha256Hex(req.body),
  ].join("\n");
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = [ALGORITHM, date, credentialScope, sha256Hex(canonicalRequest)].join("\n");
  const signature = createHmac("sha256", signingKey(creds.secretAccessKey, day, scope.region, scope.service))
    .update(stringToSign, "utf8")
    .digest("hex");
  const authorization = `${ALGORITHM} Credential=${creds.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { headers: { ...added, Authorization: authorization }, canonicalRequest, stringToSign, signature };
}

/** The parts of a SigV4 `Authorization` header, or undefined when it is not one. */
export function parseAuthorization(
  value: string | undefined,
): { accessKeyId: string; day: string; region: string; service: string; signedHeaders: string[]; signature: string } | undefined {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      value ?? "",
    );
  if (m === null) return undefined;
  const [, accessKeyId = "", day = "", region = "", service = "", signed = "", signature = ""] = m;
  return { accessKeyId, day, region, service, signedHeaders: signed.split(";"), signature };
}
