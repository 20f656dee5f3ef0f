import { describe, expect, it } from "vitest";
import { errorResponseText, nextLink, parseChallenge, tokenOf } from "./registry-client.js";

describe("parseChallenge", () => {
  it.each([
    [
      'Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:org/app:pull"',
      {
        scheme: "bearer",
        params: { realm: "https://auth.example.com/token", service: "registry.example.com", scope: "repository:org/app:pull" },
      },
    ],
    ['Basic realm="Registry Realm"', { scheme: "basic", params: { realm: "Registry Realm" } }],
    ["Bearer realm=unquoted, service=svc", { scheme: "bearer", params: { realm: "unquoted", service: "svc" } }],
    ['Bearer realm="a\\"b"', { scheme: "bearer", params: { realm: 'a"b' } }],
    ["", { scheme: "", params: {} }],
  ])("%s", (header, want) => {
    expect(parseChallenge(header)).toEqual(want);
  });
});

describe("nextLink", () => {
  it("resolves the next page against the request", () => {
    expect(nextLink('</v2/org/app/tags/list?n=2&last=b>; rel="next"', "https://r.example.com/v2/org/app/tags/list")).toBe(
      "https://r.example.com/v2/org/app/tags/list?n=2&last=b",
    );
    expect(nextLink(undefined, "https://r.example.com/")).toBeUndefined();
    expect(nextLink('</x>; rel="prev"', "https://r.example.com/")).toBeUndefined();
  });
});

describe("errorResponseText", () => {
  it.each([
    {
      name: "the registry's errors, with a detail as Go prints it",
      body: '{"errors":[{"code":"UNAUTHORIZED","message":"authentication required","detail":[{"Type":"repository","Name":"org/app","Action":"pull"}]}]}',
      want: 'GET "https://r/v2/org/app/manifests/1": response status code 401: unauthorized: authentication required: [map[Action:pull Name:org/app Type:repository]]',
    },
    {
      name: "two errors",
      body: '{"errors":[{"code":"DENIED","message":"a"},{"code":"TOOMANYREQUESTS","message":"b"}]}',
      want: 'GET "https://r/v2/org/app/manifests/1": response status code 401: denied: a; toomanyrequests: b',
    },
    {
      name: "a body that is not JSON",
      body: "<html>",
      want: 'GET "https://r/v2/org/app/manifests/1": response status code 401: Unauthorized',
    },
  ])("$name", ({ body, want }) => {
    expect(errorResponseText("GET", "https://r/v2/org/app/manifests/1", 401, body)).toBe(want);
  });
});

describe("tokenOf", () => {
  it.each([
    ['{"token":"t1"}', "t1"],
    ['{"access_token":"t2"}', "t2"],
    ['{"token":"","access_token":"t3"}', "t3"],
    ['{"token":""}', undefined],
    ["not json", undefined],
  ])("%s", (text, want) => {
    expect(tokenOf(text)).toBe(want);
  });
});
