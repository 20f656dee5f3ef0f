import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../../../src/clock/index.js";
import { AppSetMetrics, createMetricsRegistry } from "../../../src/metrics/index.js";
import { ScmHttpClient } from "../../../src/scm/http.js";
import { scmMetricsObserver } from "../../../src/scm/metrics.js";

/** Answers by path: GitHub-style and GitLab-style rate-limit headers, and a GitHub refusal. */
const ANSWERS: Record<string, { status: number; headers: Record<string, string> }> = {
  "/github": { status: 200, headers: { "x-ratelimit-limit": "5000", "x-ratelimit-remaining": "4321", "x-ratelimit-resource": "core" } },
  "/gitlab": { status: 200, headers: { "ratelimit-limit": "2000", "ratelimit-remaining": "1999" } },
  "/refused": { status: 429, headers: { "retry-after": "60" } },
};

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const a = ANSWERS[req.url ?? ""] ?? { status: 404, headers: {} };
    res.writeHead(a.status, a.headers).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A client reporting to a fresh registry, and that registry's text after the given calls. */
async function scrape(calls: ReadonlyArray<{ provider: string; path: string; token: string }>): Promise<string> {
  const registry = createMetricsRegistry({ processMetrics: false });
  const metrics = new AppSetMetrics({ registry, list: () => [], namespaceAllowed: () => true });
  const client = new ScmHttpClient({ clock: new FakeClock(1_700_000_000_000), observer: scmMetricsObserver(metrics) });
  metrics.watchScm(() => client);
  for (const c of calls)
    await client
      .request({ provider: c.provider, url: `${base}${c.path}`, headers: { Authorization: `Bearer ${c.token}` } })
      .catch(() => undefined);
  return registry.metrics();
}

describe("provider-neutral SCM API metrics", () => {
  it.each([
    {
      name: "GitHub's X-RateLimit-* and GitLab's RateLimit-* figures appear per provider and host.",
      calls: [
        { provider: "github", path: "/github", token: "a" },
        { provider: "gitlab", path: "/gitlab", token: "b" },
      ],
      want: [
        'appset_scm_api_requests_total{provider="github",status="200"} 1',
        'appset_scm_api_requests_total{provider="gitlab",status="200"} 1',
        'appset_scm_api_rate_limit_remaining{provider="github",host="127.0.0.1:PORT"} 4321',
        'appset_scm_api_rate_limit_limit{provider="github",host="127.0.0.1:PORT"} 5000',
        'appset_scm_api_rate_limit_remaining{provider="gitlab",host="127.0.0.1:PORT"} 1999',
        'appset_scm_api_rate_limit_limit{provider="gitlab",host="127.0.0.1:PORT"} 2000',
        'appset_scm_api_rate_limited_total{provider="github"} 0',
      ],
    },
    {
      name: "A refusal and the request held back after it both count as rate limited.",
      calls: [
        { provider: "gitea", path: "/refused", token: "c" },
        { provider: "gitea", path: "/refused", token: "c" },
      ],
      want: ['appset_scm_api_requests_total{provider="gitea",status="429"} 1', 'appset_scm_api_rate_limited_total{provider="gitea"} 2'],
    },
  ])("$name", async ({ calls, want }) => {
    const text = await scrape(calls);
    const port = new URL(base).port;
    for (const line of want) expect(text.split("\n")).toContain(line.replace("PORT", port));
  });

  it("Series carry no ApplicationSet or endpoint labels, so their number stays small.", async () => {
    const text = await scrape([{ provider: "github", path: "/github", token: "a" }]);
    const scmLines = text.split("\n").filter((l) => l.startsWith("appset_scm_api_"));
    expect(scmLines.length).toBeGreaterThan(0);
    for (const l of scmLines) expect(l).not.toMatch(/appset_name|endpoint/);
  });
});
