import { describe, expect, it } from "vitest";
import { SUITE, VECTORS, type SigV4Vector } from "../../../test/fixtures/aws-sigv4-test-suite.js";
import { sigv4 } from "../../../test/support/sigv4.js";
import { signRequest } from "./signer.js";

// The controller signs with the AWS SDK's signer. These tests hold what it produces for our
// requests to AWS's published test suite, and to a SigV4 written separately from the published
// algorithm (test/support/sigv4.ts), which the suite holds in turn; the AWS stand-in of the
// integration tests verifies signatures with that one too, not with the SDK.

const creds = (v: SigV4Vector): { accessKeyId: string; secretAccessKey: string; sessionToken?: string } => ({
  accessKeyId: SUITE.accessKeyId,
  secretAccessKey: SUITE.secretAccessKey,
  ...(v.sessionToken === undefined ? {} : { sessionToken: v.sessionToken }),
});

/** The vector's request as the controller hands it to the signer: without what the signer adds. */
function ownHeaders(v: SigV4Vector): Record<string, string> {
  const added = new Set(["host", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token"]);
  return Object.fromEntries(Object.entries(v.headers).filter(([name]) => !added.has(name.toLowerCase())));
}

const sign = (v: SigV4Vector): Promise<Record<string, string>> =>
  signRequest({ method: v.method, url: `https://example.amazonaws.com${v.target}`, headers: ownHeaders(v), body: v.body }, creds(v), {
    region: SUITE.region,
    service: SUITE.service,
    nowMs: SUITE.nowMs,
  });

const signedHeadersOf = (authorization: string | undefined): string => /SignedHeaders=([^,]+)/.exec(authorization ?? "")?.[1] ?? "";

describe("SigV4, the reference implementation", () => {
  it.each(VECTORS)("$name: the published canonical request, string to sign and Authorization", (v) => {
    const [path = "", query = ""] = v.target.split("?");
    const got = sigv4({ method: v.method, path, query, headers: v.headers, body: v.body }, SUITE);
    if (v.canonicalRequest !== undefined) expect(got.canonicalRequest).toBe(v.canonicalRequest);
    if (v.stringToSign !== undefined) expect(got.stringToSign).toBe(v.stringToSign);
    expect(got.authorization).toBe(v.authorization);
  });
});

describe("signRequest against AWS's test suite", () => {
  it.each(VECTORS.filter((v) => v.signedBody))("$name: the published Authorization, byte for byte", async (v) => {
    const headers = await sign(v);
    expect(headers["authorization"]).toBe(v.authorization);
    expect(headers["x-amz-date"]).toBe(SUITE.amzDate);
    expect(headers["x-amz-content-sha256"]).toBe(v.headers["X-Amz-Content-Sha256"]);
    expect(headers).not.toHaveProperty("host");
  });

  it.each(VECTORS.filter((v) => !v.signedBody))(
    "$name: the suite's signed headers and the body hash added, signed as the reference signs them",
    async (v) => {
      const headers = await sign(v);
      // The signer always signs the body's hash; otherwise the request is the suite's.
      const bodyHash = v.canonicalRequest?.split("\n").pop();
      if (bodyHash !== undefined) expect(headers["x-amz-content-sha256"]).toBe(bodyHash);
      const want = [...signedHeadersOf(v.authorization).split(";"), "x-amz-content-sha256"].sort().join(";");
      expect(signedHeadersOf(headers["authorization"])).toBe(want);
      expect(headers["x-amz-date"]).toBe(SUITE.amzDate);
      if (v.sessionToken !== undefined) expect(headers["x-amz-security-token"]).toBe(v.sessionToken);
      const [path = "", query = ""] = v.target.split("?");
      // The reference signs every header it is given: all but Authorization, with Host.
      const signed: Record<string, string> = { ...headers, host: "example.amazonaws.com" };
      delete signed["authorization"];
      expect(headers["authorization"]).toBe(sigv4({ method: v.method, path, query, headers: signed, body: v.body }, SUITE).authorization);
    },
  );
});
