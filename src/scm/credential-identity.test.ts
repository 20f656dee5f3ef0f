import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { credentialIdentity, ScmHttpClient } from "./http.js";
import { RateLimitedError } from "./ratelimit.js";
import type { TransportRequest, TransportResponse } from "./transport.js";

describe("credentialIdentity", () => {
  const gitlabA = credentialIdentity({ "PRIVATE-TOKEN": "glpat-tenant-a" });
  it.each<{ name: string; headers: Record<string, string>; same: boolean }>([
    // headers: a request's; same: whether it has tenant A's GitLab identity
    { name: "the same GitLab token", headers: { "PRIVATE-TOKEN": "glpat-tenant-a" }, same: true },
    { name: "the same token in another case of header", headers: { "private-token": "glpat-tenant-a" }, same: true },
    { name: "another GitLab token", headers: { "PRIVATE-TOKEN": "glpat-tenant-b" }, same: false },
    { name: "no token", headers: {}, same: false },
    { name: "the same secret as an Authorization header", headers: { Authorization: "glpat-tenant-a" }, same: false },
  ])("tells $name apart or not", ({ headers, same }) => {
    expect(credentialIdentity(headers) === gitlabA).toBe(same);
  });

  it("is a short hash that never holds the token, and anonymous without credentials", () => {
    expect({ a: /^[0-9a-f]{16}$/.test(gitlabA), token: gitlabA.includes("glpat"), none: credentialIdentity({ Accept: "x" }) }).toEqual({
      a: true,
      token: false,
      none: "anonymous",
    });
  });
});

/** A GitLab API that answers 200 with an ETag, 304 to a matching If-None-Match, 429 when told to. */
function gitlab(): { transport: (r: TransportRequest) => Promise<TransportResponse>; seen: TransportRequest[]; refuse: Set<string> } {
  const seen: TransportRequest[] = [];
  const refuse = new Set<string>();
  const transport = (r: TransportRequest): Promise<TransportResponse> => {
    seen.push(r);
    const token = r.headers["PRIVATE-TOKEN"] ?? "";
    if (refuse.has(token)) return Promise.resolve({ status: 429, headers: { "retry-after": "60" }, body: "" });
    const etag = `"${token}"`;
    if (r.headers["If-None-Match"] === etag) return Promise.resolve({ status: 304, headers: { etag }, body: "" });
    return Promise.resolve({ status: 200, headers: { etag }, body: `projects of ${token}` });
  };
  return { transport, seen, refuse };
}

const URL_ = "https://gitlab.example.com/api/v4/groups/g/projects";
const as = (token: string) => ({ provider: "gitlab", url: URL_, headers: { "PRIVATE-TOKEN": token } });

describe("GitLab requests through the SCM client", () => {
  it("share the conditional cache only with the same token", async () => {
    const api = gitlab();
    const client = new ScmHttpClient({ clock: new FakeClock(), transport: api.transport });
    await client.request(as("a"));
    const again = await client.request(as("a"));
    const other = await client.request(as("b"));
    expect({
      conditional: api.seen.map((r) => r.headers["If-None-Match"] ?? "-"),
      again: [again.notModified, again.body],
      other: [other.notModified, other.body],
    }).toEqual({ conditional: ["-", '"a"', "-"], again: [true, "projects of a"], other: [false, "projects of b"] });
  });

  it("back off for the refused token only", async () => {
    const api = gitlab();
    const client = new ScmHttpClient({ clock: new FakeClock(), transport: api.transport });
    api.refuse.add("a");
    await expect(client.request(as("a"))).rejects.toBeInstanceOf(RateLimitedError);
    api.refuse.clear();
    await expect(client.request(as("a"))).rejects.toBeInstanceOf(RateLimitedError);
    expect((await client.request(as("b"))).status).toBe(200);
    expect({ sent: api.seen.map((r) => r.headers["PRIVATE-TOKEN"]), counts: client.stats()["gitlab"] }).toEqual({
      sent: ["a", "b"],
      counts: { requests: 2, notModified: 0, rateLimited: 1, suppressed: 1 },
    });
  });
});
