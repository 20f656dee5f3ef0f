/**
 * The connect and total limits of SCM provider requests, against real local servers that
 * misbehave: one accepts connections and never answers, one sends headers and stalls the body,
 * one never completes a connection. Limits are set small; the tests assert the error, never how
 * long it took.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SystemClock } from "../../../src/clock/index.js";
import { createPullRequestGenerator } from "../../../src/generators/pull-request.js";
import { createScmProviderGenerator } from "../../../src/generators/scm-provider.js";
import { ScmHttpClient } from "../../../src/scm/http.js";
import { proxyTransport } from "../../../src/scm/proxy.js";
import { ScmTimeoutError, type TimeoutPhase } from "../../../src/scm/timeouts.js";
import { appSet } from "../../unit/generators/builders.js";
import { harness } from "../../unit/scm/support.js";
import { silentServer, stalledBodyServer, unacceptingListener, type Misbehaving } from "./stalling-servers.js";

let silent: Misbehaving;
let stalled: Misbehaving;
let unaccepting: { url: string; close(): Promise<void> };

beforeAll(async () => {
  [silent, stalled, unaccepting] = await Promise.all([silentServer(), stalledBodyServer(), unacceptingListener()]);
});
afterAll(async () => {
  await Promise.all([silent.close(), stalled.close(), unaccepting.close()]);
});

const servers = (): Record<"silent" | "stalled", Misbehaving> => ({ silent, stalled });

/** Every error of a cause chain. */
function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e: unknown = err; e !== undefined; e = e instanceof Error ? e.cause : undefined) out.push(e);
  return out;
}

/** The timeout error somewhere in a cause chain, or undefined. */
function timeoutIn(err: unknown): ScmTimeoutError | undefined {
  return chain(err).find((e): e is ScmTimeoutError => e instanceof ScmTimeoutError);
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => expect.unreachable("the call resolved"),
    (err: unknown) => err,
  );
}

function client(timeouts: { connectMs?: number; totalMs?: number }, transport?: ReturnType<typeof proxyTransport>): ScmHttpClient {
  return new ScmHttpClient({ clock: new SystemClock(), timeouts, ...(transport === undefined ? {} : { transport }) });
}

describe("SCM generators against a provider that does not answer in time", () => {
  it.each([
    // name; which server; what the failure names
    { name: "accepts the connection and never answers", server: "silent" as const },
    { name: "sends headers, then stalls the body", server: "stalled" as const },
  ])("the SCM Provider generator fails with a timeout when the provider $name", async (row) => {
    const h = harness({ extra: { timeouts: { connectMs: 2_000, totalMs: 300 } } });
    const api = servers()[row.server].url;
    const err = await failure(
      createScmProviderGenerator(h.services).generate({ github: { organization: "acme", api } }, appSet([]), h.ctx),
    );
    expect(err).toMatchObject({
      reason: "ApplicationGenerationFromParamsError",
      message: `error listing repos: error listing repositories for acme: request to ${api}/api/v3/orgs/acme/repos timed out after 300ms`,
    });
    expect(timeoutIn(err)?.detail).toEqual({ phase: "request", url: `${api}/api/v3/orgs/acme/repos?per_page=100`, limitMs: 300 });
  });

  it.each([
    { name: "accepts the connection and never answers", server: "silent" as const },
    { name: "sends headers, then stalls the body", server: "stalled" as const },
  ])("the Pull Request generator fails with a timeout, never an empty list, when the provider $name", async (row) => {
    const h = harness({ extra: { timeouts: { connectMs: 2_000, totalMs: 300 } } });
    const api = servers()[row.server].url;
    const err = await failure(
      createPullRequestGenerator(h.services).generate({ github: { owner: "acme", repo: "web", api } }, appSet([]), h.ctx),
    );
    expect(err).toMatchObject({
      reason: "ApplicationGenerationFromParamsError",
      message: expect.stringMatching(/^error listing repos: .*request to .* timed out after 300ms$/),
    });
    expect(timeoutIn(err)?.detail.phase).toBe("request");
  });
});

