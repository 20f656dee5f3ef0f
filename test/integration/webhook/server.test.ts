import { afterEach, describe, expect, it } from "vitest";
import { parseApplicationSet, type ApplicationSet } from "../../../src/api/index.js";
import { SystemClock } from "../../../src/clock/index.js";
import { startWebhookServer, WEBHOOK_PATH, type WebhookServer } from "../../../src/webhook/server.js";
import { capturedLogger } from "../../support/captured-logger.js";
import { signedFixture, TEST_SECRETS, type SignedRequest } from "../../support/webhook-payloads.js";

function appSet(name: string, repoURL: string): ApplicationSet {
  const r = parseApplicationSet({
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name, namespace: "argocd" },
    spec: {
      generators: [{ git: { repoURL, revision: "HEAD", directories: [{ path: "*" }] } }],
      template: { metadata: { name: "x" }, spec: { project: "default", destination: {} } },
    },
  });
  if (!r.ok) throw r.error;
  return r.value;
}

interface Harness {
  server: WebhookServer;
  refreshed: string[];
  logs: Array<Record<string, unknown>>;
  post(
    req: SignedRequest | { headers: Record<string, string>; body: Buffer | string },
    method?: string,
  ): Promise<{ status: number; text: string }>;
}

let running: WebhookServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function harness(opts: { maxPayloadBytes?: number; queueCapacity?: number; hold?: Promise<void> } = {}): Promise<Harness> {
  const { lines: logs, logger } = capturedLogger("debug");
  const refreshed: string[] = [];
  const server = await startWebhookServer({
    addr: "127.0.0.1:0",
    parallelism: 2,
    settings: () => Promise.resolve({ secrets: TEST_SECRETS, maxPayloadBytes: opts.maxPayloadBytes ?? 1024 * 1024 }),
    appSets: () =>
      Promise.resolve([appSet("guestbook", "https://github.com/acme/guestbook"), appSet("other", "https://github.com/acme/other")]),
    refresh: async (a) => {
      await opts.hold;
      refreshed.push(a.metadata.name ?? "");
    },
    logger,
    clock: new SystemClock(),
    ...(opts.queueCapacity === undefined ? {} : { queueCapacity: opts.queueCapacity }),
  });
  running = server;
  const post: Harness["post"] = async (req, method = "POST") => {
    const res = await fetch(`${server.url}${WEBHOOK_PATH}`, {
      method,
      headers: req.headers,
      ...(method === "GET" ? {} : { body: req.body }),
    });
    return { status: res.status, text: await res.text() };
  };
  return { server, refreshed, logs, post };
}

describe("the webhook server", () => {
  it("answers a signed push with 200 and an empty body, then refreshes only the affected ApplicationSet", async () => {
    const h = await harness();
    expect(await h.post(signedFixture("github-push"))).toEqual({ status: 200, text: "" });
    await h.server.idle();
    expect(h.refreshed).toEqual(["guestbook"]);
    expect(h.logs.map((l) => l["msg"])).toContain("refresh ApplicationSet argocd/guestbook from webhook");
  });

  it.each([
    {
      name: "a forged signature",
      req: () => signedFixture("github-push", () => {}, { github: "wrong" }),
      status: 401,
      reason: "X-Hub-Signature-256 does not match the payload",
    },
    {
      name: "a malformed body",
      req: () => signedFixture("gitlab-push", (p) => delete p["project"]),
      status: 400,
      reason: "the GitLab Push Hook is malformed at project: Invalid input: expected object, received undefined",
    },
    {
      name: "an unknown sender",
      req: () => ({ headers: { "content-type": "application/json" }, body: "{}" }),
      status: 400,
      reason: "Unknown webhook event",
    },
  ])("refuses $name with $status and logs the reason", async ({ req, status, reason }) => {
    const h = await harness();
    const res = await h.post(req());
    expect(res).toEqual({ status, text: `Webhook processing failed: ${reason}\n` });
    expect(h.logs.find((l) => l["msg"] === `webhook refused: ${reason}`)).toMatchObject({ level: "warning", status });
    await h.server.idle();
    expect(h.refreshed).toEqual([]);
  });

  it("refuses a GET with 405", async () => {
    const h = await harness();
    expect((await h.post({ headers: {}, body: "" }, "GET")).status).toBe(405);
  });

  it.each([
    { name: "declares a larger Content-Length", chunked: false },
    { name: "streams more than the limit without a length", chunked: true },
  ])("refuses with 413 a body that $name", async ({ chunked }) => {
    const h = await harness({ maxPayloadBytes: 1024 });
    const req = signedFixture("github-push", (p) => (p["padding"] = "x".repeat(2048)));
    const body = chunked ? new Blob([req.body]).stream() : req.body;
    const res = await fetch(`${h.server.url}${WEBHOOK_PATH}`, {
      method: "POST",
      headers: req.headers,
      body,
      ...(chunked ? { duplex: "half" } : {}),
    });
    expect(res.status).toBe(413);
    expect(await res.text()).toBe("Webhook processing failed: the payload is larger than 1024 bytes\n");
    expect(h.logs.find((l) => l["msg"] === "webhook refused: payload too large")).toMatchObject({ status: 413, limitBytes: 1024 });
  });

  it("answers 503 when the queue is full", async () => {
    let release = (): void => {};
    const hold = new Promise<void>((r) => (release = r));
    const h = await harness({ queueCapacity: 1, hold });
    expect((await h.post(signedFixture("github-push"))).status).toBe(200);
    expect(await h.post(signedFixture("github-push"))).toEqual({ status: 503, text: "Queue is full, discarding webhook payload\n" });
    release();
    await h.server.idle();
    expect(h.refreshed).toEqual(["guestbook"]);
  });

  it("answers 404 outside /api/webhook", async () => {
    const h = await harness();
    expect((await fetch(`${h.server.url}/`, { method: "POST", body: "{}" })).status).toBe(404);
  });
});
