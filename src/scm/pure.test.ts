import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import { AppSetMetrics } from "../metrics/index.js";
import { githubMetricsObserver } from "./metrics.js";
import { rateLimitFigures, refusalBackoffMs } from "./ratelimit.js";
import { branchSlug } from "./slug.js";

const NOW = Date.UTC(2026, 0, 1);

describe("rate-limit figures", () => {
  it.each([
    // name; headers; expected figures
    {
      name: "GitHub's X-RateLimit headers",
      headers: {
        "x-ratelimit-limit": "5000",
        "x-ratelimit-remaining": "4990",
        "x-ratelimit-used": "10",
        "x-ratelimit-reset": "1767229200",
        "x-ratelimit-resource": "core",
      },
      want: { limit: 5000, remaining: 4990, used: 10, resetAtMs: 1767229200000, resource: "core" },
    },
    {
      name: "GitLab's RateLimit headers",
      headers: { "ratelimit-limit": "2000", "ratelimit-remaining": "1999", "ratelimit-observed": "1", "ratelimit-reset": "1767229200" },
      want: { limit: 2000, remaining: 1999, used: 1, resetAtMs: 1767229200000, resource: "" },
    },
    {
      name: "a relative reset in seconds",
      headers: { "ratelimit-limit": "10", "ratelimit-remaining": "4", "ratelimit-reset": "30" },
      want: { limit: 10, remaining: 4, used: 6, resetAtMs: NOW + 30_000, resource: "" },
    },
    { name: "no headers", headers: {}, want: undefined },
  ])("reads $name", ({ headers, want }) => {
    expect(rateLimitFigures(headers as Record<string, string>, NOW)).toEqual(want);
  });

  it.each([
    // name; response; expected backoff (ms) or undefined
    { name: "a 429 with Retry-After", res: { status: 429, headers: { "retry-after": "7" }, body: "" }, want: 7000 },
    {
      name: "a 403 with nothing remaining waits for the reset",
      res: {
        status: 403,
        headers: { "x-ratelimit-limit": "60", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String((NOW + 90_000) / 1000) },
        body: "",
      },
      want: 90_000,
    },
    {
      name: "a secondary-limit 403 without hints waits a minute",
      res: { status: 403, headers: {}, body: '{"message":"You have exceeded a secondary rate limit"}' },
      want: 60_000,
    },
    {
      name: "a permission 403 is not a refusal",
      res: {
        status: 403,
        headers: { "x-ratelimit-remaining": "10", "x-ratelimit-limit": "60" },
        body: '{"message":"Resource not accessible"}',
      },
      want: undefined,
    },
    { name: "a 200 is not a refusal", res: { status: 200, headers: {}, body: "" }, want: undefined },
  ])("treats $name", ({ res, want }) => {
    expect(refusalBackoffMs(res as { status: number; headers: Record<string, string>; body: string }, NOW)).toBe(want);
  });
});

describe("branch slugs", () => {
  it.each([
    // name; branch; slug
    { name: "lower-cases and turns separators into dashes", branch: "Feature/ABC_123", want: "feature-abc-123" },
    { name: "drops accents and substitutes & and @", branch: "fix/Café & tea@home", want: "fix-cafe-and-teaathome" },
    {
      name: "truncates at a dash within 50 characters",
      branch: "a-very-long-branch-name-that-goes-on-and-on-and-on-forever",
      want: "a-very-long-branch-name-that-goes-on-and-on-and-on",
    },
    { name: "trims leading and trailing dashes", branch: "--x--", want: "x" },
  ])("$name", ({ branch, want }) => {
    expect(branchSlug(branch)).toBe(want);
  });

  it("always yields at most 50 characters of [a-z0-9-] without edge dashes", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (s) => {
        const slug = branchSlug(s);
        return slug.length <= 50 && /^[a-z0-9-]*$/.test(slug) && !slug.startsWith("-") && !slug.endsWith("-");
      }),
    );
  });
});

describe("GitHub API metrics", () => {
  it("records GitHub requests and rate limits under Argo CD's names and ignores other providers", async () => {
    const registry = new Registry();
    const metrics = new AppSetMetrics({ registry, list: () => [], namespaceAllowed: () => true });
    const observer = githubMetricsObserver(metrics);
    const caller = { namespace: "argocd", name: "apps" };
    observer.request({ provider: "github", method: "GET", endpoint: "/orgs/{org}/repos", status: 304, seconds: 0.01, caller });
    observer.request({ provider: "gitlab", method: "GET", endpoint: "/groups", status: 200, seconds: 0.01, caller });
    observer.rateLimit({
      provider: "github",
      endpoint: "/orgs/{org}/repos",
      resource: "core",
      figures: { limit: 5000, remaining: 4999, used: 1, resource: "core" },
      resetSeconds: 3600,
      caller,
    });
    const text = await registry.metrics();
    expect(text).toContain(
      'argocd_github_api_requests_total{method="GET",endpoint="/orgs/{org}/repos",status="304",appset_namespace="argocd",appset_name="apps"} 1',
    );
    expect(text).toContain(
      'argocd_github_api_rate_limit_remaining{endpoint="/orgs/{org}/repos",appset_namespace="argocd",appset_name="apps",resource="core"} 4999',
    );
    expect(text).not.toContain("/groups");
  });
});