describe("the SCM HTTP client's limits", () => {
  it.each<{ name: string; url: () => string; want: TimeoutPhase; message: () => string }>([
    {
      name: "a connection that never completes hits the connect limit",
      url: () => `${unaccepting.url}/orgs/acme/repos`,
      want: "connect",
      message: () => `connection to ${unaccepting.url} timed out after 200ms`,
    },
    {
      name: "a TLS handshake that never completes hits the connect limit",
      url: () => `${silent.url.replace("http:", "https:")}/orgs/acme/repos`,
      want: "connect",
      message: () => `connection to ${silent.url.replace("http:", "https:")} timed out after 200ms`,
    },
    {
      name: "an answer whose body stalls hits the total limit",
      url: () => `${stalled.url}/orgs/acme/repos?page=2`,
      want: "request",
      message: () => `request to ${stalled.url}/orgs/acme/repos timed out after 400ms`,
    },
  ])("$name", async (row) => {
    const err = await failure(client({ connectMs: 200, totalMs: 400 }).request({ provider: "github", url: row.url() }));
    expect(err).toBeInstanceOf(ScmTimeoutError);
    expect(err).toMatchObject({ reason: "ScmApiError", status: 0, message: row.message(), detail: { phase: row.want } });
  });

  it("leaves the caller's abort an abort", async () => {
    const caller = new AbortController();
    const before = silent.count();
    const run = client({ connectMs: 5_000, totalMs: 30_000 }).request({
      provider: "github",
      url: `${silent.url}/orgs/acme/repos`,
      signal: caller.signal,
    });
    await silent.seen(before + 1);
    const reason = new Error("reconcile cancelled");
    caller.abort(reason);
    const err = await failure(run);
    expect(err).not.toBeInstanceOf(ScmTimeoutError);
    expect(chain(err)).toContain(reason);
  });

  it.each([
    // name; proxy URL scheme on the silent server; target
    { name: "the CONNECT tunnel of an http:// proxy", scheme: "http", target: "https://scm.test/orgs/acme/repos" },
    { name: "the TLS handshake with an https:// proxy", scheme: "https", target: "http://scm.test/orgs/acme/repos" },
    { name: "the SOCKS5 handshake of a socks5:// proxy", scheme: "socks5", target: "https://scm.test/orgs/acme/repos" },
    { name: "the SOCKS5 handshake of a socks5h:// proxy, plain HTTP", scheme: "socks5h", target: "http://scm.test/orgs/acme/repos" },
  ])("bounds $name by the connect limit", async (row) => {
    const url = silent.url.replace("http:", `${row.scheme}:`);
    const http = client({ connectMs: 200, totalMs: 30_000 }, proxyTransport({ url, noProxy: "" }));
    const err = await failure(http.request({ provider: "github", url: row.target }));
    expect(err).toBeInstanceOf(ScmTimeoutError);
    expect(err).toMatchObject({
      message: `connection to ${new URL(row.target).origin} timed out after 200ms`,
      detail: { phase: "connect" },
    });
  });

  it("bounds a plain-HTTP request through a proxy that never answers by the total limit", async () => {
    const http = client({ connectMs: 2_000, totalMs: 300 }, proxyTransport({ url: silent.url, noProxy: "" }));
    const err = await failure(http.request({ provider: "github", url: "http://scm.test/orgs/acme/repos" }));
    expect(err).toMatchObject({
      message: "request to http://scm.test/orgs/acme/repos timed out after 300ms",
      detail: { phase: "request" },
    });
  });

  it("takes the defaults when no limits are given", () => {
    expect(new ScmHttpClient({ clock: new SystemClock() }).timeouts).toEqual({ connectMs: 10_000, totalMs: 60_000 });
    expect(client({ connectMs: 0, totalMs: 1_500 }).timeouts).toEqual({ connectMs: 10_000, totalMs: 1_500 });
  });
});
