/**
 * SigV4 header signing with the AWS SDK's signer (`@smithy/signature-v4`, SHA-256 from Node's
 * crypto through `@smithy/hash-node`), over the URL's path and query. The signing time is an argument, so the injected clock
 * decides it. Every header given is signed, with `Host` taken from the URL; the signer adds
 * `X-Amz-Date`, `X-Amz-Content-Sha256`, `X-Amz-Security-Token` (temporary credentials) and
 * `Authorization`. Headers the HTTP client adds later (User-Agent, Content-Length) stay unsigned.
 * The SDK's modules load on the first request signed, not with the controller
 * (docs/controller.md#memory-at-start).
 */
import type { AwsCredentialIdentity } from "@smithy/types";

/** Long-term or temporary AWS credentials (the SDK's identity type). */
export type AwsCredentials = AwsCredentialIdentity;

/** A request to sign: its URL, own headers and body. */
export interface SignableRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Where the request is signed for, and when (ms since the epoch). */
export interface SigningScope {
  readonly region: string;
  readonly service: string;
  readonly nowMs: number;
}

/** The request's headers after signing, without `host` (the HTTP client sends it from the URL). */
export async function signRequest(req: SignableRequest, creds: AwsCredentials, scope: SigningScope): Promise<Record<string, string>> {
  const [{ Hash }, { HttpRequest }, { SignatureV4 }] = await Promise.all([
    import("@smithy/hash-node"),
    import("@smithy/protocol-http"),
    import("@smithy/signature-v4"),
  ]);
  const url = new URL(req.url);
  // The query is signed too: every value of a repeated name, in the order sent.
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    query[name] = values.length === 1 ? (values[0] ?? "") : values;
  }
  const signer = new SignatureV4({ credentials: creds, region: scope.region, service: scope.service, sha256: Hash.bind(null, "sha256") });
  const signed = await signer.sign(
    new HttpRequest({
      method: req.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === "" ? {} : { port: Number(url.port) }),
      path: url.pathname,
      query,
      headers: { ...req.headers, host: url.host },
      body: req.body,
    }),
    { signingDate: new Date(scope.nowMs) },
  );
  const { host: _host, ...headers } = signed.headers;
  return headers;
}
