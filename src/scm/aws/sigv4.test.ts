import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { amzDate, parseAuthorization, signV4 } from "./sigv4.js";

/** The credentials, time, region and service of AWS's SigV4 test suite. */
const SUITE = {
  creds: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" },
  scope: { region: "us-east-1", service: "service", nowMs: Date.UTC(2015, 7, 30, 12, 36, 0) },
};
const TOKEN =
  "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==";
const HOST = "https://example.amazonaws.com";

describe("the SigV4 signer against AWS's published test suite", () => {
  it.each([
    // name (the suite's directory); request; signed headers and signature of the suite's .authz file
    {
      name: "get-vanilla",
      method: "GET",
      path: "/",
      headers: {},
      body: "",
      signed: "host;x-amz-date",
      sig: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
    },
    {
      name: "post-vanilla",
      method: "POST",
      path: "/",
      headers: {},
      body: "",
      signed: "host;x-amz-date",
      sig: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b",
    },
    {
      name: "get-vanilla-query-order-key-case",
      method: "GET",
      path: "/?Param2=value2&Param1=value1",
      headers: {},
      body: "",
      signed: "host;x-amz-date",
      sig: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500",
    },
    {
      name: "get-vanilla-utf8-query",
      method: "GET",
      path: "/?ሴ=bar",
      headers: {},
      body: "",
      signed: "host;x-amz-date",
      sig: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04",
    },
    {
      name: "get-utf8",
      method: "GET",
      path: "/ሴ",
      headers: {},
      body: "",
      signed: "host;x-amz-date",
      sig: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85",
    },
    {
      name: "get-header-value-trim",
      method: "GET",
      path: "/",
      headers: { "My-Header1": " value1", "My-Header2": '"a   b   c"' },
      body: "",
      signed: "host;my-header1;my-header2;x-amz-date",
      sig: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736",
    },
    {
      name: "post-header-key-sort",
      method: "POST",
      path: "/",
      headers: { "My-Header1": "value1" },
      body: "",
      signed: "host;my-header1;x-amz-date",
      sig: "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c",
    },
    {
      name: "post-x-www-form-urlencoded",
      method: "POST",
      path: "/",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "Param1=value1",
      signed: "content-type;host;x-amz-date",
      sig: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a",
    },
  ] as Array<{ name: string; method: string; path: string; headers: Record<string, string>; body: string; signed: string; sig: string }>)(
    "reproduces $name",
    ({ method, path, headers, body, signed, sig }) => {
      const s = signV4({ method, url: `${HOST}${path}`, headers, body }, SUITE.creds, SUITE.scope);
      expect(s.headers["X-Amz-Date"]).toBe("20150830T123600Z");
      expect(s.headers["Authorization"]).toBe(
        `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=${signed}, Signature=${sig}`,
      );
    },
  );

  it("reproduces post-sts-header-before: the session token is sent and signed", () => {
    const s = signV4({ method: "POST", url: `${HOST}/`, headers: {}, body: "" }, { ...SUITE.creds, sessionToken: TOKEN }, SUITE.scope);
    expect(s.headers["X-Amz-Security-Token"]).toBe(TOKEN);
    expect(s.stringToSign).toBe(
      "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nc237e1b440d4c63c32ca95b5b99481081cb7b13c7e40434868e71567c1a882f6",
    );
    expect(s.signature).toBe("85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead");
  });

  it("writes the get-vanilla canonical request exactly as the suite's .creq file", () => {
    const s = signV4({ method: "GET", url: `${HOST}/`, headers: {}, body: "" }, SUITE.creds, SUITE.scope);
    expect(s.canonicalRequest).toBe(
      "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
  });
});

describe("SigV4 invariants", () => {
  it("changes the signature when the body, a signed header or the secret changes, and parses back its own header", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ minLength: 1 }), (body, target, secret) => {
        const req = { method: "POST", url: `${HOST}/`, headers: { "X-Amz-Target": target }, body };
        const base = signV4(req, { accessKeyId: "AK", secretAccessKey: secret }, SUITE.scope);
        expect(signV4({ ...req, body: `${body}x` }, { accessKeyId: "AK", secretAccessKey: secret }, SUITE.scope).signature).not.toBe(
          base.signature,
        );
        expect(
          signV4({ ...req, headers: { "X-Amz-Target": `${target}x` } }, { accessKeyId: "AK", secretAccessKey: secret }, SUITE.scope)
            .signature,
        ).not.toBe(base.signature);
        expect(signV4(req, { accessKeyId: "AK", secretAccessKey: `${secret}x` }, SUITE.scope).signature).not.toBe(base.signature);
        expect(parseAuthorization(base.headers["Authorization"])).toMatchObject({
          accessKeyId: "AK",
          day: "20150830",
          region: "us-east-1",
          service: "service",
          signature: base.signature,
        });
      }),
      { numRuns: 50 },
    );
  });

  it("formats the signing time as basic ISO 8601 in UTC", () => {
    expect(amzDate(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe("20260102T030405Z");
  });
});
