/**
 * AWS Signature Version 4 written from the published algorithm (the "Create a signed AWS API
 * request" steps of the IAM user guide) with nothing but Node's crypto: the canonical request, the
 * string to sign, the signing key chain and the `Authorization` header. It is the reference the
 * controller's signer (the AWS SDK's) is checked against, and what the AWS stand-in verifies
 * signatures with, so neither check rests on the library under test. It is itself held to AWS's
 * test suite vectors (test/fixtures/aws-sigv4-test-suite.ts). Header authentication only, paths
 * as given (already normalised and percent-encoded, as every service but S3 wants them encoded).
 */
import { createHash, createHmac } from "node:crypto";

/** A request as it is signed: method, path, query, headers by name (any case) and body. */
export interface SigV4Request {
  readonly method: string;
  /** The absolute path, percent-encoded. */
  readonly path: string;
  /** The query string without `?` (may be empty). */
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Who signs, where and when. */
export interface SigV4Scope {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  readonly service: string;
  /** `YYYYMMDDTHHMMSSZ`. */
  readonly amzDate: string;
}

/** Every step's result. */
export interface SigV4Result {
  readonly canonicalRequest: string;
  readonly stringToSign: string;
  readonly signedHeaders: string;
  readonly signature: string;
  readonly authorization: string;
}

const sha256Hex = (s: string): string => createHash("sha256").update(s, "utf8").digest("hex");
const hmac = (key: Buffer | string, s: string): Buffer => createHmac("sha256", key).update(s, "utf8").digest();

/** RFC 3986 encoding: everything but the unreserved characters, upper-case hex. */
function uriEncode(s: string): string {
  return [...Buffer.from(s, "utf8")]
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("");
}

/** Each name and value decoded then encoded again, the pairs sorted by encoded name, then value. */
function canonicalQuery(query: string): string {
  if (query === "") return "";
  const decode = (s: string): string => decodeURIComponent(s.replaceAll("+", "%20"));
  const pairs = query.split("&").map((p) => {
    const eq = p.indexOf("=");
    const [name, value] = eq < 0 ? [p, ""] : [p.slice(0, eq), p.slice(eq + 1)];
    return [uriEncode(decode(name)), uriEncode(decode(value))] as const;
  });
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  pairs.sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]));
  return pairs.map(([n, v]) => `${n}=${v}`).join("&");
}

/** Signs `req` over all of its headers. */
export function sigv4(req: SigV4Request, scope: SigV4Scope): SigV4Result {
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(req.headers)) {
    const key = name.toLowerCase();
    // Sequential spaces fold to one and the ends are trimmed; repeated names join with commas.
    const folded = value.trim().replace(/\s+/g, " ");
    headers.set(key, headers.has(key) ? `${headers.get(key) ?? ""},${folded}` : folded);
  }
  const names = [...headers.keys()].sort();
  const signedHeaders = names.join(";");
  const canonicalRequest = [
    req.method,
    req.path,
    canonicalQuery(req.query),
    names.map((n) => `${n}:${headers.get(n) ?? ""}\n`).join(""),
    signedHeaders,
    sha256Hex(req.body),
  ].join("\n");
  const date = scope.amzDate.slice(0, 8);
  const credentialScope = `${date}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", scope.amzDate, credentialScope, sha256Hex(canonicalRequest)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${scope.secretAccessKey}`, date), scope.region), scope.service), "aws4_request");
  const signature = createHmac("sha256", key).update(stringToSign, "utf8").digest("hex");
  const authorization = `AWS4-HMAC-SHA256 Credential=${scope.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { canonicalRequest, stringToSign, signedHeaders, signature, authorization };
}
